// Ordering and labels for the library's Problems panel and skill list.
// Pure functions, unit-tested; every count comes from the engine.
import type { Counts, SkillSummary, Target } from './ipc';

export type SkillOrder = 'name' | 'findings' | 'tokens';

/** The targets an author chooses between, with the names they know them by. */
export const TARGETS: readonly { target: Target; label: string }[] = [
  { target: 'all', label: 'All clients' },
  { target: 'agentskills', label: 'Agent Skills spec' },
  { target: 'claude-code', label: 'Claude Code' },
  { target: 'claude-api', label: 'Claude upload' },
  { target: 'copilot', label: 'GitHub Copilot' },
];

export const total = (c: Counts) => c.error + c.warning + c.info;

/** Skills ordered by name, by findings (errors first, most first) or by stage-1 tokens (most first); ties by name. */
export function sortSkills<T extends { id: string }>(skills: readonly T[], order: SkillOrder, findings: (s: T) => Counts, tokens: (s: T) => number): T[] {
  const byName = (a: T, b: T) => a.id.localeCompare(b.id);
  const sorted = [...skills];
  if (order === 'name') sorted.sort(byName);
  else if (order === 'tokens') sorted.sort((a, b) => tokens(b) - tokens(a) || byName(a, b));
  else sorted.sort((a, b) => findings(b).error - findings(a).error || total(findings(b)) - total(findings(a)) || byName(a, b));
  return sorted;
}

/** Identities used by more than one skill: these are shown with their folder. */
export function duplicateIds(skills: readonly { id: string }[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const s of skills) (seen.has(s.id) ? twice : seen).add(s.id);
  return twice;
}

/** A folder shown short: its last two segments (enough to tell duplicates apart). */
export function shortDir(dir: string): string {
  return dir.split('/').slice(-2).join('/');
}

/** The counts of a skill of the sidebar, as its summary has them. */
export const summaryCounts = (s: SkillSummary): Counts => ({ error: s.errors, warning: s.warnings, info: 0 });
