// Work that must not overlap (an analysis, a ranking): one run in flight at
// a time, and any number of requests made during it fold into one more run,
// which then sees the latest state. Written once here; the session's
// analysis and the test-query panel's ranking both use it.

export class Coalesced {
  private running = false;
  private wanted = false;

  /** `step` does one run; `settled` is told when no run is in flight or wanted any more. */
  constructor(
    private readonly step: () => Promise<void>,
    private readonly settled: () => void = () => {},
  ) {}

  /** Asks for a run: now, or after the one in flight. */
  request(): void {
    this.wanted = true;
    if (!this.running) void this.loop();
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.wanted) {
        this.wanted = false;
        await this.step();
      }
    } finally {
      this.running = false;
      this.settled();
    }
  }
}
