import { describe, expect, it } from 'vitest';
import { firstStart } from './welcome';

function memory(): Pick<Storage, 'getItem' | 'setItem'> {
  const items = new Map<string, string>();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) };
}

describe('the first start', () => {
  it('is first once per profile', () => {
    const storage = memory();
    expect([firstStart(storage), firstStart(storage)]).toEqual([true, false]);
  });

  it('never greets where storage is refused or absent', () => {
    const refusing = { getItem: () => null, setItem: () => { throw new Error('full'); } };
    expect([firstStart(refusing), firstStart(null)]).toEqual([false, false]);
  });
});
