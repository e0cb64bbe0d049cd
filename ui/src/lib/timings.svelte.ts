// Figures the window measures about itself, shown in the status line (not in
// the panels, where they would read as part of the author's data). Each is
// measured to the frame that paints its result, never assumed.

import { tick } from 'svelte';

export class Timings {
  /** From the oldest unanalysed edit to its findings and costs on screen. */
  editToFindingsMs = $state<number | null>(null);
  /** The engine's share of the last analysis. */
  analysisEngineMs = $state<number | null>(null);
  /** From the app's start until the window was first usable. */
  readyMs = $state<number | null>(null);
  /** The last test-query ranking: the request it answers, the engine's time, keystroke to list. */
  rankedQuery = $state('');
  rankEngineMs = $state<number | null>(null);
  keystrokeToListMs = $state<number | null>(null);
}

/** Calls `then(since)` once the DOM is updated and about to be painted; nothing when `since` is null. */
export function afterPaint(since: number | null, then: (since: number) => void): void {
  if (since === null) return;
  void tick().then(() => requestAnimationFrame(() => then(since)));
}
