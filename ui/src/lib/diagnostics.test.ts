import { describe, expect, it } from 'vitest';
import { fitToBox, pointsDelta, rate } from './diagnostics';

describe('fitToBox', () => {
  it('fills the box keeping the aspect and flips y', () => {
    const { points, request } = fitToBox(
      [
        { x: 0, y: 0 },
        { x: 2, y: 1 },
      ],
      null,
      100,
      10,
    );
    expect(points[0]).toEqual({ x: 10, y: 70 });
    expect(points[1]).toEqual({ x: 90, y: 30 });
    expect(request).toBeNull();
  });

  it('places the request in the same frame, widening it when the request lies outside', () => {
    const { points, request } = fitToBox([{ x: 0, y: 0 }], [1, 0], 100, 0);
    expect(points[0].x).toBe(0);
    expect(request?.x).toBe(100);
  });

  it('draws a single point in the middle and an empty map as nothing', () => {
    expect(fitToBox([{ x: 3, y: 3 }], null, 100, 10).points[0]).toEqual({ x: 50, y: 50 });
    expect(fitToBox([], null, 100, 10)).toEqual({ points: [], request: null });
  });
});

describe('rates', () => {
  it('formats rates and their changes', () => {
    expect(rate(0.5)).toBe('50.0%');
    expect(rate(null)).toBe('—');
    expect(pointsDelta(0.125)).toBe('+12.5 pts');
    expect(pointsDelta(-0.05)).toBe('−5.0 pts');
    expect(pointsDelta(0)).toBe('±0.0 pts');
  });
});
