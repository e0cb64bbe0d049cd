// The "Install into…" dialog's state: which skills, where (client, scope,
// project), how (link or copy, provenance), the engine's plan for that
// (asked again whenever a choice changes; only the latest answer counts),
// and the install and uninstall themselves.

import * as ipc from './ipc';
import type { BlockedSkill, Client, InstallOutcome, InstallReport, InstallRequest, Scope, Uninstalled, UninstallRequest } from './ipc';
import { Latest } from './latest';

export interface InstallCommands {
  plan: (request: InstallRequest) => Promise<InstallOutcome>;
  install: (request: InstallRequest) => Promise<InstallOutcome>;
  uninstall: (request: UninstallRequest) => Promise<Uninstalled[]>;
}

const IPC: InstallCommands = { plan: ipc.planInstall, install: ipc.installSkills, uninstall: ipc.uninstallSkills };

export class InstallState {
  skills = $state<string[]>([]);
  client = $state<Client>('claude-code');
  scope = $state<Scope>('project');
  project = $state('');
  link = $state(false);
  provenance = $state(false);
  /** The engine's dry run for the choices above. */
  plan = $state.raw<InstallReport | null>(null);
  /** The last install's report. */
  done = $state.raw<InstallReport | null>(null);
  removed = $state.raw<Uninstalled[] | null>(null);
  blocked = $state.raw<BlockedSkill[] | null>(null);
  error = $state<string | null>(null);
  busy = $state(false);
  private readonly plans = new Latest();

  constructor(
    skills: string[],
    private readonly commands: InstallCommands = IPC,
  ) {
    this.skills = skills;
  }

  /** Whether there is somewhere to install to. */
  get ready(): boolean {
    return this.skills.length > 0 && (this.scope === 'user' || this.project.trim() !== '');
  }

  request(replace: boolean): InstallRequest {
    return {
      skills: this.skills,
      client: this.client,
      scope: this.scope,
      project: this.scope === 'project' ? this.project.trim() : null,
      link: this.link,
      provenance: this.provenance && !this.link,
      replace,
    };
  }

  private take(outcome: InstallOutcome): InstallReport | null {
    this.blocked = outcome.kind === 'blocked' ? outcome.skills : null;
    return outcome.kind === 'report' ? outcome.report : null;
  }

  /** Asks for the plan of the current choices. */
  async refresh(): Promise<void> {
    this.error = null;
    if (!this.ready) {
      this.plan = null;
      this.blocked = null;
      return;
    }
    await this.plans.run(
      () => this.commands.plan(this.request(false)),
      (outcome) => (this.plan = this.take(outcome)),
      (e) => {
        this.plan = null;
        this.error = String(e);
      },
    );
  }

  /** Installs; a skill that differs is replaced only with `replace`. */
  async install(replace: boolean): Promise<void> {
    this.busy = true;
    this.error = null;
    this.removed = null;
    try {
      this.done = this.take(await this.commands.install(this.request(replace)));
    } catch (e) {
      this.error = String(e);
    } finally {
      this.busy = false;
    }
    await this.refresh();
  }

  /** Removes the installed skills `names` from the chosen client folder. */
  async uninstall(names: string[]): Promise<void> {
    this.busy = true;
    this.error = null;
    this.done = null;
    try {
      const request = this.request(false);
      this.removed = await this.commands.uninstall({ names, client: request.client, scope: request.scope, project: request.project });
    } catch (e) {
      this.error = String(e);
    } finally {
      this.busy = false;
    }
    await this.refresh();
  }
}
