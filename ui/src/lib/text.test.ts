import { describe, expect, it } from 'vitest';
import { OffsetMap, countOf, formatBytes, formatCount, matchesFilter, minimalChange } from './text';

describe('OffsetMap', () => {
  it('maps UTF-8 byte offsets to UTF-16 indices', () => {
    const text = 'aé€😀b';
    const map = new OffsetMap(text);
    expect(map.toIndex(0)).toBe(0);
    expect(map.toIndex(1)).toBe(1); // é starts
    expect(map.toIndex(3)).toBe(2); // € starts
    expect(map.toIndex(6)).toBe(3); // 😀 starts
    expect(map.toIndex(10)).toBe(5); // b, after a surrogate pair
    expect(map.toIndex(99)).toBe(text.length);
  });

  it('stays exact past its checkpoints', () => {
    const text = 'é'.repeat(200) + 'x';
    const map = new OffsetMap(text);
    expect(map.toIndex(400)).toBe(200);
    expect(map.toIndex(130)).toBe(65);
  });
});

describe('minimalChange', () => {
  it('finds the smallest replacement', () => {
    expect(minimalChange('name: a\nx', 'name: bc\nx')).toEqual({ from: 6, to: 7, insert: 'bc' });
    expect(minimalChange('abc', 'abc')).toBeNull();
    expect(minimalChange('aaa', 'aa')).toEqual({ from: 2, to: 3, insert: '' });
    const before = 'x';
    const change = minimalChange(before, 'xyz')!;
    expect(before.slice(0, change.from) + change.insert + before.slice(change.to)).toBe('xyz');
  });
});

describe('formatting and filtering', () => {
  it('formats counts with thousands separators', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 1_000_000, -4_200, 123_456_789]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('formats sizes', () => {
    expect(formatBytes(10)).toBe('10 B');
    expect(formatBytes(2048)).toBe('2.0 KiB');
  });

  it('filters on id and description', () => {
    expect(matchesFilter('pdf-tools', 'Reads PDFs', 'PDF')).toBe(true);
    expect(matchesFilter('git', 'Writes commit messages', 'commit')).toBe(true);
    expect(matchesFilter('git', 'x', 'docker')).toBe(false);
    expect(matchesFilter('git', 'x', '  ')).toBe(true);
  });
});

describe('countOf', () => {
  it('writes the noun in the singular only for one', () => {
    expect(countOf(0, 'file')).toBe('0 files');
    expect(countOf(1, 'file')).toBe('1 file');
    expect(countOf(1821, 'skill')).toBe('1,821 skills');
  });
});
