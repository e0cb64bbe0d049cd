// The ranker, threshold and request the test-query and eval panels share: a
// small store, so the rule "a ranker comes with its own threshold" lives in
// one place (and is tested) instead of in the window's components.

import type { Client, RankerKind, RankerStatus } from './ipc';

export class RoutingChoice {
  /** The rankers and whether each can run here, with its default threshold. */
  statuses = $state.raw<RankerStatus[]>([]);
  ranker = $state<RankerKind>('bm25');
  threshold = $state(0.5);
  /** The threshold is the ranker's own: eval runs then pass none, as `hone eval` does. */
  thresholdIsDefault = $state(true);
  /** The client whose own skills compete beside the library's (null: the library alone). */
  builtins = $state<Client | null>(null);
  /** The request being tried in the test-query panel (an eval case can load its own). */
  query = $state('');
  /** The skill the "why it lost" view explains (null: the open skill) and the one it is set against (null: the top match). */
  why = $state<{ expected: string | null; against: string | null; open: boolean }>({ expected: null, against: null, open: false });

  /** Opens the "why it lost" view for `query`: `expected` against `against` (the top match when null). */
  explain(query: string, expected: string | null, against: string | null = null): void {
    this.query = query;
    this.why = { expected, against, open: true };
  }

  /** Takes the rankers available here; hybrid is the default wherever its model is installed. */
  setStatuses(statuses: RankerStatus[]): void {
    this.statuses = statuses;
    this.choose(statuses.find((s) => s.kind === 'hybrid')?.available ? 'hybrid' : 'bm25');
  }

  /** Takes the rankers' thresholds again (another library, its own calibration), keeping the ranker and an author's threshold. */
  refreshStatuses(statuses: RankerStatus[]): void {
    this.statuses = statuses;
    const status = statuses.find((s) => s.kind === this.ranker);
    if (status && this.thresholdIsDefault) this.threshold = status.default_threshold;
  }

  /** Chooses a ranker with its own threshold, shown at once, not when its first results arrive. */
  choose(kind: RankerKind): void {
    this.ranker = kind;
    const status = this.statuses.find((s) => s.kind === kind);
    if (status) {
      this.threshold = status.default_threshold;
      this.thresholdIsDefault = true;
    }
  }

  /** The author moved the threshold. */
  setThreshold(value: number, isDefault = false): void {
    this.threshold = value;
    this.thresholdIsDefault = isDefault;
  }

  /** The chosen ranker's status (none while the statuses are not known yet). */
  get status(): RankerStatus | undefined {
    return this.statuses.find((s) => s.kind === this.ranker);
  }

  /** Whether the chosen ranker can run here (one whose status is not known yet is tried). */
  get canRank(): boolean {
    return this.status?.available ?? true;
  }

  /** The threshold an eval run uses: the author's, or null for the ranker's default. */
  get evalThreshold(): number | null {
    return this.thresholdIsDefault ? null : this.threshold;
  }
}
