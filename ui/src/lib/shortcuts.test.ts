import { describe, expect, it } from 'vitest';
import { chordLabel, matchesChord, withChord } from './shortcuts';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('shortcuts', () => {
  it('matches a chord with exactly its modifiers', () => {
    expect(matchesChord(key('P', { ctrlKey: true, shiftKey: true }), 'Mod+Shift+P')).toBe(true);
    expect(matchesChord(key('p', { ctrlKey: true }), 'Mod+Shift+P')).toBe(false);
    expect(matchesChord(key('p', { ctrlKey: true }), 'Mod+P')).toBe(true);
    expect(matchesChord(key('F8'), 'F8')).toBe(true);
    expect(matchesChord(key('F8', { shiftKey: true }), 'F8')).toBe(false);
    expect(matchesChord(key('F8', { ctrlKey: true }), 'F8')).toBe(false);
    expect(matchesChord(key('Enter', { ctrlKey: true }), 'Mod+Enter')).toBe(true);
  });

  it('writes chords for people', () => {
    expect(chordLabel('Mod+1')).toBe('Ctrl+1');
    expect(withChord('Run', 'Mod+Enter')).toBe('Run (Ctrl+Enter)');
    expect(withChord('Run', undefined)).toBe('Run');
  });
});
