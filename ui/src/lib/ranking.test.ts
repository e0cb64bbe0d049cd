import { describe, expect, it } from 'vitest';
import { formatMetric, metricDelta, rankMove, splitNames } from './ranking';

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

describe('metrics', () => {
  it('formats values and signed deltas, lower latency being good', () => {
    expect(formatMetric('p_at_1', 0.5)).toBe('0.500');
    expect(formatMetric('mrr', null)).toBe('—');
    const comparison = {
      metrics: { p_at_1: { old: 0.5, new: 0.75, delta: 0.25 }, latency_ms_p50: { old: 2, new: 1, delta: -1 } },
      improved: [],
      regressed: [],
      only_old: 0,
      only_new: 0,
    };
    expect(metricDelta(comparison, 'p_at_1')).toEqual({ text: '+0.250', good: true });
    expect(metricDelta(comparison, 'latency_ms_p50')).toEqual({ text: '-1.00 ms', good: true });
    expect(metricDelta(null, 'p_at_1')).toBeNull();
  });
  it('splits name lists', () => {
    expect(splitNames(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
  });
});
