import { describe, expect, it } from 'vitest';
import { nextFocus } from './focus';

describe('nextFocus', () => {
  const items = ['a', 'b', 'c'];
  it('moves forward and back, wrapping at both ends', () => {
    expect(nextFocus(items, 'a', 1)).toBe('b');
    expect(nextFocus(items, 'c', 1)).toBe('a');
    expect(nextFocus(items, 'a', -1)).toBe('c');
  });
  it('starts at an end when the focus is outside', () => {
    expect(nextFocus(items, 'elsewhere', 1)).toBe('a');
    expect(nextFocus(items, null, -1)).toBe('c');
    expect(nextFocus([], 'a', 1)).toBeUndefined();
  });
});
