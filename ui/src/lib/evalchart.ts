// The geometry of the Evals tab's chart: runs along x, metric values up y.
// Shares (0–1) use the left axis; latencies, in ms, a right axis of their
// own, so one chart can hold P@1 and p50 without flattening either. Pure, so
// the scales and ticks are unit-tested; EvalChart.svelte only draws this.
import { metricInfo, type MetricName } from './evalmetrics';

/** One run on the chart: a named run kept with the library, or a run of this session. */
export interface ChartRun {
  label: string;
  /** Where the run comes from, for its tooltip. */
  title: string;
  values: Partial<Record<MetricName, number | null>>;
  /** The pinned baseline. */
  baseline: boolean;
}

export interface ChartPoint {
  x: number;
  y: number;
  value: number;
  run: number;
}

export interface ChartSeries {
  key: MetricName;
  label: string;
  /** 1-based index into the chart palette (`--series-N`). */
  colour: number;
  axis: 'share' | 'ms';
  points: ChartPoint[];
  /** `x,y x,y …` for a polyline. */
  path: string;
  /** The baseline's value of this metric, as a y, when there is one. */
  baselineY: number | null;
  baselineValue: number | null;
}

export interface Tick {
  y: number;
  label: string;
}

export interface ChartModel {
  width: number;
  height: number;
  /** The plot area inside the axes. */
  plot: { left: number; right: number; top: number; bottom: number };
  runs: { x: number; label: string; title: string; baseline: boolean }[];
  series: ChartSeries[];
  shareTicks: Tick[];
  msTicks: Tick[];
}

export const SERIES_COLOURS = 6;

/** Round upper bounds for a ms axis: 1, 2, 5 × 10^n. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) {
    if (max <= step * magnitude) return step * magnitude;
  }
  return 10 * magnitude;
}

/** 0.25, 2.5, 5, 50: no trailing zeros on an axis. */
const msLabel = (v: number) => String(Number(v.toFixed(2)));

/**
 * Lays out `runs` for the `metrics` chosen. A run lacking a metric (none of
 * its cases measures it) leaves a gap in that line rather than a zero.
 * `baselineValues` draws each metric's baseline as a level line: the pinned
 * run's values, or those of a baseline not on the chart (the saved files).
 */
export function buildChart(
  runs: readonly ChartRun[],
  metrics: readonly MetricName[],
  baselineValues: Partial<Record<MetricName, number | null>> | null,
  size: { width: number; height: number } = { width: 480, height: 180 },
): ChartModel {
  const hasMs = metrics.some((k) => metricInfo(k).latency);
  const plot = { left: 36, right: size.width - (hasMs ? 44 : 12), top: 10, bottom: size.height - 34 };
  const span = plot.bottom - plot.top;
  const msValues = runs.flatMap((r) => metrics.filter((k) => metricInfo(k).latency).map((k) => r.values[k] ?? 0));
  const baselineMs = metrics.filter((k) => metricInfo(k).latency).map((k) => baselineValues?.[k] ?? 0);
  const msMax = niceMax(Math.max(0, ...msValues, ...baselineMs));
  const yOf = (key: MetricName, value: number) => {
    const share = metricInfo(key).latency ? value / msMax : Math.min(Math.max(value, 0), 1);
    return plot.bottom - share * span;
  };
  const xOf = (i: number) =>
    runs.length === 1 ? (plot.left + plot.right) / 2 : plot.left + 12 + (i * (plot.right - plot.left - 24)) / (runs.length - 1);

  const series: ChartSeries[] = metrics.map((key, n) => {
    const points: ChartPoint[] = [];
    runs.forEach((r, i) => {
      const value = r.values[key];
      if (value !== null && value !== undefined) points.push({ x: xOf(i), y: yOf(key, value), value, run: i });
    });
    const baselineValue = baselineValues?.[key] ?? null;
    return {
      key,
      label: metricInfo(key).label,
      colour: (n % SERIES_COLOURS) + 1,
      axis: metricInfo(key).latency ? 'ms' : 'share',
      points,
      path: points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' '),
      baselineY: baselineValue === null ? null : yOf(key, baselineValue),
      baselineValue,
    };
  });
  const shareTicks = [0, 0.25, 0.5, 0.75, 1].map((v) => ({ y: plot.bottom - v * span, label: v.toFixed(2) }));
  const msTicks = hasMs ? [0, 0.5, 1].map((f) => ({ y: plot.bottom - f * span, label: `${msLabel(f * msMax)} ms` })) : [];
  return {
    width: size.width,
    height: size.height,
    plot,
    runs: runs.map((r, i) => ({ x: xOf(i), label: r.label, title: r.title, baseline: r.baseline })),
    series,
    shareTicks,
    msTicks,
  };
}
