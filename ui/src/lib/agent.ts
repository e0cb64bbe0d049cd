// The agent ranker's views, as pure functions: the confusion heatmap's grid
// and the cases behind a cell, the "agent picked" column beside the offline
// pick, and what the cost preview says. The numbers are the engine's
// (hone_core::eval, hone_core::agent); this only arranges them.

import type { AgentPreview, CaseReport, ConfusionCell, Report } from './ipc';

/** The name a confusion cell uses for "no skill" (hone_core::eval::NO_SKILL). */
export const NO_SKILL = '(none)';
/** The name a confusion cell uses for a case the ranker failed on (hone_core::eval::RANKER_ERROR). */
export const RANKER_ERROR = '(error)';
/** The failure of a positive case with no match at all, told apart from a ranker error. */
const NO_MATCH = 'no skill matched';

/** A case's pick as the confusion table names it (mirrors CaseReport::pick). */
export function casePick(c: CaseReport): string {
  if (c.top.length === 0 && c.failure !== null && c.failure !== NO_MATCH) return RANKER_ERROR;
  return c.selected[0] ?? NO_SKILL;
}

/** The row a case counts in: its first expected skill, `(none)` for a negative case, null when it expects nothing. */
export function caseExpected(c: CaseReport): string | null {
  if (c.expect === null) return null;
  return c.expect[0] ?? NO_SKILL;
}

export interface Heatmap {
  rows: string[];
  columns: string[];
  count: (expected: string, picked: string) => number;
  max: number;
  total: number;
}

/** Skills first, by name; then "no skill" and "error". */
function byName(a: string, b: string): number {
  const special = (s: string) => (s === NO_SKILL ? 1 : s === RANKER_ERROR ? 2 : 0);
  return special(a) - special(b) || a.localeCompare(b);
}

/** The grid of a confusion table: expected skills down, picked skills across, the diagonal aligned. */
export function heatmap(cells: ConfusionCell[]): Heatmap {
  const rows = [...new Set(cells.map((c) => c.expected))].sort(byName);
  const picked = new Set(cells.map((c) => c.picked));
  // Columns in the rows' order where they are picked too, so right answers run down the diagonal.
  const columns = [...rows.filter((r) => picked.has(r)), ...[...picked].filter((p) => !rows.includes(p)).sort(byName)];
  const counts = new Map(cells.map((c) => [`${c.expected}\u0000${c.picked}`, c.count]));
  return {
    rows,
    columns,
    count: (expected, picked) => counts.get(`${expected}\u0000${picked}`) ?? 0,
    max: Math.max(0, ...cells.map((c) => c.count)),
    total: cells.reduce((sum, c) => sum + c.count, 0),
  };
}

/** The cases behind one cell of the heatmap. */
export function casesInCell(cases: CaseReport[], expected: string, picked: string): CaseReport[] {
  return cases.filter((c) => caseExpected(c) === expected && casePick(c) === picked);
}

export interface AgentRow {
  query: string;
  expected: string | null;
  offlinePick: string | null;
  /** Null when the run stopped before this case. */
  agentPick: string | null;
  agentPassed: boolean | null;
  /** Whether both picked the same skill (or both none); null when either did not run. */
  agree: boolean | null;
}

const caseKey = (c: CaseReport) => `${c.suite}\u0000${c.line}\u0000${c.query}`;

/** One row per case: the offline pick and the agent's, matched as the engine's agreement matches them. */
export function agentRows(agent: Report, offline: Report | null): AgentRow[] {
  const byKey = new Map(agent.cases.map((c) => [caseKey(c), c]));
  const base = offline?.cases ?? agent.cases;
  return base.map((c) => {
    const a = byKey.get(caseKey(c)) ?? null;
    const offlinePick = offline ? casePick(c) : null;
    const agentPick = a ? casePick(a) : null;
    return {
      query: c.query,
      expected: caseExpected(c),
      offlinePick,
      agentPick,
      agentPassed: a ? a.passed : null,
      agree: offlinePick !== null && agentPick !== null ? offlinePick === agentPick : null,
    };
  });
}

/** Dollars as an author reads them: cents for sums, more digits for fractions of a cent. */
export function formatUsd(usd: number | null): string {
  if (usd === null) return 'no price in the table';
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** What leaves the machine, said plainly. */
export function privacyNote(preview: Pick<AgentPreview, 'remote' | 'provider' | 'endpoint'>): string {
  if (!preview.remote) return 'Runs on this machine: nothing leaves it, and it costs $0.';
  return `The library's listing and every request are sent to ${preview.provider} (${preview.endpoint}).`;
}

/** The cost preview in one sentence. */
export function costSummary(preview: AgentPreview): string {
  const e = preview.estimate;
  const calls = `${e.calls} call${e.calls === 1 ? '' : 's'} (${preview.cases} case${preview.cases === 1 ? '' : 's'} × ${preview.runs} run${preview.runs === 1 ? '' : 's'}, ${e.cached_answers} answer${e.cached_answers === 1 ? '' : 's'} from the cache)`;
  const tokens = `listing ~${e.listing_tokens.toLocaleString('en')} tokens per call, requests ~${e.request_tokens.toLocaleString('en')} tokens (${e.tokenizer})`;
  const price = preview.remote ? `estimated ${formatUsd(e.usd)}${e.prompt_caching && e.usd_without_caching !== null ? ` (${formatUsd(e.usd_without_caching)} without prompt caching)` : ''}` : '$0';
  return `${calls}; ${tokens}; ${price}.`;
}
