// The window's commands: each has a name, an optional shortcut and an
// action. Panels register the commands that act on their own state (the
// Evals panel its Run) for as long as they are mounted; the window's key
// handler and the command palette both run them from here, so a shortcut,
// its tooltip and its palette entry never disagree.

import { matchesChord } from './shortcuts';

export interface Command {
  id: string;
  label: string;
  /** A chord such as "Mod+1" or "F8" (see shortcuts.ts). */
  chord?: string;
  /** Whether it can run now (a disabled command is listed, greyed). */
  enabled?: () => boolean;
  run: () => void;
}

export class Commands {
  list = $state.raw<Command[]>([]);

  /** Adds (or replaces) commands; returns what removes them again. */
  register(...commands: Command[]): () => void {
    const ids = new Set(commands.map((c) => c.id));
    this.list = [...this.list.filter((c) => !ids.has(c.id)), ...commands];
    return () => (this.list = this.list.filter((c) => !ids.has(c.id) || !commands.includes(c)));
  }

  find(id: string): Command | undefined {
    return this.list.find((c) => c.id === id);
  }

  /** The chord of command `id`, for a tooltip. */
  chord(id: string): string | undefined {
    return this.find(id)?.chord;
  }

  /** Runs the command whose chord `e` is; true when one ran. */
  handle(e: KeyboardEvent): boolean {
    const command = this.list.find((c) => c.chord && matchesChord(e, c.chord));
    if (!command) return false;
    e.preventDefault();
    if (command.enabled?.() ?? true) command.run();
    return true;
  }
}
