// What each eval metric counts, in words an author reads on the card, and
// how a change of one reads against a baseline. The numbers themselves are
// the engine's (hone_core::eval::report); this module only words them.
import type { CaseReport, Comparison, MetricValues } from './ipc';

export type MetricName = Exclude<keyof MetricValues, 'cases' | 'positive_cases' | 'negative_cases'>;

export interface MetricInfo {
  key: MetricName;
  /** The card's and the chart's name. */
  label: string;
  /** A visible line under the value: what is counted, over which cases. */
  counts: string;
  /** The full definition, for the tooltip. */
  explain: string;
  /** Timed in ms rather than a share of cases. */
  latency: boolean;
  lowerIsBetter: boolean;
}

/** Every metric of a report, in the engine's order (METRIC_NAMES). */
export const METRICS: readonly MetricInfo[] = [
  {
    key: 'p_at_1',
    label: 'P@1',
    counts: 'top pick is an expected skill',
    explain: 'Precision at 1: the share of positive cases whose top-ranked skill is one they expect.',
    latency: false,
    lowerIsBetter: false,
  },
  {
    key: 'p_at_3',
    label: 'P@3',
    counts: 'expected skills in the top 3, ÷ 3',
    explain: 'Precision at 3: expected skills among the top 3, divided by 3, averaged over positive cases. A case expecting one skill scores at most 1/3.',
    latency: false,
    lowerIsBetter: false,
  },
  {
    key: 'recall_at_3',
    label: 'Recall@3',
    counts: 'expected skills found in the top 3',
    explain: 'Recall at 3: expected skills among the top 3, divided by the number the case expects, averaged over positive cases.',
    latency: false,
    lowerIsBetter: false,
  },
  {
    key: 'hit_at_3',
    label: 'Hit@3',
    counts: 'an expected skill in the top 3',
    explain: 'The share of positive cases with at least one expected skill among the top 3.',
    latency: false,
    lowerIsBetter: false,
  },
  {
    key: 'hit_at_5',
    label: 'Hit@5',
    counts: 'an expected skill in the top 5',
    explain: 'The share of positive cases with at least one expected skill among the top 5.',
    latency: false,
    lowerIsBetter: false,
  },
  {
    key: 'mrr',
    label: 'MRR',
    counts: '1 / rank of the first expected skill',
    explain: 'Mean reciprocal rank: 1 / the rank of the first expected skill in the top 10 (0 when absent), averaged over positive cases.',
    latency: false,
    lowerIsBetter: false,
  },
  {
    key: 'accuracy',
    label: 'Accuracy',
    counts: 'the routing decision is right',
    explain: 'Over all cases: for a positive case the top match is expected and above the threshold; for a negative case nothing is selected.',
    latency: false,
    lowerIsBetter: false,
  },
  {
    key: 'false_positive_rate',
    label: 'False positives',
    counts: 'a skill selected where none (or not it) should be',
    explain: 'Over negative cases and cases with `reject`: the share where a skill is selected for a negative, or a rejected skill is selected.',
    latency: false,
    lowerIsBetter: true,
  },
  {
    key: 'latency_ms_p50',
    label: 'Latency p50',
    counts: 'median time of one ranking',
    explain: 'The median time the ranker took for one case of the run. Changes smaller than the runs’ own case-to-case spread are shown as noise.',
    latency: true,
    lowerIsBetter: true,
  },
  {
    key: 'latency_ms_p99',
    label: 'Latency p99',
    counts: 'slowest 1 % of rankings',
    explain: 'The 99th-percentile time of one ranking in the run (nearest rank).',
    latency: true,
    lowerIsBetter: true,
  },
];

/** The cards the Evals tab shows, in order. */
export const CARD_METRICS: readonly MetricName[] = ['p_at_1', 'p_at_3', 'recall_at_3', 'mrr', 'accuracy', 'false_positive_rate', 'latency_ms_p50'];

/** The metrics a chart starts with. */
export const DEFAULT_CHART_METRICS: readonly MetricName[] = ['p_at_1', 'mrr'];

export function metricInfo(key: MetricName): MetricInfo {
  return METRICS.find((m) => m.key === key)!;
}

export function formatValue(key: MetricName, value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (metricInfo(key).latency) return `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
  return value.toFixed(3);
}

/**
 * The highest P@3 the suite allows: a case expecting k skills can put at
 * most min(k, 3) of them in the top 3, so P@3 tops out at the mean of
 * min(k, 3) / 3 over positive cases (1/3 when every case expects one skill).
 * `single` says whether every positive case expects exactly one.
 */
export function p3Ceiling(cases: Pick<CaseReport, 'expect'>[]): { value: number; single: boolean } | null {
  const expected = cases.map((c) => c.expect?.length ?? 0).filter((k) => k > 0);
  if (!expected.length) return null;
  const value = expected.reduce((sum, k) => sum + Math.min(k, 3) / 3, 0) / expected.length;
  return { value, single: expected.every((k) => k === 1) };
}

export type Tone = 'better' | 'worse' | 'same' | 'noise';

export interface DeltaText {
  text: string;
  tone: Tone;
}

/**
 * How a metric moved against the baseline, or null when either run lacks
 * it. A latency change within the runs' noise band (the engine's
 * `latency_noise_ms`) reads as noise, neither better nor worse.
 */
export function describeDelta(key: MetricName, comparison: Comparison | null): DeltaText | null {
  const delta = comparison?.metrics[key]?.delta;
  if (delta === null || delta === undefined) return null;
  const info = metricInfo(key);
  const signed = (digits: number) => `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta).toFixed(digits)}`;
  if (info.latency) {
    const noise = key === 'latency_ms_p50' ? comparison?.latency_noise_ms : null;
    const text = `${signed(2)} ms`;
    if (noise !== null && noise !== undefined && Math.abs(delta) <= noise) {
      return { text: `${text}, within noise (±${noise.toFixed(2)} ms)`, tone: 'noise' };
    }
    if (Math.abs(delta) < 1e-9) return { text, tone: 'same' };
    return { text, tone: delta < 0 ? 'better' : 'worse' };
  }
  if (Math.abs(delta) < 5e-4) return { text: '±0.000', tone: 'same' };
  const better = info.lowerIsBetter ? delta < 0 : delta > 0;
  return { text: signed(3), tone: better ? 'better' : 'worse' };
}
