import { describe, expect, it } from 'vitest';
import { acceptName, otherNames, suggestNames, tokenAt } from './completion';

const SKILLS = ['git-commit-messages', 'git-history-cleanup', 'regex-authoring', 'semantic-versioning', 'unit-test-design'];

describe('skill-name completion', () => {
  it('finds the comma-separated word under the caret', () => {
    expect(tokenAt('a, git-c', 8)).toEqual({ start: 2, end: 8, word: 'git-c' });
    expect(tokenAt('a, b', 1)).toEqual({ start: 0, end: 1, word: 'a' });
    expect(tokenAt('', 0)).toEqual({ start: 0, end: 0, word: '' });
  });

  it('suggests names starting with the word first, then containing it, leaving out those taken', () => {
    expect(suggestNames('git', SKILLS)).toEqual(['git-commit-messages', 'git-history-cleanup']);
    expect(suggestNames('ver', SKILLS)).toEqual(['semantic-versioning']);
    expect(suggestNames('GIT-H', SKILLS)).toEqual(['git-history-cleanup']);
    expect(suggestNames('git', SKILLS, ['git-commit-messages'])).toEqual(['git-history-cleanup']);
    expect(suggestNames('', SKILLS, [], 2)).toEqual(['git-commit-messages', 'git-history-cleanup']);
    // A name typed in full is not offered again.
    expect(suggestNames('regex-authoring', SKILLS)).toEqual([]);
  });

  it('replaces the word under the caret with the name taken', () => {
    expect(acceptName('git', 3, 'git-commit-messages')).toEqual({ text: 'git-commit-messages', caret: 19 });
    expect(acceptName('regex-authoring, uni', 20, 'unit-test-design')).toEqual({ text: 'regex-authoring, unit-test-design', caret: 33 });
    expect(acceptName('reg, unit-test-design', 2, 'regex-authoring')).toEqual({ text: 'regex-authoring, unit-test-design', caret: 15 });
    expect(otherNames('a, b, c', 4)).toEqual(['a', 'c']);
  });
});
