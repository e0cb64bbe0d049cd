import { describe, expect, it } from 'vitest';
import { enumChoices, isEditable, listOf, readersLabel, shownFields, unknownKeys } from './fields';
import type { FieldReader, FrontmatterField } from './ipc';

// A few rows in the shape `frontmatter_fields` sends (hone_core::fields).
const base = {
  readers: ['claude-code'] as FieldReader[],
  max_chars: null,
  listing_chars: null,
  suggestions: [] as string[],
  respelled: false,
  help: '',
};
const table: FrontmatterField[] = [
  { ...base, key: 'name', label: 'Name', type: 'string', readers: ['agentskills', 'claude-code', 'claude-api', 'copilot'], max_chars: 64 },
  { ...base, key: 'effort', label: 'Effort', type: 'enum', values: ['low', 'high'] },
  { ...base, key: 'paths', label: 'Paths', type: 'list', split: 'globs' },
  { ...base, key: 'hooks', label: 'Hooks', type: 'map' },
  { ...base, key: 'token_estimate', label: 'Token estimate', type: 'integer', readers: ['routers'] },
];

describe('the form over the field table', () => {
  it('edits strings, enums and lists, and shows maps and integers only when present', () => {
    expect(table.filter(isEditable).map((f) => f.key)).toEqual(['name', 'effort', 'paths']);
    expect(shownFields(table, {}).map((f) => f.key)).toEqual(['name', 'effort', 'paths']);
    expect(shownFields(table, { hooks: {} }).map((f) => f.key)).toEqual(['name', 'effort', 'paths', 'hooks']);
  });

  it('keeps keys the table does not know', () => {
    expect(unknownKeys(table, { name: 'a', source: 'x', displayName: 'A' })).toEqual(['source', 'displayName']);
    expect(unknownKeys(table, null)).toEqual([]);
  });

  it('says who reads a key', () => {
    expect(readersLabel(table[0].readers)).toBe('every agent');
    expect(readersLabel(['claude-code', 'copilot'])).toBe('Claude Code, GitHub Copilot');
    expect(readersLabel(['routers'])).toBe('skill routers');
  });

  it('keeps a value outside an enum selectable', () => {
    expect(enumChoices(['low', 'high'], 'high')).toEqual(['low', 'high']);
    expect(enumChoices(['low', 'high'], undefined)).toEqual(['low', 'high']);
    expect(enumChoices(['low', 'high'], 'extreme')).toEqual(['low', 'high', 'extreme']);
  });

  it('reads a one-string list as one item', () => {
    expect(listOf('src/**')).toEqual(['src/**']);
    expect(listOf(['a', 1])).toEqual(['a', '1']);
    expect(listOf('')).toEqual([]);
  });
});
