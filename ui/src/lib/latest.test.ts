import { describe, expect, it } from 'vitest';
import { Latest } from './latest';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('Latest', () => {
  it('drops an answer overtaken by a newer request', async () => {
    const latest = new Latest();
    const shown: number[] = [];
    const slow = deferred<number>();
    const fast = deferred<number>();
    const first = latest.run(() => slow.promise, (v) => shown.push(v), () => shown.push(-1));
    const second = latest.run(() => fast.promise, (v) => shown.push(v), () => shown.push(-1));
    fast.resolve(2);
    slow.resolve(1);
    await Promise.all([first, second]);
    expect(shown).toEqual([2]);
  });

  it('reports the failure of the latest request only', async () => {
    const latest = new Latest();
    const errors: unknown[] = [];
    const old = deferred<number>();
    const first = latest.run(() => old.promise, () => {}, (e) => errors.push(e));
    const second = latest.run(() => Promise.reject(new Error('now')), () => {}, (e) => errors.push(e));
    old.reject(new Error('old'));
    await Promise.all([first, second]);
    expect(errors.map(String)).toEqual(['Error: now']);
  });
});
