import { describe, expect, it } from 'vitest';
import { rowWindow } from './rows';

describe('rowWindow', () => {
  it('keeps the rows in view and a margin', () => {
    expect(rowWindow(0, 260, 1821, 26, 12)).toEqual({ first: 0, last: 22 });
    expect(rowWindow(2600, 260, 1821, 26, 12)).toEqual({ first: 88, last: 122 });
  });

  it('shows the end of the list when scrolled to the bottom', () => {
    const w = rowWindow(1821 * 26 - 260, 260, 1821, 26, 12);
    expect(w.last).toBe(1821);
    expect(w.first).toBe(1821 - 10 - 12);
  });

  it('still shows the rows after a filter shortens the list below the offset', () => {
    // Scrolled far down, then the filter leaves one skill.
    expect(rowWindow(26_000, 260, 1, 26, 12)).toEqual({ first: 0, last: 1 });
    expect(rowWindow(26_000, 260, 30, 26, 12)).toEqual({ first: 8, last: 30 });
  });

  it('is empty for an empty list', () => {
    expect(rowWindow(500, 260, 0, 26, 12)).toEqual({ first: 0, last: 0 });
  });
});
