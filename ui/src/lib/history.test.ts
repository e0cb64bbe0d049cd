import { describe, expect, it } from 'vitest';
import { history, undoDepth } from '@codemirror/commands';
import { EditorState, Transaction } from '@codemirror/state';
import { FORM_TYPING } from './history';

/** Types `keys` at the end of `license: MIT`, one transaction a key, `gap` ms apart. */
function typed(keys: string, gap: number, userEvent: string): number {
  let state = EditorState.create({ doc: 'license: MIT', extensions: history() });
  let at = 1_000_000;
  for (const key of keys) {
    const end = state.doc.length;
    state = state.update({ changes: { from: end, insert: key }, userEvent, annotations: Transaction.time.of(at) }).state;
    at += gap;
  }
  return undoDepth(state);
}

describe('form typing in the undo history', () => {
  it('is one step for a burst, like typing in the editor', () => {
    expect(typed(' extra words', 50, FORM_TYPING)).toBe(1);
    expect(typed(' extra words', 50, 'input.type')).toBe(1);
  });

  it('breaks at a pause, like typing in the editor', () => {
    expect(typed(' ab', 2_000, FORM_TYPING)).toBe(3);
  });

  it('is one step a keystroke under a user event the history does not join', () => {
    expect(typed(' ab', 50, 'input.form')).toBe(3);
  });
});
