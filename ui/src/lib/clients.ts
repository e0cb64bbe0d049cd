// The Clients tab's pure pieces: verdict labels, the counts line, and the
// real listing beside the prediction, entry by entry.

import type { ClientVerdict, ListingComparison, SkillVerdict } from './ipc';

export const VERDICT_LABELS: Record<ClientVerdict, string> = {
  loads: 'Loads',
  'loads-with-changes': 'Loads with changes',
  'left-out': 'Left out',
  hidden: 'Hidden',
};

/** The verdicts in the order the counts line names them. */
export const VERDICT_ORDER: ClientVerdict[] = ['loads', 'loads-with-changes', 'hidden', 'left-out'];

/** `12 load · 3 with changes · 1 hidden`, leaving out the verdicts no skill has. */
export function countsText(skills: SkillVerdict[]): string {
  const counts = new Map<ClientVerdict, number>();
  for (const s of skills) counts.set(s.verdict, (counts.get(s.verdict) ?? 0) + 1);
  const words: Record<ClientVerdict, string> = {
    loads: 'load as written',
    'loads-with-changes': 'with changes',
    hidden: 'hidden',
    'left-out': 'left out',
  };
  const parts = VERDICT_ORDER.filter((v) => counts.has(v)).map((v) => `${counts.get(v)} ${words[v]}`);
  return parts.length ? parts.join(' · ') : 'no skills';
}

/** One row of the side-by-side view: the predicted entry and the real one. */
export interface EntryPair {
  index: number;
  predicted: string | null;
  real: string | null;
  same: boolean;
}

/**
 * The entries of both listings, in order. The comparison keeps the predicted
 * entries and the differences; an entry with no difference is the same in
 * the real listing.
 */
export function entryPairs(comparison: ListingComparison): EntryPair[] {
  const differences = new Map(comparison.differences.map((d) => [d.index, d]));
  const rows: EntryPair[] = [];
  for (let index = 0; index < comparison.entries_compared; index++) {
    const d = differences.get(index);
    const predicted = comparison.prediction.entries[index]?.text ?? null;
    rows.push(d ? { index, predicted: d.predicted, real: d.real, same: false } : { index, predicted, real: predicted, same: true });
  }
  return rows;
}

/** `claude-code` → the label the model picker shows for the default. */
export function defaultModelLabel(model: string): string {
  return `${model} (default)`;
}

/** Seconds as the capture's progress line shows them. */
export function elapsedText(ms: number): string {
  return `${Math.floor(ms / 1000)} s`;
}
