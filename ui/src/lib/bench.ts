// The Benchmark tab's wording and arithmetic on the engine's report: which
// arms to ask for, the verdict in words, the lift chart's geometry, the
// comparison with a kept report, and the runs of a case side by side. Every
// figure is the engine's (hone_core::bench); these only arrange it.

import type { ArmSummary, BenchPreview, BenchReport, Lift, Outcome, RunResult } from './ipc';
import { scale } from './charts';

/** The arms the author chose: with and without the skill, and an earlier version from git. */
export interface ArmChoice {
  with: boolean;
  without: boolean;
  /** A git revision (`HEAD~1`), empty for none. */
  baseline: string;
}

/** The arm specs `bench_run` reads, in the report's order. */
export function armSpecs(choice: ArmChoice): string[] {
  const specs: string[] = [];
  if (choice.with) specs.push('with');
  if (choice.without) specs.push('without');
  const rev = choice.baseline.trim();
  if (rev) specs.push(`git:${rev}`);
  return specs;
}

export const OUTCOME_LABELS: Record<Outcome, string> = {
  passed: 'pass',
  failed: 'fail',
  'not-loaded': 'skill not loaded',
  ungraded: 'no grader applied',
  error: 'error',
};

export function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined || !Number.isFinite(rate) ? '—' : `${Math.round(rate * 100)}%`;
}

/** A lift in points, signed: `+0.50`. */
export function signed(value: number): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)}`;
}

/** What the lift says, as `hone bench` words it. */
export function verdictText(lift: Lift): string {
  switch (lift.verdict) {
    case 'helps':
      return 'The skill helps';
    case 'hurts':
      return 'The skill hurts';
    case 'cant-tell-yet':
      return lift.runs_to_tell === null
        ? "Can't tell yet: no difference seen"
        : `Can't tell yet: about ${lift.runs_to_tell} runs per arm and case would tell`;
  }
}

/** `2 of 4 runs of “with”: the skill did not load`, per arm that had such runs. */
export function notLoadedNotes(arms: readonly ArmSummary[]): string[] {
  return arms
    .filter((a) => a.not_loaded > 0)
    .map((a) => `${a.not_loaded} of ${a.runs} runs of “${a.label}”: the skill did not load`);
}

/** The run's cost line: how many runs, how many cached, tokens and dollars. */
export function costText(preview: BenchPreview): string {
  const c = preview.cost;
  const usd = c.usd === null ? `an unknown amount (no price for ${c.model})` : `$${c.usd.toFixed(2)}`;
  const fresh = c.runs - c.cached;
  return `${c.runs} runs (${preview.cases} cases × ${preview.arms.length} arms × runs)${c.cached ? `, ${c.cached} from the cache` : ''}: about ${c.input_tokens.toLocaleString('en')} input and ${c.output_tokens.toLocaleString('en')} output tokens for the ${fresh} to make, ${usd} on ${c.model}`;
}

/** One lift on the chart: a point at the mean and a bar over the interval. */
export interface LiftMark {
  label: string;
  x: number;
  low: number;
  high: number;
  y: number;
}

export interface LiftChart {
  width: number;
  height: number;
  /** Where lift 0 is. */
  zero: number;
  ticks: { x: number; label: string }[];
  marks: LiftMark[];
}

const CHART = { width: 320, row: 22, top: 6, bottom: 18, left: 64, right: 12 };

/** The lift of each report on a shared axis from −1 to +1 (pass-rate points). */
export function liftChart(lifts: readonly { label: string; lift: Lift }[]): LiftChart {
  const { width, row, top, bottom, left, right } = CHART;
  const at = scale(2, left, width - right);
  const x = (value: number) => at(Math.min(1, Math.max(-1, value)) + 1);
  return {
    width,
    height: top + row * lifts.length + bottom,
    zero: x(0),
    ticks: [-1, -0.5, 0, 0.5, 1].map((v) => ({ x: x(v), label: v === 0 ? '0' : `${v > 0 ? '+' : '−'}${Math.abs(v)}` })),
    marks: lifts.map(({ label, lift }, i) => ({
      label,
      x: x(lift.mean),
      low: x(lift.interval.low),
      high: x(lift.interval.high),
      y: top + row * i + row / 2,
    })),
  };
}

/** One line of the comparison with a kept report. */
export interface ComparedRow {
  label: string;
  before: string;
  after: string;
  /** The change in points, when both sides have a figure. */
  change: number | null;
}

/** The lift and each arm's pass rate, kept report against the new one. */
export function compareReports(kept: BenchReport, now: BenchReport): ComparedRow[] {
  const change = (a: number | null | undefined, b: number | null | undefined) =>
    a === null || a === undefined || b === null || b === undefined ? null : b - a;
  const rows: ComparedRow[] = [
    {
      label: 'Lift',
      before: kept.lift ? signed(kept.lift.mean) : '—',
      after: now.lift ? signed(now.lift.mean) : '—',
      change: change(kept.lift?.mean, now.lift?.mean),
    },
  ];
  const labels = [...new Set([...kept.arms, ...now.arms].map((a) => a.label))];
  for (const label of labels) {
    const before = kept.arms.find((a) => a.label === label)?.pass_rate;
    const after = now.arms.find((a) => a.label === label)?.pass_rate;
    rows.push({ label: `Pass rate “${label}”`, before: percent(before), after: percent(after), change: change(before, after) });
  }
  return rows;
}

/** The runs of one case: for each run number, each arm's run (or none yet), in the report's arm order. */
export function sideBySide(report: BenchReport, caseName: string): { run: number; arms: (RunResult | null)[] }[] {
  const mine = report.runs.filter((r) => r.case === caseName);
  const numbers = [...new Set(mine.map((r) => r.run))].sort((a, b) => a - b);
  return numbers.map((run) => ({
    run,
    arms: report.arms.map((a) => mine.find((r) => r.run === run && r.arm === a.label) ?? null),
  }));
}
