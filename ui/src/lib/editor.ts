// The CodeMirror text editor: YAML frontmatter over markdown, the engine's
// findings in the gutter and inline, and one undo history that also records
// the form's edits (they arrive as ordinary transactions).

import { defaultKeymap, history, historyKeymap, redo, undo } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { yamlFrontmatter } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic as CmDiagnostic, lintGutter, lintKeymap, setDiagnostics } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState, Transaction } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import type { Diagnostic, Fix } from './ipc';
import { OffsetMap, minimalChange } from './text';

export interface EditorHooks {
  /** The text changed (typing, undo, a form edit, a fix). */
  onChange(text: string): void;
  onSave(): void;
  onFix(fix: Fix): void;
}

export class SkillEditor {
  readonly view: EditorView;
  private readonly hooks: EditorHooks;
  /** Counts documents loaded: an edit computed for an older one must not land in this one. */
  generation = 0;

  constructor(parent: HTMLElement, hooks: EditorHooks) {
    this.hooks = hooks;
    this.view = new EditorView({ parent, state: this.freshState('') });
  }

  private freshState(text: string): EditorState {
    return EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        lintGutter(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        EditorView.lineWrapping,
        yamlFrontmatter({ content: markdown() }),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([
          { key: 'Mod-s', preventDefault: true, run: () => (this.hooks.onSave(), true) },
          ...defaultKeymap,
          ...historyKeymap,
          ...searchKeymap,
          ...lintKeymap,
        ]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) this.hooks.onChange(update.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'SKILL.md text', spellcheck: 'true' }),
      ],
    });
  }

  /** Shows a file just opened or taken from disk: a new history. */
  load(text: string): void {
    this.generation++;
    this.view.setState(this.freshState(text));
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  /**
   * Replaces the text by the smallest edit, as one undoable step. A
   * `userEvent` under `input.type` (the form's typing) joins the history
   * like typing in the editor does: a burst of keystrokes is one step.
   * `at` is when the edit was made (a form keystroke reaches the editor
   * after a round trip to the engine): the history groups by it.
   */
  replace(text: string, userEvent = 'input.form', at = Date.now()): void {
    const change = minimalChange(this.text, text);
    if (!change) return;
    this.view.dispatch({ changes: change, userEvent, annotations: Transaction.time.of(at), scrollIntoView: false });
  }

  undo(): boolean {
    return undo(this.view);
  }

  redo(): boolean {
    return redo(this.view);
  }

  /** Shows the engine's findings, which were computed on `text`. */
  showDiagnostics(text: string, diagnostics: Diagnostic[]): void {
    if (text !== this.text) return; // stale: a newer analysis is on its way
    const offsets = new OffsetMap(text);
    const found: CmDiagnostic[] = diagnostics.map((d) => {
      const from = offsets.toIndex(d.span.start.offset);
      const to = Math.max(from, offsets.toIndex(d.span.end.offset));
      const fix = d.fix;
      return {
        from,
        to,
        severity: d.severity,
        source: `${d.code} ${d.rule}`,
        message: d.help ? `${d.message}\n${d.help}` : d.message,
        actions: fix ? [{ name: fix.title, apply: () => this.hooks.onFix(fix) }] : [],
      };
    });
    this.view.dispatch(setDiagnostics(this.view.state, found));
  }

  focus(): void {
    this.view.focus();
  }

  /** Puts the cursor at the start of 1-based `line` (clamped to the file), in view. */
  goToLine(line: number): void {
    const doc = this.view.state.doc;
    const at = doc.line(Math.min(Math.max(1, line), doc.lines)).from;
    this.view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
    this.view.focus();
  }

  destroy(): void {
    this.view.destroy();
  }
}
