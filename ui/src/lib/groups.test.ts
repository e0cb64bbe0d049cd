import { describe, expect, it } from 'vitest';
import { TOP_LEVEL, groupOf, groupRows } from './groups';

const root = '/lib';
const skill = (dir: string) => ({ id: dir.split('/').pop() ?? dir, dir: `${root}/${dir}`, root });

describe('groupOf', () => {
  it('is the folder between the root and the skill', () => {
    expect(groupOf(skill('pdf'))).toBe('');
    expect(groupOf(skill('anthropic/pdf'))).toBe('anthropic');
    expect(groupOf(skill('a/b/pdf'))).toBe('a/b');
    expect(groupOf({ dir: '/lib/x/pdf', root: '/lib/' })).toBe('x');
  });
});

describe('groupRows', () => {
  const skills = [skill('zeta/b'), skill('top'), skill('alpha/c'), skill('zeta/a')];
  it('puts the top level first, then folders by name, keeping the order inside each', () => {
    const rows = groupRows(skills, (s) => s, new Set());
    expect(rows.map((r) => (r.kind === 'group' ? `[${r.label} ${r.count}]` : r.skill.id))).toEqual([
      `[${TOP_LEVEL} 1]`,
      'top',
      '[alpha 1]',
      'c',
      '[zeta 2]',
      'b',
      'a',
    ]);
  });
  it('leaves the skills of a collapsed group out but keeps its header and count', () => {
    const rows = groupRows(skills, (s) => s, new Set(['zeta']));
    expect(rows.at(-1)).toEqual({ kind: 'group', key: 'zeta', label: 'zeta', count: 2, collapsed: true });
    expect(rows.filter((r) => r.kind === 'skill')).toHaveLength(2);
  });
});
