// Wording and formatting for the test-query and eval panels. Pure functions,
// so they are unit-tested; every number they format comes from the engine.
import type { OpenRank, RoutingField } from './ipc';

/** The tabs of the right-hand pane. */
export type InspectorTab = 'preview' | 'costs' | 'clients' | 'query' | 'evals' | 'security' | 'bench' | 'problems';

/**
 * The tabs in their order, with their labels (Problems stays last: End goes
 * to it) and, where the full label would not fit the pane at its narrowest,
 * a shorter one.
 */
export const INSPECTOR_TABS: readonly { key: InspectorTab; label: string; short?: string }[] = [
  { key: 'preview', label: 'Preview' },
  { key: 'costs', label: 'Costs' },
  { key: 'clients', label: 'Clients' },
  { key: 'query', label: 'Query' },
  { key: 'evals', label: 'Evals' },
  { key: 'security', label: 'Security' },
  { key: 'bench', label: 'Benchmark', short: 'Bench' },
  { key: 'problems', label: 'Problems' },
];

export interface RankMove {
  text: string;
  tone: 'better' | 'worse' | 'same';
}

const place = (rank: number | null) => (rank === null ? 'not in the top 50' : `#${rank}`);

/** How the open skill's rank for the request moved with the unsaved edits. */
export function rankMove(open: OpenRank): RankMove {
  if (!open.edited || open.saved === open.now) {
    return { text: `${place(open.now)} for this request${open.edited ? ' (your edits do not move it)' : ''}`, tone: 'same' };
  }
  const better = open.now !== null && (open.saved === null || open.now < open.saved);
  return {
    text: `${place(open.saved)} → ${place(open.now)} with your unsaved edits`,
    tone: better ? 'better' : 'worse',
  };
}

export function confidenceLabel(confidence: number, threshold: number): string {
  return confidence >= threshold
    ? `confidence ${confidence.toFixed(3)}: at or above the threshold`
    : `confidence ${confidence.toFixed(3)}: below the threshold ${threshold.toFixed(2)}`;
}

export function fieldLabel(field: RoutingField): string {
  return field === 'when_to_use' ? 'when to use' : field;
}

/** Splits a comma-separated list of skill names, dropping blanks. */
export function splitNames(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
