import { describe, expect, it } from 'vitest';
import { buildChart, niceMax, type ChartRun } from './evalchart';

const run = (label: string, p1: number | null, p50: number | null = null, baseline = false): ChartRun => ({
  label,
  title: label,
  values: { p_at_1: p1, mrr: p1 === null ? null : p1 / 2, latency_ms_p50: p50 },
  baseline,
});

describe('the eval chart', () => {
  it('rounds the ms axis up to 1, 2 or 5 × 10^n', () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(0.3)).toBeCloseTo(0.5);
    expect(niceMax(1.2)).toBe(2);
    expect(niceMax(7)).toBe(10);
    expect(niceMax(20)).toBe(20);
  });

  it('puts shares on a 0–1 axis, one line per metric, runs left to right', () => {
    const model = buildChart([run('base', 0.5, null, true), run('#1', 1)], ['p_at_1', 'mrr'], null);
    expect(model.series.map((s) => s.key)).toEqual(['p_at_1', 'mrr']);
    expect(model.series.map((s) => s.colour)).toEqual([1, 2]);
    const [a, b] = model.series[0].points;
    expect(a.x).toBeLessThan(b.x);
    // 1.0 is at the top of the plot, 0.5 half-way down.
    expect(b.y).toBeCloseTo(model.plot.top);
    expect(a.y).toBeCloseTo((model.plot.top + model.plot.bottom) / 2);
    expect(model.shareTicks.map((t) => t.label)).toEqual(['0.00', '0.25', '0.50', '0.75', '1.00']);
    expect(model.msTicks).toEqual([]);
    expect(model.runs[0].baseline).toBe(true);
    expect(model.series[0].path.split(' ')).toHaveLength(2);
  });

  it('gives latency its own ms axis, and leaves a gap where a run lacks a metric', () => {
    const model = buildChart([run('#1', 0.5, 3), run('#2', null, 4)], ['p_at_1', 'latency_ms_p50'], null);
    expect(model.series[0].points.map((p) => p.run)).toEqual([0]);
    expect(model.msTicks.at(-1)?.label).toBe('5 ms');
    const latency = model.series[1];
    expect(latency.axis).toBe('ms');
    expect(latency.points[1].y).toBeCloseTo(model.plot.bottom - (4 / 5) * (model.plot.bottom - model.plot.top));
  });

  it('draws the baseline as a level per metric', () => {
    const model = buildChart([run('#1', 0.5), run('#2', 0.75)], ['p_at_1', 'mrr'], { p_at_1: 1, mrr: null });
    expect(model.series[0].baselineY).toBeCloseTo(model.plot.top);
    expect(model.series[0].baselineValue).toBe(1);
    expect(model.series[1].baselineY).toBeNull();
  });

  it('centres a single run', () => {
    const model = buildChart([run('#1', 0.5)], ['p_at_1'], null);
    expect(model.runs[0].x).toBeCloseTo((model.plot.left + model.plot.right) / 2);
  });
});
