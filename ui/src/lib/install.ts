// What the "Install into…" dialog says about an install plan: each skill's
// action in words, a one-line summary of how an installed skill differs,
// and where a copy came from (the provenance `gh skill` records).

import type { Client, FolderDiff, InstallAction, InstallReport, Provenance } from './ipc';

/** The clients, in the order `hone install --client` lists them. */
export const CLIENTS: { id: Client; label: string }[] = [
  { id: 'claude-code', label: 'Claude Code' },
  { id: 'codex', label: 'Codex' },
  { id: 'gemini', label: 'Gemini CLI' },
  { id: 'opencode', label: 'OpenCode' },
  { id: 'copilot', label: 'GitHub Copilot' },
];

/** What will happen to one skill, before (`planned`) or after the install. */
export function actionText(action: InstallAction, planned: boolean): string {
  switch (action) {
    case 'add':
      return planned ? 'will be added' : 'added';
    case 'unchanged':
      return 'already there, the same';
    case 'replace':
      return planned ? 'will replace the one there' : 'replaced';
    case 'keep':
      return planned ? 'a different one is there' : 'kept (differs)';
  }
}

/** `2 added · 1 changed · 1 gone`, or how the installed skill is a link. */
export function diffSummary(diff: FolderDiff): string {
  if (diff.link !== null) return `installed as a link to ${diff.link}`;
  const parts: string[] = [];
  if (diff.added.length) parts.push(`${diff.added.length} added`);
  if (diff.changed.length) parts.push(`${diff.changed.length} changed`);
  if (diff.removed.length) parts.push(`${diff.removed.length} gone`);
  return parts.join(' · ');
}

/** Each file that differs, marked as `hone install` prints it: `+` added, `-` gone, `~` changed. */
export function diffLines(diff: FolderDiff): string[] {
  return [...diff.added.map((f) => `+ ${f}`), ...diff.removed.map((f) => `- ${f}`), ...diff.changed.map((f) => `~ ${f}`)];
}

/** The skills whose installed copy differs: the user keeps or replaces them. */
export function differing(report: InstallReport | null): string[] {
  return (report?.skills ?? []).filter((s) => s.action === 'keep' || s.action === 'replace').map((s) => s.name);
}

/** The skills of that name already there (the same, or different): each can be uninstalled. */
export function present(report: InstallReport | null): string[] {
  return (report?.skills ?? []).filter((s) => s.action !== 'add').map((s) => s.name);
}

/** Where a copy came from, in a line. */
export function provenanceText(provenance: Provenance): string {
  if (provenance.kind === 'local') return provenance.path;
  const ref = provenance.git_ref ?? '(detached)';
  return `${provenance.repo} ${ref} ${provenance.path} (tree ${provenance.tree_sha.slice(0, 12)})`;
}
