import { describe, expect, it } from 'vitest';
import { duplicateIds, shortDir, sortSkills } from './health';

const skills = [
  { id: 'b', counts: { error: 0, warning: 3, info: 0 }, tokens: 10 },
  { id: 'a', counts: { error: 1, warning: 0, info: 0 }, tokens: 5 },
  { id: 'c', counts: { error: 0, warning: 0, info: 0 }, tokens: 50 },
];

describe('sortSkills', () => {
  const sort = (order: 'name' | 'findings' | 'tokens') =>
    sortSkills(skills, order, (s) => s.counts, (s) => s.tokens).map((s) => s.id);
  it('sorts by name, by findings (errors first) and by tokens', () => {
    expect(sort('name')).toEqual(['a', 'b', 'c']);
    expect(sort('findings')).toEqual(['a', 'b', 'c']);
    expect(sort('tokens')).toEqual(['c', 'b', 'a']);
  });
});

describe('duplicates', () => {
  it('finds identities used twice and shows folders short', () => {
    expect([...duplicateIds([{ id: 'x' }, { id: 'y' }, { id: 'x' }])]).toEqual(['x']);
    expect(shortDir('/lib/team/twin')).toBe('team/twin');
  });
});
