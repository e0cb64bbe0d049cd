import { describe, expect, it } from 'vitest';
import { Coalesced } from './coalesce';

describe('Coalesced', () => {
  it('folds requests made during a run into one more run', async () => {
    const gates: (() => void)[] = [];
    let runs = 0;
    let settled = 0;
    const work = new Coalesced(
      () => new Promise<void>((resolve) => (runs++, gates.push(resolve))),
      () => settled++,
    );
    work.request();
    work.request();
    work.request();
    expect(runs).toBe(1);
    gates.shift()!();
    await Promise.resolve();
    await Promise.resolve();
    expect(runs).toBe(2);
    gates.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(runs).toBe(2);
    expect(settled).toBe(1);
  });
});
