// Grouping of the skill list by the folder a skill sits in, below its
// library root: a corpus nested as collection/skill reads as collections.
// Pure functions, unit-tested; the list keeps its order inside each group.

/** A skill as the grouping needs it: its folder and its library root's. */
export interface Placed {
  dir: string;
  root: string;
}

export type Row<T> = { kind: 'group'; key: string; label: string; count: number; collapsed: boolean } | { kind: 'skill'; skill: T };

/** The label of the skills directly in a library root. */
export const TOP_LEVEL = '(top level)';

/** The folder holding a skill's folder, relative to its root: `''` when the skill sits directly in it. */
export function groupOf(skill: Placed): string {
  const root = skill.root.replace(/\/+$/, '');
  const inside = skill.dir.startsWith(root + '/') ? skill.dir.slice(root.length + 1) : skill.dir;
  const parts = inside.split('/').filter(Boolean);
  return parts.slice(0, -1).join('/');
}

/**
 * The rows of a grouped list: each group's header (top level first, then by
 * folder), then its skills in their given order unless it is collapsed.
 */
export function groupRows<T>(skills: readonly T[], place: (s: T) => Placed, collapsed: ReadonlySet<string>): Row<T>[] {
  const groups = new Map<string, T[]>();
  for (const s of skills) {
    const key = groupOf(place(s));
    const members = groups.get(key);
    if (members) members.push(s);
    else groups.set(key, [s]);
  }
  const keys = [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
  const rows: Row<T>[] = [];
  for (const key of keys) {
    const members = groups.get(key) ?? [];
    const isCollapsed = collapsed.has(key);
    rows.push({ kind: 'group', key, label: key || TOP_LEVEL, count: members.length, collapsed: isCollapsed });
    if (!isCollapsed) for (const skill of members) rows.push({ kind: 'skill', skill });
  }
  return rows;
}
