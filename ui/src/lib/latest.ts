// Requests whose answers may arrive out of order (a slow one overtaken by a
// newer one): only the answer to the latest request is used.

export class Latest {
  private issued = 0;

  /** Runs `ask`; calls `done` (or `failed`) only if no later `run` started meanwhile. */
  async run<T>(ask: () => Promise<T>, done: (value: T) => void, failed: (error: unknown) => void): Promise<void> {
    const mine = ++this.issued;
    try {
      const value = await ask();
      if (mine === this.issued) done(value);
    } catch (e) {
      if (mine === this.issued) failed(e);
    }
  }
}
