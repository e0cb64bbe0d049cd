// The conflict between unsaved edits and a change on disk, as a real diff:
// one editor holding the author's text with each hunk of the version on
// disk shown beside the lines it would replace, and per hunk "Take mine"
// (keep these lines) and "Take theirs" (put the disk's lines back). Nothing
// is written until the author saves the merged text.

import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { yamlFrontmatter } from '@codemirror/lang-yaml';
import { syntaxHighlighting } from '@codemirror/language';
import { getChunks, goToNextChunk, goToPreviousChunk, unifiedMergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { HIGHLIGHT } from './editor';

/** A hunk's button: which side it keeps, named as the conflict banner names them. */
function hunkButton(type: 'accept' | 'reject', action: (e: MouseEvent) => void): HTMLElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = `hunk-${type}`;
  button.textContent = type === 'accept' ? 'Take mine' : 'Take theirs';
  button.title = type === 'accept' ? 'Keep your lines of this hunk' : 'Put back the lines on disk for this hunk';
  button.dataset.testid = type === 'accept' ? 'hunk-take-mine' : 'hunk-take-theirs';
  button.onmousedown = action;
  button.onkeydown = (e) => {
    if (e.key === 'Enter' || e.key === ' ') action(e as unknown as MouseEvent);
  };
  return button;
}

/** Colours of the diff from the design tokens, so the dark theme reads too. */
const THEME = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--bg)', color: 'var(--fg)' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', fontSize: '13px' },
  '.cm-gutters': { backgroundColor: 'var(--code)', color: 'var(--fg-muted)', borderRight: '1px solid var(--line)' },
  '.cm-changedLine': { backgroundColor: 'color-mix(in srgb, var(--success) 14%, transparent)' },
  '.cm-changedText': { background: 'color-mix(in srgb, var(--success) 30%, transparent)' },
  '.cm-deletedChunk': { backgroundColor: 'color-mix(in srgb, var(--danger) 12%, transparent)', paddingTop: '2px' },
  '.cm-deletedChunk del': { textDecoration: 'none', background: 'color-mix(in srgb, var(--danger) 25%, transparent)' },
  '.cm-chunkButtons': { display: 'flex', gap: '4px', margin: '2px 0' },
  // The package's own buttons are white on green and red; these read in both themes.
  '.cm-deletedChunk .cm-chunkButtons button': {
    font: 'inherit',
    fontSize: '11px',
    padding: '0 6px',
    cursor: 'pointer',
    color: 'var(--fg)',
    backgroundColor: 'var(--bg)',
    border: '1px solid var(--line)',
  },
});

/** The merge editor in `parent`: the author's text against the disk's; `onChange` hears every change and the hunks left. */
export function mergeEditor(parent: HTMLElement, mine: string, theirs: string, onChange: (text: string, hunks: number) => void): EditorView {
  const report = (state: EditorState) => onChange(state.doc.toString(), getChunks(state)?.chunks.length ?? 0);
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: mine,
      extensions: [
        lineNumbers(),
        history(),
        EditorView.lineWrapping,
        yamlFrontmatter({ content: markdown() }),
        syntaxHighlighting(HIGHLIGHT),
        unifiedMergeView({ original: theirs, mergeControls: hunkButton, gutter: true }),
        keymap.of([
          { key: 'Alt-ArrowDown', run: goToNextChunk },
          { key: 'Alt-ArrowUp', run: goToPreviousChunk },
          ...defaultKeymap,
          ...historyKeymap,
        ]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged || update.transactions.some((t) => t.effects.length)) report(update.state);
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'Merged text: yours, with the hunks changed on disk' }),
        THEME,
      ],
    }),
  });
  report(view.state);
  return view;
}
