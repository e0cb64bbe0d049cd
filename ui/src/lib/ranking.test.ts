import { describe, expect, it } from 'vitest';
import { rankMove, splitNames } from './ranking';

describe('rankMove', () => {
  it('says when edits move the open skill up', () => {
    expect(rankMove({ id: 'a', now: 1, saved: 4, edited: true })).toEqual({ text: '#4 → #1 with your unsaved edits', tone: 'better' });
  });
  it('says when edits push it out of the ranking', () => {
    expect(rankMove({ id: 'a', now: null, saved: 2, edited: true }).tone).toBe('worse');
  });
  it('reports the rank alone without edits', () => {
    expect(rankMove({ id: 'a', now: 3, saved: 3, edited: false })).toEqual({ text: '#3 for this request', tone: 'same' });
  });
});

describe('splitNames', () => {
  it('splits name lists', () => {
    expect(splitNames(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
  });
});
