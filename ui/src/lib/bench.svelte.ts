// The Benchmark tab's state: the library's task suites, the chosen suite
// with its last and kept reports, the arms and runs asked for, the cost
// preview awaiting confirmation, and the run in progress. One instance,
// shared by the tab and the query panel's "+ Task case", so a case added
// there shows in the tab at once.

import * as ipc from './ipc';
import type { BenchChoice, BenchPreview, BenchProgress, BenchReport, Client, RunResult, TaskAgent, TaskSuiteSummary, TaskSuiteView } from './ipc';
import { armSpecs, type ArmChoice } from './bench';
import { Latest } from './latest';

/** The finished runs the progress line lists, newest first. */
const RECENT_RUNS = 6;

/** What the window needs of the app, so tests can stand in for it. */
export interface BenchIpc {
  benchAgents: typeof ipc.benchAgents;
  benchSuites: typeof ipc.benchSuites;
  benchSuite: typeof ipc.benchSuite;
  benchPreview: typeof ipc.benchPreview;
  benchRun: typeof ipc.benchRun;
  benchCancel: typeof ipc.benchCancel;
  benchKeep: typeof ipc.benchKeep;
  benchAddCase: typeof ipc.benchAddCase;
}

export class Benchmark {
  suites = $state.raw<TaskSuiteSummary[]>([]);
  view = $state.raw<TaskSuiteView | null>(null);
  error = $state<string | null>(null);

  arms = $state<ArmChoice>({ with: true, without: true, baseline: '' });
  runs = $state(3);
  /** The agent CLIs Hone knows, and why each cannot run here, if it cannot. */
  agents = $state.raw<TaskAgent[]>([]);
  agent = $state<Client>('claude-code');
  model = $state('');
  scripted = $state(false);
  /** The Anthropic model that judges `llm` graders; empty: they do not apply. */
  judge = $state('');
  /** The most the runs may cost, in US dollars; `null`: no ceiling. */
  maxCost = $state<number | null>(null);

  /** The preview awaiting the author's confirmation. */
  preview = $state.raw<BenchPreview | null>(null);
  previewing = $state(false);
  running = $state(false);
  cancelling = $state(false);
  progress = $state.raw<{ done: number; total: number } | null>(null);
  recent = $state.raw<RunResult[]>([]);

  private readonly loads = new Latest();

  constructor(private readonly app: BenchIpc = ipc) {}

  /** The report shown: this session's last run of the suite. */
  get report(): BenchReport | null {
    return this.view?.last ?? null;
  }

  get choice(): BenchChoice {
    return {
      arms: armSpecs(this.arms),
      runs: this.runs,
      agent: this.agent,
      model: this.model.trim() || null,
      scripted: this.scripted,
      judge: this.judge.trim() || null,
      max_cost_usd: this.maxCost !== null && Number.isFinite(this.maxCost) && this.maxCost >= 0 ? this.maxCost : null,
    };
  }

  /** Why the chosen agent cannot run in the chosen mode, if it cannot. */
  get agentProblem(): string | null {
    const agent = this.agents.find((a) => a.client === this.agent);
    if (!agent) return null;
    return this.scripted ? agent.scripted_problem : agent.live_problem;
  }

  /** Lists the library's suites and keeps the chosen one if it is still there. */
  async refresh(): Promise<void> {
    try {
      [this.suites, this.agents] = await Promise.all([this.app.benchSuites(), this.app.benchAgents()]);
      this.error = null;
    } catch (e) {
      this.suites = [];
      this.error = String(e);
      return;
    }
    const chosen = this.view?.path;
    const next = this.suites.find((s) => s.path === chosen) ?? this.suites.find((s) => !s.error) ?? null;
    if (next) await this.select(next.path);
    else this.view = null;
  }

  async select(path: string): Promise<void> {
    this.preview = null;
    await this.loads.run(
      () => this.app.benchSuite(path),
      (view) => {
        this.view = view;
        this.error = null;
      },
      (e) => {
        this.view = null;
        this.error = String(e);
      },
    );
  }

  /** Asks what the benchmark would run and cost; the run waits for confirmation. */
  async ask(): Promise<void> {
    if (!this.view) return;
    this.previewing = true;
    this.error = null;
    try {
      this.preview = await this.app.benchPreview(this.view.path, this.choice);
    } catch (e) {
      this.error = String(e);
    } finally {
      this.previewing = false;
    }
  }

  /** Runs the confirmed benchmark; the report replaces the suite's last. */
  async run(): Promise<void> {
    const view = this.view;
    if (!view || !this.preview) return;
    this.preview = null;
    this.running = true;
    this.progress = null;
    this.recent = [];
    this.error = null;
    try {
      const report = await this.app.benchRun(view.path, this.choice);
      if (this.view?.path === view.path) this.view = { ...this.view, last: report };
    } catch (e) {
      this.error = String(e);
    } finally {
      this.running = false;
      this.cancelling = false;
    }
  }

  async cancel(): Promise<void> {
    this.cancelling = true;
    await this.app.benchCancel();
  }

  /** A run finished: the count, and its outcome at the head of the recent ones. */
  onProgress(progress: BenchProgress): void {
    this.progress = { done: progress.done, total: progress.total };
    if (progress.last) this.recent = [progress.last, ...this.recent].slice(0, RECENT_RUNS);
  }

  /** Keeps the last report in the library, for later runs to be compared with. */
  async keep(): Promise<void> {
    if (!this.view) return;
    try {
      this.view = await this.app.benchKeep(this.view.path);
    } catch (e) {
      this.error = String(e);
    }
  }

  /**
   * Appends a case asking `prompt` to the suite at `path`. Unless `overwrite`,
   * a file that changed since the tab read it is refused (the answer says
   * so), so the author is asked first.
   */
  async addCase(path: string, prompt: string, overwrite = false): Promise<'added' | 'changed'> {
    const stamp = !overwrite && this.view?.path === path ? this.view.stamp : null;
    try {
      const view = await this.app.benchAddCase(path, { prompt, stamp });
      if (this.view?.path === path || !this.view) this.view = view;
    } catch (e) {
      if (e instanceof ipc.CommandFailure && e.kind === 'conflict') return 'changed';
      throw e;
    }
    this.suites = await this.app.benchSuites();
    return 'added';
  }
}
