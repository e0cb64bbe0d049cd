import { describe, expect, it } from 'vitest';
import type { ArmSummary, BenchChoice, BenchPreview, BenchReport, Lift, RunResult, TaskSuiteView } from './ipc';
import { CommandFailure } from './ipc';
import { armSpecs, compareReports, costText, liftChart, notLoadedNotes, sideBySide, signed, verdictText } from './bench';
import { Benchmark, type BenchIpc } from './bench.svelte';

function arm(label: string, pass_rate: number | null, extra: Partial<ArmSummary> = {}): ArmSummary {
  return {
    label,
    runs: 4,
    passed: 0,
    measured: 4,
    not_loaded: 0,
    ungraded: 0,
    errors: 0,
    pass_rate,
    interval: { low: 0, high: 1 },
    pass_at_k: null,
    pass_hat_k: null,
    k: 2,
    input_tokens: 0,
    output_tokens: 0,
    mean_seconds: 1,
    cost_usd: 0,
    ...extra,
  };
}

function lift(mean: number, low: number, high: number, verdict: Lift['verdict'] = 'helps', runs_to_tell: number | null = null): Lift {
  return { mean, interval: { low, high }, verdict, runs_to_tell, cases: 2 };
}

function run(caseName: string, armLabel: string, n: number, outcome: RunResult['outcome'] = 'passed'): RunResult {
  return {
    case: caseName,
    arm: armLabel,
    run: n,
    outcome,
    graded: [],
    transcript: { tool_calls: [], final_reply: 'done', skills_loaded: [], usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 }, cost_usd: null, turns: 1, finished: true },
    files: [],
    seconds: 1,
    cost_usd: 0,
    status: '',
    cached: false,
  };
}

function report(arms: ArmSummary[], l: Lift | null, runs: RunResult[] = []): BenchReport {
  return { suite: 'greet', skill: 'greet', agent: 'claude-code', agent_version: '2', model: null, scripted: true, arms, lift: l, lift_per_dollar: null, cases: [], runs, stopped: null, notes: [] };
}

describe('the arms asked for', () => {
  it('lists with, without and the git revision in that order', () => {
    expect(armSpecs({ with: true, without: true, baseline: ' HEAD~1 ' })).toEqual(['with', 'without', 'git:HEAD~1']);
    expect(armSpecs({ with: false, without: true, baseline: '' })).toEqual(['without']);
  });
});

describe('the report in words', () => {
  it('says the verdict as hone bench does', () => {
    expect(verdictText(lift(0.5, 0.2, 0.8))).toBe('The skill helps');
    expect(verdictText(lift(-0.5, -0.8, -0.2, 'hurts'))).toBe('The skill hurts');
    expect(verdictText(lift(0.1, -0.2, 0.4, 'cant-tell-yet', 12))).toBe("Can't tell yet: about 12 runs per arm and case would tell");
    expect(verdictText(lift(0, -0.2, 0.2, 'cant-tell-yet'))).toBe("Can't tell yet: no difference seen");
    expect([signed(0.5), signed(-0.25)]).toEqual(['+0.50', '−0.25']);
  });

  it('sets runs where the skill did not load apart', () => {
    expect(notLoadedNotes([arm('with', 1, { not_loaded: 2 }), arm('without', 0)])).toEqual([
      '2 of 4 runs of “with”: the skill did not load',
    ]);
  });

  it('prices the runs still to make', () => {
    const preview: BenchPreview = {
      cost: { runs: 8, cached: 2, input_tokens: 12000, output_tokens: 800, usd: 0, model: 'claude-opus-5-5', basis: '' },
      cases: 2,
      arms: ['with', 'without'],
      skill: 'greet',
      agent: 'Claude Code 2',
      destination: '',
      isolation: null,
      judge: null,
      over_ceiling: null,
    };
    expect(costText(preview)).toBe('8 runs (2 cases × 2 arms × runs), 2 from the cache: about 12,000 input and 800 output tokens for the 6 to make, $0.00 on claude-opus-5-5');
    expect(costText({ ...preview, cost: { ...preview.cost, usd: null, cached: 0 } })).toContain('an unknown amount (no price for claude-opus-5-5)');
  });
});

describe('the lift chart', () => {
  it('places the mean and the interval on an axis from −1 to +1, zero in the middle', () => {
    const chart = liftChart([{ label: 'This run', lift: lift(0.5, 0, 1) }]);
    const left = 64;
    const right = chart.width - 12;
    expect(chart.zero).toBe((left + right) / 2);
    expect(chart.marks[0].low).toBe(chart.zero);
    expect(chart.marks[0].high).toBe(right);
    expect(chart.marks[0].x).toBe((chart.zero + right) / 2);
    expect(chart.ticks.map((t) => t.label)).toEqual(['−1', '−0.5', '0', '+0.5', '+1']);
    // Out-of-range values stay on the axis.
    expect(liftChart([{ label: 'x', lift: lift(0, -3, 3) }]).marks[0].low).toBe(left);
  });
});

describe('the comparison with a kept report', () => {
  it('gives the lift and each arm before and after, with the change', () => {
    const kept = report([arm('with', 0.5), arm('without', 0.5)], lift(0, -0.3, 0.3, 'cant-tell-yet'));
    const now = report([arm('with', 1), arm('without', 0.5), arm('git:HEAD~1', 0.75)], lift(0.5, 0.2, 0.8));
    expect(compareReports(kept, now)).toEqual([
      { label: 'Lift', before: '+0.00', after: '+0.50', change: 0.5 },
      { label: 'Pass rate “with”', before: '50%', after: '100%', change: 0.5 },
      { label: 'Pass rate “without”', before: '50%', after: '50%', change: 0 },
      { label: 'Pass rate “git:HEAD~1”', before: '—', after: '75%', change: null },
    ]);
  });
});

describe('a case side by side', () => {
  it('pairs each run number with every arm, a missing run as none', () => {
    const r = report([arm('with', 1), arm('without', 0)], null, [run('a', 'with', 0), run('a', 'without', 0, 'failed'), run('a', 'with', 1), run('b', 'with', 0)]);
    const rows = sideBySide(r, 'a');
    expect(rows.map((row) => [row.run, row.arms.map((x) => x?.outcome ?? null)])).toEqual([
      [0, ['passed', 'failed']],
      [1, ['passed', null]],
    ]);
  });
});

describe('Benchmark', () => {
  const view = (path: string, stamp = { hash: 'h1', len: 1 }): TaskSuiteView => ({
    path,
    label: path,
    suite: { name: 'greet', skill: null, cases: [], notes: [] },
    skill: 'greet',
    skill_problem: null,
    stamp,
    editable: true,
    last: null,
    kept: null,
  });

  function fake(overrides: Partial<BenchIpc> = {}): BenchIpc {
    return {
      benchAgents: async () => [
        { client: 'claude-code', name: 'Claude Code', version: '2.1.328', live_problem: null, scripted_problem: null },
        { client: 'codex', name: 'Codex CLI', version: '0.171.0', live_problem: 'Codex CLI runs only with --scripted for now', scripted_problem: null },
      ],
      benchSuites: async () => [{ path: '/lib/evals/tasks/a.yaml', label: 'evals/tasks/a.yaml', name: 'a', cases: 0, error: null, editable: true }],
      benchSuite: async (path) => view(path),
      benchPreview: async () => {
        throw new Error('unused');
      },
      benchRun: async () => report([arm('with', 1), arm('without', 0)], lift(1, 1, 1)),
      benchCancel: async () => true,
      benchKeep: async (path) => view(path),
      benchAddCase: async (path) => view(path, { hash: 'h2', len: 2 }),
      ...overrides,
    };
  }

  it('chooses the first readable suite and runs only a confirmed preview', async () => {
    let ran = 0;
    const bench = new Benchmark(fake({ benchRun: async () => (ran++, report([], null)) }));
    await bench.refresh();
    expect(bench.view?.path).toBe('/lib/evals/tasks/a.yaml');
    await bench.run();
    expect(ran).toBe(0);
  });

  it('shows the progress of a run, newest outcome first, and keeps its report', async () => {
    const bench = new Benchmark(fake({ benchPreview: async () => ({ cost: { runs: 2, cached: 0, input_tokens: 0, output_tokens: 0, usd: 0, model: 'm', basis: '' }, cases: 1, arms: ['with', 'without'], skill: 'greet', agent: 'Claude Code', destination: '', isolation: null, judge: null, over_ceiling: null }) }));
    await bench.refresh();
    await bench.ask();
    expect(bench.preview?.cost.runs).toBe(2);
    bench.onProgress({ done: 1, total: 2, last: run('a', 'with', 0) });
    bench.onProgress({ done: 2, total: 2, last: run('a', 'without', 0, 'failed') });
    expect(bench.recent.map((r) => r.arm)).toEqual(['without', 'with']);
    expect(bench.progress).toEqual({ done: 2, total: 2 });
    await bench.run();
    expect([bench.running, bench.preview, bench.report?.lift?.mean]).toEqual([false, null, 1]);
  });

  it('sends the chosen agent, judge and ceiling, and says why an agent cannot run', async () => {
    const choices: BenchChoice[] = [];
    const bench = new Benchmark(
      fake({
        benchPreview: async (_path, choice) => {
          choices.push(choice);
          throw new Error('unused');
        },
      }),
    );
    await bench.refresh();
    bench.agent = 'codex';
    expect(bench.agentProblem).toContain('only with --scripted');
    bench.scripted = true;
    expect(bench.agentProblem).toBeNull();
    bench.judge = ' claude-haiku-4-5 ';
    bench.maxCost = 2.5;
    await bench.ask();
    expect(choices[0]).toMatchObject({ agent: 'codex', scripted: true, judge: 'claude-haiku-4-5', max_cost_usd: 2.5 });
    bench.judge = '';
    bench.maxCost = null;
    await bench.ask();
    expect(choices[1]).toMatchObject({ judge: null, max_cost_usd: null });
  });

  it('sends the stamp it read when adding a case, and reports a file changed since', async () => {
    const stamps: unknown[] = [];
    const bench = new Benchmark(
      fake({
        benchAddCase: async (path, request) => {
          stamps.push(request.stamp);
          if (request.stamp) throw new CommandFailure({ kind: 'conflict', message: 'changed on disk', position: null });
          return view(path, { hash: 'h2', len: 2 });
        },
      }),
    );
    await bench.refresh();
    expect(await bench.addCase('/lib/evals/tasks/a.yaml', 'Greet Ada')).toBe('changed');
    expect(await bench.addCase('/lib/evals/tasks/a.yaml', 'Greet Ada', true)).toBe('added');
    expect(stamps).toEqual([{ hash: 'h1', len: 1 }, null]);
    expect(bench.view?.stamp).toEqual({ hash: 'h2', len: 2 });
  });
});
