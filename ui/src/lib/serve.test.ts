import { describe, expect, it } from 'vitest';
import { mergeLog } from './serve';
import type { ServeLogEntry } from './ipc';

const entry = (seq: number): ServeLogEntry => ({ seq, at_ms: 0, request: null, text: `line ${seq}` });

describe('mergeLog', () => {
  it('appends what is new and keeps the latest', () => {
    const kept = [entry(1), entry(2)];
    expect(mergeLog(kept, []).map((e) => e.seq)).toEqual([1, 2]);
    expect(mergeLog(kept, [entry(3), entry(4)], 3).map((e) => e.seq)).toEqual([2, 3, 4]);
  });

  it('starts over for a new run', () => {
    expect(mergeLog([entry(5), entry(6)], [entry(1)]).map((e) => e.seq)).toEqual([1]);
  });
});
