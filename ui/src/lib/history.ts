// How edits made outside the editor enter its undo history.

/**
 * The user event of a keystroke in a form field. Under `input.type`, so
 * CodeMirror's history groups a burst of them into one undo step exactly as
 * it groups typing in the editor (same delay, adjacent changes).
 */
export const FORM_TYPING = 'input.type.form';
