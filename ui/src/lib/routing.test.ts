import { describe, expect, it } from 'vitest';
import type { RankerStatus } from './ipc';
import { RoutingChoice } from './routing.svelte';

const status = (kind: RankerStatus['kind'], available: boolean, defaultThreshold: number): RankerStatus => ({ kind, available, note: null, default_threshold: defaultThreshold });

describe('RoutingChoice', () => {
  it('starts on hybrid where its model is installed, with its threshold', () => {
    const choice = new RoutingChoice();
    choice.setStatuses([status('bm25', true, 0.5), status('hybrid', true, 0.6)]);
    expect([choice.ranker, choice.threshold, choice.evalThreshold]).toEqual(['hybrid', 0.6, null]);
    const without = new RoutingChoice();
    without.setStatuses([status('bm25', true, 0.5), status('hybrid', false, 0.6)]);
    expect([without.ranker, without.threshold]).toEqual(['bm25', 0.5]);
  });

  it("shows a ranker's threshold as soon as it is chosen, replacing the author's", () => {
    const choice = new RoutingChoice();
    choice.setStatuses([status('bm25', true, 0.5), status('hybrid', true, 0.6)]);
    choice.setThreshold(0.72);
    expect(choice.evalThreshold).toBe(0.72);
    choice.choose('bm25');
    expect([choice.threshold, choice.evalThreshold]).toEqual([0.5, null]);
  });

  it("knows whether the chosen ranker can run, trying one whose status is not known yet", () => {
    const choice = new RoutingChoice();
    expect([choice.status, choice.canRank]).toEqual([undefined, true]);
    choice.setStatuses([status('bm25', true, 0.5), status('hybrid', false, 0.6)]);
    expect([choice.status?.kind, choice.canRank]).toEqual(['bm25', true]);
    choice.choose('hybrid');
    expect([choice.status?.kind, choice.canRank]).toEqual(['hybrid', false]);
  });

  it('opens "why it lost" on a request with the expected skill set against the top match', () => {
    const choice = new RoutingChoice();
    expect(choice.why.open).toBe(false);
    choice.explain('harvest totals from a pdf', 'pdf-extract');
    expect(choice.query).toBe('harvest totals from a pdf');
    expect(choice.why).toEqual({ expected: 'pdf-extract', against: null, open: true });
  });

  it("takes another library's thresholds without changing the ranker or the author's threshold", () => {
    const choice = new RoutingChoice();
    choice.setStatuses([status('bm25', true, 0.5), status('hybrid', true, 0.6)]);
    choice.choose('bm25');
    choice.refreshStatuses([status('bm25', true, 0.31), status('hybrid', true, 0.6)]);
    expect([choice.ranker, choice.threshold, choice.evalThreshold]).toEqual(['bm25', 0.31, null]);
    choice.setThreshold(0.7);
    choice.refreshStatuses([status('bm25', true, 0.5), status('hybrid', true, 0.6)]);
    expect(choice.threshold).toBe(0.7);
  });
});
