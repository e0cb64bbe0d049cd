import { describe, expect, it } from 'vitest';
import type { Comparison } from './ipc';
import { CARD_METRICS, METRICS, describeDelta, formatValue, p3Ceiling } from './evalmetrics';

const comparison = (metrics: Comparison['metrics'], latency_noise_ms: number | null = null): Comparison => ({
  metrics,
  improved: [],
  regressed: [],
  only_old: 0,
  only_new: 0,
  latency_noise_ms,
});

describe('metric cards', () => {
  it('explain every metric the engine reports, in a visible line and a tooltip', () => {
    expect(METRICS.map((m) => m.key)).toEqual([
      'p_at_1',
      'p_at_3',
      'recall_at_3',
      'hit_at_3',
      'hit_at_5',
      'mrr',
      'accuracy',
      'false_positive_rate',
      'latency_ms_p50',
      'latency_ms_p99',
    ]);
    for (const m of METRICS) {
      expect(m.counts.length).toBeGreaterThan(5);
      expect(m.explain.length).toBeGreaterThan(m.counts.length);
    }
    expect(CARD_METRICS.every((k) => METRICS.some((m) => m.key === k))).toBe(true);
  });

  it('formats shares and latencies', () => {
    expect(formatValue('p_at_1', 0.5)).toBe('0.500');
    expect(formatValue('mrr', null)).toBe('—');
    expect(formatValue('latency_ms_p50', 1.234)).toBe('1.23 ms');
    expect(formatValue('latency_ms_p99', 42.4)).toBe('42 ms');
  });

  it('gives P@3 its ceiling: 1/3 when every case expects one skill', () => {
    expect(p3Ceiling([{ expect: ['a'] }, { expect: ['b'] }, { expect: [] }, { expect: null }])).toEqual({ value: 1 / 3, single: true });
    const mixed = p3Ceiling([{ expect: ['a'] }, { expect: ['a', 'b', 'c', 'd'] }])!;
    expect(mixed.value).toBeCloseTo((1 / 3 + 1) / 2);
    expect(mixed.single).toBe(false);
    expect(p3Ceiling([{ expect: [] }])).toBeNull();
  });

  it('signs changes, lower being better for false positives and latency', () => {
    const c = comparison({
      p_at_1: { old: 0.5, new: 1, delta: 0.5 },
      false_positive_rate: { old: 0.1, new: 0.2, delta: 0.1 },
      mrr: { old: 0.8, new: 0.8, delta: 0 },
      accuracy: { old: null, new: 0.5, delta: null },
    });
    expect(describeDelta('p_at_1', c)).toEqual({ text: '+0.500', tone: 'better' });
    expect(describeDelta('false_positive_rate', c)).toEqual({ text: '+0.100', tone: 'worse' });
    expect(describeDelta('mrr', c)).toEqual({ text: '±0.000', tone: 'same' });
    expect(describeDelta('accuracy', c)).toBeNull();
    expect(describeDelta('p_at_1', null)).toBeNull();
  });

  it('shows a latency change within the runs’ noise as noise, not a regression', () => {
    const within = comparison({ latency_ms_p50: { old: 1, new: 1.2, delta: 0.2 } }, 0.3);
    expect(describeDelta('latency_ms_p50', within)).toEqual({ text: '+0.20 ms, within noise (±0.30 ms)', tone: 'noise' });
    const beyond = comparison({ latency_ms_p50: { old: 1, new: 2, delta: 1 } }, 0.3);
    expect(describeDelta('latency_ms_p50', beyond)).toEqual({ text: '+1.00 ms', tone: 'worse' });
    const faster = comparison({ latency_ms_p50: { old: 2, new: 1, delta: -1 } }, 0.3);
    expect(describeDelta('latency_ms_p50', faster)?.tone).toBe('better');
    // No band measured (too few cases): the change is shown as it is.
    expect(describeDelta('latency_ms_p50', comparison({ latency_ms_p50: { old: 1, new: 1.2, delta: 0.2 } }))?.tone).toBe('worse');
  });
});
