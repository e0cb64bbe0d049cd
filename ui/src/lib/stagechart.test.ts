import { describe, expect, it } from 'vitest';
import type { StageTotals } from './ipc';
import { pageOf, sortStages } from './stagechart';

function row(id: string, metadata: number, instructions: number, resources: number): StageTotals {
  return { id, path: `/lib/${id}/SKILL.md`, metadata, instructions, resources, total: metadata + instructions + resources };
}

describe('sortStages', () => {
  const rows = [row('b', 10, 100, 0), row('a', 30, 20, 500), row('c', 20, 100, 5)];
  it('puts the largest first for a figure, ties in library order', () => {
    expect(sortStages(rows, 'total').map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect(sortStages(rows, 'instructions').map((r) => r.id)).toEqual(['b', 'c', 'a']);
    expect(sortStages(rows, 'metadata').map((r) => r.id)).toEqual(['a', 'c', 'b']);
  });
  it('sorts names A to Z and leaves its input alone', () => {
    expect(sortStages(rows, 'name').map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(rows.map((r) => r.id)).toEqual(['b', 'a', 'c']);
  });
});

describe('pageOf', () => {
  const items = Array.from({ length: 1821 }, (_, i) => i);
  it('slices one page and counts the pages', () => {
    expect(pageOf(items, 0, 40).rows).toEqual(items.slice(0, 40));
    expect(pageOf(items, 0, 40).pages).toBe(46);
    expect(pageOf(items, 45, 40).rows).toEqual(items.slice(1800));
  });
  it('keeps a page in range and has one page when empty', () => {
    expect(pageOf(items, 99, 40).rows).toEqual(items.slice(1800));
    expect(pageOf([], 0, 40)).toEqual({ rows: [], pages: 1 });
  });
});
