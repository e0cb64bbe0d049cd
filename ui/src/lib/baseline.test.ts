import { describe, expect, it } from 'vitest';
import { baselineLabel, pinKey, pinOf, type Pin } from './baseline';

describe('the pinned baseline', () => {
  it('round-trips through a select value and reads in words', () => {
    const pins: Pin[] = [{ kind: 'previous' }, { kind: 'saved' }, { kind: 'named', name: 'before: rewrite' }];
    for (const pin of pins) expect(pinOf(pinKey(pin))).toEqual(pin);
    expect(pins.map(baselineLabel)).toEqual(['the previous run', 'the saved files', '“before: rewrite”']);
  });
});
