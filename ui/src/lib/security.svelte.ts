// The open library's security reports, shared by the Security panel and the
// skill list's badges. Asked once per reading of the library: a change on
// disk (a script, SKILL.md, the acknowledgements in evals/hone-settings.json)
// re-reads the library, and the new reading is scanned again, as the
// Problems panel's findings are re-checked. Until the new scan answers, the
// last one stays shown (the badges do not blink on every save).

import * as ipc from './ipc';
import type { LibrarySecurity, LibraryView, SecurityVerdict, SkillSecurity } from './ipc';
import { Latest } from './latest';

export class SecurityReports {
  report = $state.raw<LibrarySecurity | null>(null);
  error = $state<string | null>(null);
  /** Whether a scan of a newer reading is on its way. */
  scanning = $state(false);
  /** The reading last asked about, so each is scanned once. */
  private asked: number | null = null;
  private readonly requests = new Latest();

  constructor(private readonly ask: () => Promise<LibrarySecurity> = ipc.librarySecurity) {}

  /** Each skill's report by its `SKILL.md`. */
  private readonly byPath = $derived(new Map((this.report?.skills ?? []).map((s) => [s.path, s])));

  /** Scans `library`'s reading, unless it was asked about already. */
  async refresh(library: LibraryView | null): Promise<void> {
    if (!library) return;
    if (this.asked === library.generation) return;
    this.asked = library.generation;
    this.scanning = true;
    await this.requests.run(
      () => this.ask(),
      (fresh) => {
        this.report = fresh;
        this.error = null;
        this.scanning = false;
      },
      (e) => {
        this.error = String(e);
        this.scanning = false;
        // The next change asks again.
        this.asked = null;
      },
    );
  }

  /** The report of the skill whose `SKILL.md` is `path`. */
  of(path: string): SkillSecurity | null {
    return this.byPath.get(path) ?? null;
  }

  verdictOf(path: string): SecurityVerdict | null {
    return this.of(path)?.verdict ?? null;
  }
}
