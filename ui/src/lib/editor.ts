// The CodeMirror text editor: YAML frontmatter over markdown, the engine's
// findings in the gutter and inline, and one undo history that also records
// the form's edits (they arrive as ordinary transactions).

import { defaultKeymap, history, historyKeymap, redo, undo } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { yamlFrontmatter } from '@codemirror/lang-yaml';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { type Diagnostic as CmDiagnostic, lintGutter, lintKeymap, nextDiagnostic, previousDiagnostic, setDiagnostics } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState, RangeSetBuilder, StateField, type Text, Transaction } from '@codemirror/state';
import {
  Decoration,
  type DecorationSet,
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import type { Diagnostic, Fix } from './ipc';
import { OffsetMap, minimalChange } from './text';

/**
 * Colours of the highlighting, from the design tokens (app.css), so one
 * style serves the light and the dark theme and is covered by the contrast
 * test. YAML keys are `propertyName` definitions.
 */
export const HIGHLIGHT = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: 'var(--syntax-key)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--syntax-string)' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: 'var(--syntax-number)' },
  { tag: [tags.keyword, tags.typeName, tags.labelName], color: 'var(--syntax-keyword)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--syntax-comment)', fontStyle: 'italic' },
  { tag: tags.heading, color: 'var(--syntax-heading)', fontWeight: '700' },
  { tag: [tags.link, tags.url], color: 'var(--syntax-link)', textDecoration: 'underline' },
  { tag: [tags.processingInstruction, tags.meta, tags.punctuation, tags.separator], color: 'var(--syntax-mark)' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strong, fontWeight: '700' },
  { tag: tags.monospace, fontFamily: 'var(--font-mono)' },
]);

const FRONTMATTER_LINE = Decoration.line({ class: 'cm-frontmatter' });

/** Marks the lines of a closed frontmatter block (`---` to `---`), which are never soft-wrapped. */
function frontmatterLines(doc: Text): DecorationSet {
  if (doc.lines < 2 || doc.line(1).text.trimEnd() !== '---') return Decoration.none;
  for (let n = 2; n <= doc.lines; n++) {
    const text = doc.line(n).text.trimEnd();
    if (text === '---' || text === '...') {
      const builder = new RangeSetBuilder<Decoration>();
      for (let m = 1; m <= n; m++) builder.add(doc.line(m).from, doc.line(m).from, FRONTMATTER_LINE);
      return builder.finish();
    }
  }
  // Not closed (yet): the whole file would count, so nothing is marked.
  return Decoration.none;
}

const frontmatterNoWrap = StateField.define<DecorationSet>({
  create: (state) => frontmatterLines(state.doc),
  update: (lines, tr) => (tr.docChanged ? frontmatterLines(tr.state.doc) : lines),
  provide: (field) => EditorView.decorations.from(field),
});

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
        frontmatterNoWrap,
        yamlFrontmatter({ content: markdown() }),
        syntaxHighlighting(HIGHLIGHT),
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

  /** The 1-based line of the cursor. */
  get cursorLine(): number {
    const state = this.view.state;
    return state.doc.lineAt(state.selection.main.head).number;
  }

  /** Selects the next (or previous) finding after the cursor, wrapping, and focuses the text. */
  stepDiagnostic(step: 1 | -1): void {
    (step === 1 ? nextDiagnostic : previousDiagnostic)(this.view);
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
