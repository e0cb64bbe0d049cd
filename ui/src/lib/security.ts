// Wording and ordering for the Security panel, the skill list's badges and
// the import dialog. Pure functions, unit-tested; every verdict, threat and
// finding comes from the engine (`hone_core::security`, as `hone scan`).
import type { SecurityCounts, SecurityFinding, SecurityVerdict, SkillSecurity, Threat } from './ipc';
import { formatCount } from './text';

export const VERDICT_LABELS: Record<SecurityVerdict, string> = {
  safe: 'Safe',
  review: 'Review',
  dangerous: 'Dangerous',
};

const VERDICT_RANK: Record<SecurityVerdict, number> = { dangerous: 0, review: 1, safe: 2 };
const THREAT_RANK: Record<Threat, number> = { critical: 0, high: 1, medium: 2, low: 3 };
const CONFIDENCE_RANK: Record<SecurityFinding['confidence'], number> = { high: 0, medium: 1, low: 2 };

/** The skills a person should read first: dangerous, then review, by name within each. */
export function needingAttention<T extends Pick<SkillSecurity, 'id' | 'verdict'>>(skills: readonly T[]): T[] {
  return skills
    .filter((s) => s.verdict !== 'safe')
    .sort((a, b) => VERDICT_RANK[a.verdict] - VERDICT_RANK[b.verdict] || a.id.localeCompare(b.id));
}

/** "1 dangerous · 2 to review · 14 safe", as `hone scan` sums a library up. */
export function countsText(c: SecurityCounts): string {
  return `${formatCount(c.dangerous)} dangerous · ${formatCount(c.review)} to review · ${formatCount(c.safe)} safe`;
}

/** Where a finding is, `file:line:column`, the file relative to its skill's folder. */
export function findingPlace(f: Pick<SecurityFinding, 'file' | 'span'>): string {
  return `${f.file}:${f.span.start.line}:${f.span.start.column}`;
}

/** Whether a finding bears on the verdict: not acknowledged and above low threat (low is for information). */
export function counts(f: Pick<SecurityFinding, 'threat' | 'acknowledged'>): boolean {
  return f.acknowledged === null && f.threat !== 'low';
}

/**
 * A skill's findings split for showing: those that bear on the verdict,
 * worst first (threat, then confidence, then the engine's order); those a
 * reviewer acknowledged; and the low ones, for information.
 */
export function groupFindings(findings: readonly SecurityFinding[]): {
  counting: SecurityFinding[];
  acknowledged: SecurityFinding[];
  low: SecurityFinding[];
} {
  const counting = findings
    .filter(counts)
    .map((f, i) => ({ f, i }))
    .sort((a, b) => THREAT_RANK[a.f.threat] - THREAT_RANK[b.f.threat] || CONFIDENCE_RANK[a.f.confidence] - CONFIDENCE_RANK[b.f.confidence] || a.i - b.i)
    .map(({ f }) => f);
  return {
    counting,
    acknowledged: findings.filter((f) => f.acknowledged !== null),
    low: findings.filter((f) => f.acknowledged === null && f.threat === 'low'),
  };
}

/** The rules behind a verdict, once each, worst first: `HS906 download-and-execute`. */
export function flaggedRules(findings: readonly SecurityFinding[]): string[] {
  return [...new Set(groupFindings(findings).counting.map((f) => `${f.code} ${f.rule}`))];
}

/** The names of the dangerous skills, once each, sorted: what an import must be told to accept. */
export function dangerousNames(skills: readonly Pick<SkillSecurity, 'id' | 'verdict'>[]): string[] {
  return [...new Set(skills.filter((s) => s.verdict === 'dangerous').map((s) => s.id))].sort();
}

/** "a", "a and b", "a, b and c". */
export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** A pack's reports by the folder each skill has in the pack (the import plan's `name`). */
export function byFolder(skills: readonly SkillSecurity[]): Map<string, SkillSecurity> {
  return new Map(skills.map((s) => [s.dir, s]));
}

/**
 * What the import may go ahead with: `null` while it must wait (not
 * scanned, or a dangerous skill not yet confirmed), else the dangerous
 * skills it is told to accept (none when the pack has none).
 */
export function importAllowance(scanned: readonly Pick<SkillSecurity, 'id' | 'verdict'>[] | null, confirmed: boolean): string[] | null {
  if (!scanned) return null;
  const names = dangerousNames(scanned);
  if (names.length === 0) return [];
  return confirmed ? names : null;
}
