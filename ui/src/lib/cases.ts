// Eval cases as the panel lists them: the skill names they use, which of
// those the library lacks, and which rows "Failures only" keeps.

import type { Case, CaseReport, Comparison } from './ipc';

/** Every skill name a case uses (expected and rejected). */
export function caseNames(c: Case): string[] {
  return [...(c.expect ?? []), ...c.reject];
}

/** For each case that uses names in `unknown`, those names, by case index. */
export function unknownByCase(cases: Case[], unknown: ReadonlySet<string>): Map<number, string[]> {
  const found = new Map<number, string[]>();
  cases.forEach((c, i) => {
    const names = caseNames(c).filter((n) => unknown.has(n));
    if (names.length) found.set(i, names);
  });
  return found;
}

/**
 * Whether "Failures only" shows a case: one that failed in the last run, and
 * one the last run has no result for (just added or edited), which has not
 * passed yet either.
 */
export function shownInFailuresOnly(result: Pick<CaseReport, 'passed'> | null): boolean {
  return result === null || !result.passed;
}

/**
 * The last run's result for case `index`: by position while the suite is as
 * it was run, else the result of a case with the same request and names (a
 * case added, removed or edited since has none).
 */
export function resultFor(results: readonly CaseReport[], index: number, c: Case, suiteChanged: boolean): CaseReport | null {
  if (!suiteChanged) return results[index] ?? null;
  const same = (a: readonly string[] | null, b: readonly string[] | null) => JSON.stringify(a) === JSON.stringify(b);
  return results.find((r) => r.query === c.query && same(r.expect, c.expect) && same(r.reject, c.reject)) ?? null;
}

/** How the last run changed case `query` against the run before: improved (↑), regressed (↓) or neither. */
export function changeOf(comparison: Pick<Comparison, 'improved' | 'regressed'> | null, query: string): 'improved' | 'regressed' | null {
  if (!comparison) return null;
  if (comparison.improved.some((c) => c.query === query)) return 'improved';
  if (comparison.regressed.some((c) => c.query === query)) return 'regressed';
  return null;
}
