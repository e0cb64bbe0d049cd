import { describe, expect, it } from 'vitest';
import type { AgentPreview, CaseReport, Report } from './ipc';
import { agentRows, casePick, casesInCell, costSummary, formatUsd, heatmap, privacyNote } from './agent';

const kase = (query: string, expect: string[] | null, selected: string[], failure: string | null = null, top = selected): CaseReport => ({
  suite: 's',
  line: query.length,
  query,
  kinds: [],
  expect,
  reject: [],
  first_expected_rank: null,
  top: top.map((id) => ({ id, score: 1, confidence: 0.9 })),
  selected,
  passed: failure === null,
  failure,
  latency_ms: 1,
});

const report = (cases: CaseReport[], ranker: Report['ranker'] = 'agent'): Report => ({
  suite: 's',
  library: 'lib',
  ranker,
  threshold: 0.5,
  metrics: {} as Report['metrics'],
  cases,
  confusion: [],
});

describe('confusion heatmap', () => {
  it('aligns the diagonal and puts no skill and errors last', () => {
    const map = heatmap([
      { expected: 'pdf', picked: 'pdf', count: 3 },
      { expected: 'pdf', picked: 'deploy', count: 1 },
      { expected: 'deploy', picked: '(none)', count: 2 },
      { expected: '(none)', picked: 'pdf', count: 1 },
    ]);
    expect(map.rows).toEqual(['deploy', 'pdf', '(none)']);
    expect(map.columns).toEqual(['deploy', 'pdf', '(none)']);
    expect(map.count('pdf', 'pdf')).toBe(3);
    expect(map.count('deploy', 'pdf')).toBe(0);
    expect([map.max, map.total]).toEqual([3, 7]);
    expect(heatmap([]).max).toBe(0);
  });

  it('lists the cases behind a cell, by the engine’s pick rule', () => {
    const cases = [
      kase('fill pdf', ['pdf'], ['pdf']),
      kase('ship pdf', ['deploy'], ['pdf'], 'picked pdf'),
      kase('hello', [], []),
      kase('broken', ['pdf'], [], 'HTTP 500', []),
      kase('nothing', ['pdf'], [], 'no skill matched', []),
      kase('unlabelled', null, ['pdf']),
    ];
    expect(casePick(cases[3])).toBe('(error)');
    expect(casePick(cases[4])).toBe('(none)');
    expect(casesInCell(cases, 'deploy', 'pdf').map((c) => c.query)).toEqual(['ship pdf']);
    expect(casesInCell(cases, '(none)', '(none)').map((c) => c.query)).toEqual(['hello']);
    expect(casesInCell(cases, 'pdf', 'pdf').map((c) => c.query)).toEqual(['fill pdf']);
  });
});

describe('agent column', () => {
  it('sets the agent pick beside the offline pick, and marks cases not run', () => {
    const offline = report([kase('fill pdf', ['pdf'], ['pdf']), kase('ship it', ['deploy'], []), kase('later', ['pdf'], ['pdf'])], 'bm25');
    const agent = report([kase('fill pdf', ['pdf'], ['pdf']), kase('ship it', ['deploy'], ['deploy'])]);
    const rows = agentRows(agent, offline);
    expect(rows.map((r) => [r.offlinePick, r.agentPick, r.agree])).toEqual([
      ['pdf', 'pdf', true],
      ['(none)', 'deploy', false],
      ['pdf', null, null],
    ]);
    expect(agentRows(agent, null).map((r) => r.agentPick)).toEqual(['pdf', 'deploy']);
  });
});

describe('cost preview', () => {
  const preview: AgentPreview = {
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    endpoint: 'https://api.anthropic.com',
    remote: true,
    runs: 3,
    cases: 2,
    estimate: {
      calls: 6,
      cached_answers: 0,
      tokenizer: 'claude',
      listing_tokens: 1200,
      request_tokens: 40,
      output_tokens: 600,
      prompt_caching: false,
      price_entry: 'claude-haiku-4-5',
      usd: 0.0102,
      usd_without_caching: 0.0102,
      caveat: null,
    },
  };

  it('says what is sent where, and what it costs', () => {
    expect(privacyNote(preview)).toContain('sent to anthropic (https://api.anthropic.com)');
    expect(privacyNote({ ...preview, remote: false })).toContain('nothing leaves');
    expect(costSummary(preview)).toBe('6 calls (2 cases × 3 runs, 0 answers from the cache); listing ~1,200 tokens per call, requests ~40 tokens (claude); estimated $0.01.');
    expect(costSummary({ ...preview, remote: false, runs: 1 })).toMatch(/\$0\.$/);
    expect([formatUsd(null), formatUsd(0), formatUsd(0.00123), formatUsd(1.5)]).toEqual(['no price in the table', '$0', '$0.0012', '$1.50']);
  });
});
