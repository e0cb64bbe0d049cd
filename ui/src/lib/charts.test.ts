import { describe, expect, it } from 'vitest';
import { scale, ticks } from './charts';

describe('scale', () => {
  it('maps 0..max onto the pixel range and clamps outside it', () => {
    const x = scale(200, 10, 110);
    expect(x(0)).toBe(10);
    expect(x(100)).toBe(60);
    expect(x(400)).toBe(110);
    expect(x(-5)).toBe(10);
    expect(scale(0, 0, 50)(0)).toBe(0);
  });
});

describe('ticks', () => {
  it('steps by 1, 2 or 5 times a power of ten and covers the maximum', () => {
    expect(ticks(8000)).toEqual([0, 2000, 4000, 6000, 8000]);
    expect(ticks(950)).toEqual([0, 500, 1000]);
    expect(ticks(0)).toEqual([0]);
  });
});
