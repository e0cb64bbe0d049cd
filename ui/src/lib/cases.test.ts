import { describe, expect, it } from 'vitest';
import type { Case, CaseReport } from './ipc';
import { caseNames, changeOf, resultFor, shownInFailuresOnly, unknownByCase } from './cases';

const kase = (query: string, expect: string[] | null, reject: string[] = []): Case => ({ query, expect, reject, kinds: [], line: 0 });
const report = (query: string, expect: string[] | null, passed: boolean): CaseReport => ({
  suite: 's',
  line: 1,
  query,
  kinds: [],
  expect,
  reject: [],
  first_expected_rank: null,
  top: [],
  selected: [],
  passed,
  failure: passed ? null : 'missed',
  latency_ms: 1,
});

describe('eval cases', () => {
  it('lists the names of a case and finds the unknown ones', () => {
    const cases = [kase('a', ['x'], ['y']), kase('b', []), kase('c', ['gone'])];
    expect(caseNames(cases[0])).toEqual(['x', 'y']);
    expect([...unknownByCase(cases, new Set(['gone', 'y']))]).toEqual([
      [0, ['y']],
      [2, ['gone']],
    ]);
  });

  it('keeps cases without a result under "Failures only"', () => {
    expect(shownInFailuresOnly(null)).toBe(true);
    expect(shownInFailuresOnly({ passed: false })).toBe(true);
    expect(shownInFailuresOnly({ passed: true })).toBe(false);
  });

  it('matches results by request once the suite changed', () => {
    const results = [report('a', ['x'], true), report('b', ['y'], false)];
    expect(resultFor(results, 0, kase('a', ['x']), false)?.query).toBe('a');
    // A case added at the top shifts the others: matched by request instead.
    expect(resultFor(results, 1, kase('a', ['x']), true)?.passed).toBe(true);
    expect(resultFor(results, 0, kase('new', ['x']), true)).toBeNull();
    // An edited case has no result yet.
    expect(resultFor(results, 1, kase('b', ['z']), true)).toBeNull();
  });
});

describe('changeOf', () => {
  const change = (query: string) => ({ suite: 's', query, old_passed: false, new_passed: true, old_rank: null, new_rank: 1 });
  it('marks a case improved or regressed since the previous run', () => {
    const comparison = { improved: [change('a')], regressed: [change('b')] };
    expect(changeOf(comparison, 'a')).toBe('improved');
    expect(changeOf(comparison, 'b')).toBe('regressed');
    expect(changeOf(comparison, 'c')).toBeNull();
    expect(changeOf(null, 'a')).toBeNull();
  });
});
