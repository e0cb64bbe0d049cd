// Which dialog is open. One at a time: the skill-folder questions (new,
// rename, delete), the unsaved-changes question, the conflict's side by side
// view, the pack and install dialogs, the serve panel, the command palette
// and the first start's welcome.

import type { SkillSummary } from './ipc';

export type Question =
  | { kind: 'new'; name: string; error: string | null }
  | { kind: 'rename'; skill: SkillSummary; name: string; error: string | null }
  | { kind: 'delete'; skill: SkillSummary }
  | { kind: 'unsaved'; then: () => void }
  | { kind: 'both'; mine: string; theirs: string }
  | { kind: 'export' }
  | { kind: 'import' }
  | { kind: 'install' }
  | { kind: 'serve' }
  | { kind: 'palette' }
  | { kind: 'welcome' };

export class Dialogs {
  open = $state<Question | null>(null);

  show(question: Question): void {
    this.open = question;
  }

  close(): void {
    this.open = null;
  }
}
