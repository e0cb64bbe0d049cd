// The per-skill stage chart's order and pages. The figures are the
// engine's (`StageTotals`); this only orders and slices them.
import type { StageTotals } from './ipc';

export type StageSort = 'total' | 'metadata' | 'instructions' | 'resources' | 'name';

/** The rows by `key`: largest first for a figure, A to Z for the name; ties keep library order. */
export function sortStages(rows: readonly StageTotals[], key: StageSort): StageTotals[] {
  const sorted = [...rows];
  if (key === 'name') sorted.sort((a, b) => a.id.localeCompare(b.id));
  else sorted.sort((a, b) => b[key] - a[key]);
  return sorted;
}

/** Page `page` (from 0) of `size` rows, and how many pages there are (at least one). */
export function pageOf<T>(rows: readonly T[], page: number, size: number): { rows: T[]; pages: number } {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const at = Math.min(Math.max(0, page), pages - 1);
  return { rows: rows.slice(at * size, (at + 1) * size), pages };
}
