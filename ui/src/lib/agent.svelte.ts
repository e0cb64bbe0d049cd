// The agent the window asks: provider, model and base URL, chosen on the
// Evals tab and used by "Ask the agent" in the test-query panel too. One
// store for the window (the choice is the author's, not a library's).

import * as ipc from './ipc';
import type { ProviderChoice, ProviderId, ProviderInfo } from './ipc';

export class AgentChoice {
  providers = $state.raw<ProviderInfo[]>([]);
  provider = $state<ProviderId>('local');
  /** A model name ('' for the provider's default; for `local`, the installed model). */
  model = $state('');
  baseUrl = $state('');
  /** The Evals tab runs the suite with the agent. */
  useAgent = $state(false);
  error = $state<string | null>(null);

  get info(): ProviderInfo | null {
    return this.providers.find((p) => p.id === this.provider) ?? null;
  }

  /** Reads the providers again (after a key is kept or forgotten). */
  async load(): Promise<void> {
    try {
      this.providers = await ipc.agentProviders();
      this.error = null;
    } catch (e) {
      this.error = String(e);
    }
  }

  choose(provider: ProviderId): void {
    this.provider = provider;
    this.model = '';
  }

  choice(): ProviderChoice {
    const info = this.info;
    const model = this.model.trim() || (this.provider === 'local' ? null : (info?.default_model ?? null));
    return { provider: this.provider, model, base_url: (this.provider === 'openai' || this.provider === 'codex') && this.baseUrl.trim() ? this.baseUrl.trim() : null, runs: null };
  }
}

export const agentChoice = new AgentChoice();
