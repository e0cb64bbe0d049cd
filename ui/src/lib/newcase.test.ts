import { describe, expect, it } from 'vitest';
import { INTENTS, buildCase, kindsFor } from './newcase';

describe('a new eval case from the query panel', () => {
  it('turns "should trigger" into expect, "should not" into reject, "no skill" into a negative', () => {
    expect(buildCase(' fix my regex ', 'should-trigger', ['regex-authoring'], 'direct')).toEqual({
      query: 'fix my regex',
      expect: ['regex-authoring'],
      reject: [],
      kinds: ['direct'],
      line: 0,
    });
    expect(buildCase('fix my regex', 'should-not-trigger', ['sql-query-review'], 'near-miss')).toEqual({
      query: 'fix my regex',
      expect: null,
      reject: ['sql-query-review'],
      kinds: ['near-miss'],
      line: 0,
    });
    expect(buildCase('hello', 'no-skill', ['ignored'], ' ')).toEqual({ query: 'hello', expect: [], reject: [], kinds: [], line: 0 });
  });

  it('says what is missing instead of writing a case that tests nothing', () => {
    expect(buildCase('  ', 'no-skill', [], 'negative')).toBe('Type a request first.');
    expect(buildCase('q', 'should-trigger', [], 'direct')).toMatch(/should trigger/);
    expect(buildCase('q', 'should-not-trigger', [], 'near-miss')).toMatch(/should not trigger/);
  });

  it('offers the suite format’s kinds per intent and names the open skill', () => {
    expect(kindsFor('should-trigger')[0]).toBe('direct');
    expect(kindsFor('no-skill')).toEqual(['negative']);
    expect(INTENTS[0].label('regex-authoring')).toBe('should trigger regex-authoring');
  });
});
