import { describe, expect, it } from 'vitest';
import type { LibraryView } from './ipc';
import { stillShown, supersedes } from './readings';

function view(generation: number, checking: boolean, root = '/skills'): LibraryView {
  const roots: LibraryView['roots'] = [{ path: root, kind: 'project' }];
  return { roots, skills: [], shadowed: [], problems: [], load_ms: 0, target: 'agentskills', checking, generation };
}

describe('supersedes', () => {
  it('takes the first view', () => {
    expect(supersedes(view(1, true), null)).toBe(true);
  });

  it('keeps the checked counts when the opening answer arrives after them', () => {
    const checked = view(3, false);
    expect(supersedes(view(3, true), checked)).toBe(false);
    expect(supersedes(checked, view(3, true))).toBe(true);
  });

  it('takes a later reading, checked or not, and never an earlier one', () => {
    expect(supersedes(view(4, true), view(3, false))).toBe(true);
    expect(supersedes(view(2, false), view(3, true))).toBe(false);
  });

  it('takes the same reading again (a window asking for the startup view twice)', () => {
    expect(supersedes(view(3, false), view(3, false))).toBe(true);
    expect(supersedes(view(3, true), view(3, true))).toBe(true);
  });
});

describe('stillShown', () => {
  it('holds for the reading shown, or when nothing is shown', () => {
    expect(stillShown(view(3, true), null)).toBe(true);
    expect(stillShown(view(3, true), view(3, false))).toBe(true);
  });

  it('holds for an earlier reading of the same library (a change on disk was read first)', () => {
    expect(stillShown(view(3, true), view(4, false))).toBe(true);
  });

  it('fails for an answer another library overtook', () => {
    expect(stillShown(view(3, true, '/a'), view(4, true, '/b'))).toBe(false);
    expect(stillShown(view(3, true, '/a'), { ...view(4, true, '/a'), roots: [] })).toBe(false);
  });
});
