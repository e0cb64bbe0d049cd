// The serve panel's log: the server keeps the latest entries and the panel
// asks for those after the last it has, so polling moves only what is new.

import type { ServeLogEntry } from './ipc';

/** Entries the panel keeps (the server keeps as many). */
export const SHOWN_ENTRIES = 500;

/**
 * `kept` followed by `incoming`, the oldest dropped beyond `cap`. Entries
 * numbered from the start again belong to a new run: they replace the old.
 */
export function mergeLog(kept: ServeLogEntry[], incoming: ServeLogEntry[], cap = SHOWN_ENTRIES): ServeLogEntry[] {
  if (incoming.length === 0) return kept;
  const last = kept.at(-1)?.seq ?? 0;
  const merged = incoming[0].seq <= last ? incoming : kept.concat(incoming);
  return merged.length > cap ? merged.slice(merged.length - cap) : merged;
}

/** `12:04:05` for an entry's time, in the user's time zone. */
export function clock(atMs: number): string {
  const d = new Date(atMs);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
