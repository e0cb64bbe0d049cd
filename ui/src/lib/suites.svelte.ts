// The library's eval suites, listed again whenever a suite file changes
// (here or on disk). Panels read the list; a new list is a new array, so
// whatever depends on it (the open suite's cases) is read again.

import * as ipc from './ipc';
import type { SuiteSummary } from './ipc';

/** The command that runs the open suite from anywhere in the window (the Evals panel's, or Inspector's stand-in until that panel is first shown). */
export const RUN_EVALS = { id: 'run-evals', label: 'Run the eval suite', chord: 'Mod+Enter' } as const;

export class Suites {
  list = $state.raw<SuiteSummary[]>([]);
  error = $state<string | null>(null);
  /** A run asked for before the Evals panel was first shown: the panel makes it once mounted. */
  runWhenShown = $state(false);

  async refresh(): Promise<void> {
    try {
      this.list = await ipc.listSuites();
      this.error = null;
    } catch (e) {
      this.error = String(e);
    }
  }
}
