// Wording and formatting for the test-query and eval panels. Pure functions,
// so they are unit-tested; every number they format comes from the engine.
import type { Comparison, OpenRank, RoutingField } from './ipc';

/** The tabs of the right-hand pane. */
export type InspectorTab = 'preview' | 'costs' | 'clients' | 'query' | 'evals' | 'problems';

/** The tabs in their order, with their labels. */
export const INSPECTOR_TABS: readonly { key: InspectorTab; label: string }[] = [
  { key: 'preview', label: 'Preview' },
  { key: 'costs', label: 'Costs' },
  { key: 'clients', label: 'Clients' },
  { key: 'query', label: 'Query' },
  { key: 'evals', label: 'Evals' },
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

/** The metrics the eval cards show, in order: key, label, unit, whether lower is better. */
export const METRIC_CARDS = [
  { key: 'p_at_1', label: 'P@1', percent: true, lowerIsBetter: false },
  { key: 'p_at_3', label: 'P@3', percent: true, lowerIsBetter: false },
  { key: 'recall_at_3', label: 'Recall@3', percent: true, lowerIsBetter: false },
  { key: 'mrr', label: 'MRR', percent: false, lowerIsBetter: false },
  { key: 'false_positive_rate', label: 'False positives', percent: true, lowerIsBetter: true },
  { key: 'latency_ms_p50', label: 'Latency p50', percent: false, lowerIsBetter: true },
] as const;

export type MetricKey = (typeof METRIC_CARDS)[number]['key'];

export function formatMetric(key: MetricKey, value: number | null): string {
  if (value === null || value === undefined) return '—';
  if (key.startsWith('latency')) return `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
  return value.toFixed(3);
}

/** The change since the previous run, signed, or null when there is none. */
export function metricDelta(comparison: Comparison | null, key: MetricKey): { text: string; good: boolean } | null {
  const delta = comparison?.metrics[key]?.delta;
  if (delta === null || delta === undefined) return null;
  const card = METRIC_CARDS.find((c) => c.key === key)!;
  if (Math.abs(delta) < 1e-9) return { text: '±0', good: true };
  const text = key.startsWith('latency') ? `${delta > 0 ? '+' : ''}${delta.toFixed(2)} ms` : `${delta > 0 ? '+' : ''}${delta.toFixed(3)}`;
  return { text, good: card.lowerIsBetter ? delta < 0 : delta > 0 };
}

/** Splits a comma-separated list of skill names, dropping blanks. */
export function splitNames(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
