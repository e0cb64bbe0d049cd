// The editing session: the library, the open skill (its text on disk, its
// stamp, what the editor holds), the engine's analysis of that text, the
// preview, and conflicts with changes made on disk. The window's components
// read it from context and call its methods; none of them holds a copy.

import * as ipc from './ipc';
import type { Analysis, AppEvent, FieldValue, Fix, LibraryView, Preview, Progress, SkillSummary, Stamp } from './ipc';
import type { SkillEditor } from './editor';
import { Coalesced } from './coalesce';
import { FORM_TYPING } from './history';
import { stillShown, supersedes } from './readings';
import { firstStart } from './welcome';
import type { Dialogs } from './dialogs.svelte';
import type { Suites } from './suites.svelte';
import { Timings, afterPaint } from './timings.svelte';

export interface OpenSkill {
  path: string;
  dir: string;
  id: string;
  /** The text on disk when last read or saved, and its stamp (`null`: no file). */
  diskText: string;
  stamp: Stamp | null;
}

export interface Conflict {
  /** What is on disk now: `null` when the file was deleted or moved. */
  diskText: string | null;
  diskStamp: Stamp | null;
}

type SkillRef = Pick<SkillSummary, 'path' | 'dir' | 'id'>;

export class Session {
  // Large values the engine sends whole and the window never mutates: raw
  // state, so thousands of skills are not wrapped in reactive proxies.
  library = $state.raw<LibraryView | null>(null);
  recent = $state<string[]>([]);
  tokenizers = $state<string[]>([]);
  current = $state<OpenSkill | null>(null);
  /** What the editor holds. */
  text = $state('');
  analysis = $state.raw<Analysis | null>(null);
  /** The open skill's fields from its last analysis that could read them:
   * shown (read-only) while the YAML is broken, instead of an empty form. */
  private lastGoodFields = $state.raw<{ path: string; fields: Record<string, unknown> } | null>(null);
  /** Counts undo, redo and discard run from outside the editor: a form field being typed in drops its draft. */
  historyMoves = $state(0);
  preview = $state.raw<Preview | null>(null);
  argument = $state('example argument');
  conflict = $state<Conflict | null>(null);
  message = $state<string | null>(null);
  busy = $state<string | null>('Opening the library…');
  /** The engine's progress on a long task (embedding, an eval run, an export). */
  progress = $state<Progress | null>(null);

  /** Whose rules decide which findings are errors: the library's own, remembered with it. */
  readonly target = $derived<ipc.Target>(this.library?.target ?? 'agentskills');

  readonly dirty = $derived(this.current !== null && this.text !== this.current.diskText);
  readonly formFields = $derived(
    this.analysis?.fields ?? (this.lastGoodFields && this.lastGoodFields.path === this.current?.path ? this.lastGoodFields.fields : null),
  );
  /** Every skill identity of the library, sorted, once each (for name completion). */
  readonly skillIds = $derived(this.library ? [...new Set(this.library.skills.map((s) => s.id))].sort() : []);

  readonly timings = new Timings();
  private editor: SkillEditor | null = null;
  /** When the oldest edit not yet analysed was made. */
  private editedAt: number | null = null;
  private readonly analysisRuns = new Coalesced(() => this.analyseOnce());
  private previewTimer: ReturnType<typeof setTimeout> | undefined;
  // Form edits are applied one after another, each to the latest text.
  private edits: Promise<void> = Promise.resolve();

  constructor(
    private readonly dialogs: Dialogs,
    private readonly suites: Suites,
  ) {}

  /** Connects the text editor; the session drives it from then on. */
  attach(editor: SkillEditor): void {
    this.editor = editor;
  }

  /** The editor's change hook: typing, undo, a form edit or a fix changed the text. */
  edited(text: string): void {
    this.editedAt ??= performance.now();
    this.text = text;
    this.scheduleAnalysis();
  }

  /** Opens the library the app was started on; `prepare` runs once it is known, before its first skill opens. */
  async start(prepare: () => Promise<void>): Promise<void> {
    await this.loadLibrary(() => ipc.startup(), prepare);
  }

  async openLibrary(path: string, userRoot: string | null = this.userRoot): Promise<void> {
    this.busy = 'Opening the library…';
    await this.loadLibrary(() => ipc.openLibrary(path, userRoot));
  }

  /** Makes `target` the library's, remembered with it; the library is checked again for it. */
  async setTarget(target: ipc.Target): Promise<void> {
    try {
      await ipc.setLibraryTarget(target);
    } catch (e) {
      this.message = String(e);
    }
  }

  /** The user-level skills folder opened with the library, if any. */
  get userRoot(): string | null {
    return this.library?.roots.find((r) => r.kind === 'user')?.path ?? null;
  }

  private async loadLibrary(load: () => Promise<ipc.Startup>, prepare?: () => Promise<void>): Promise<void> {
    try {
      const s = await load();
      if (supersedes(s.library, this.library)) this.library = s.library;
      this.recent = s.recent;
      this.tokenizers = s.tokenizers;
      await prepare?.();
      // Another library opened meanwhile is the one shown: leave it be.
      if (!stillShown(s.library, this.library)) return;
      this.close();
      await this.suites.refresh();
      if (!stillShown(s.library, this.library)) return;
      if (s.library.skills.length) await this.openSkill(s.library.skills[0]);
      if (s.welcome && !this.dialogs.open && firstStart()) this.dialogs.show({ kind: 'welcome' });
    } catch (e) {
      this.message = String(e);
    } finally {
      this.busy = null;
    }
  }

  /** Nothing open: the editor empties, and nothing of the last skill stays on screen. */
  private close(): void {
    this.current = null;
    this.conflict = null;
    this.analysis = null;
    this.preview = null;
    this.editor?.load('');
    this.text = '';
  }

  private scheduleAnalysis(): void {
    this.analysisRuns.request();
    this.schedulePreview();
  }

  private schedulePreview(): void {
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => void this.refreshPreview(), 250);
  }

  private async analyseOnce(): Promise<void> {
    const editor = this.editor;
    const open = this.current;
    if (!editor || !open) return;
    const snapshot = editor.text;
    try {
      const result = await ipc.analyze(open.path, snapshot);
      // An answer about a text since edited, or another skill, is dropped.
      if (snapshot !== editor.text || open.path !== this.current?.path) return;
      this.analysis = result;
      if (result.fields) this.lastGoodFields = { path: open.path, fields: result.fields };
      editor.showDiagnostics(snapshot, result.diagnostics);
      this.timings.analysisEngineMs = result.engine_micros / 1000;
      afterPaint(this.editedAt, (at) => (this.timings.editToFindingsMs = performance.now() - at));
      this.editedAt = null;
      if (this.timings.readyMs === null) afterPaint(0, () => void this.markReady());
    } catch (e) {
      this.message = String(e);
    }
  }

  private async markReady(): Promise<void> {
    try {
      this.timings.readyMs ??= await ipc.markReady();
    } catch {
      // Only a figure; nothing to tell the author.
    }
  }

  setArgument(value: string): void {
    this.argument = value;
    this.schedulePreview();
  }

  private async refreshPreview(): Promise<void> {
    const open = this.current;
    if (!open || !this.editor) return;
    try {
      const fresh = await ipc.preview(open.path, this.editor.text, this.argument);
      if (open.path === this.current?.path) this.preview = fresh;
    } catch (e) {
      this.message = String(e);
    }
  }

  /** Runs `action` now, or after the author saved or discarded unsaved edits. */
  guardUnsaved(action: () => void): void {
    if (this.dirty) this.dialogs.show({ kind: 'unsaved', then: action });
    else action();
  }

  /** Opens `skill` once unsaved edits are dealt with (nothing when it is already open). */
  select(skill: SkillRef): void {
    if (skill.path !== this.current?.path) this.guardUnsaved(() => void this.openSkill(skill));
  }

  /** Opens the skill whose folder or SKILL.md is `dirOrFile`. */
  openByDir(dirOrFile: string): void {
    const skill = this.library?.skills.find((s) => s.dir === dirOrFile || s.path === dirOrFile);
    if (skill) this.select(skill);
  }

  async openSkill(skill: SkillRef): Promise<void> {
    try {
      const file = await ipc.openSkill(skill.path);
      // Nothing of the previous skill stays on screen: its findings, form
      // values and preview go, and the rankings are redone for this one.
      this.conflict = null;
      this.analysis = null;
      this.preview = null;
      this.current = { path: file.path, dir: skill.dir, id: skill.id, diskText: file.text, stamp: file.stamp };
      this.text = file.text;
      this.editor?.load(file.text);
      this.scheduleAnalysis();
    } catch (e) {
      this.message = String(e);
    }
  }

  async save(): Promise<boolean> {
    const open = this.current;
    if (!open || !this.editor) return false;
    const saving = this.editor.text;
    try {
      const outcome = await ipc.saveSkill(open.path, saving, open.stamp);
      if (outcome.kind === 'saved') {
        this.current = { ...open, diskText: saving, stamp: outcome.stamp };
        this.message = null;
        return true;
      }
      this.conflict = { diskText: outcome.disk_text, diskStamp: outcome.disk_stamp };
    } catch (e) {
      this.message = String(e);
    }
    return false;
  }

  /**
   * A form edit, applied after the ones before it to the latest text. An
   * edit made for a document since replaced (discarded, another skill
   * opened) is dropped, never written into the new one. A `userEvent`
   * other than typing (an applied suggestion) is one undo step of its own.
   */
  editField(key: string, value: FieldValue, userEvent: string = FORM_TYPING): void {
    const editor = this.editor;
    if (!editor) return;
    const generation = editor.generation;
    const typedAt = Date.now();
    this.edits = this.edits.then(async () => {
      if (generation !== editor.generation) return;
      try {
        const edited = await ipc.setField(editor.text, key, value);
        if (generation === editor.generation) editor.replace(edited, userEvent, typedAt);
      } catch (e) {
        this.message = String(e);
      }
    });
  }

  async applyFix(fix: Fix): Promise<void> {
    if (!this.editor) return;
    try {
      this.editor.replace(await ipc.applyFix(this.editor.text, fix), 'input.fix');
    } catch (e) {
      this.message = String(e);
    }
  }

  /** Throws away the unsaved edits: the editor, the form and the findings show the saved file. */
  discard(): void {
    const open = this.current;
    if (!open || !this.editor) return;
    this.editor.load(open.diskText);
    this.text = open.diskText;
    this.analysis = null;
    this.lastGoodFields = null;
    this.historyMoves++;
    this.scheduleAnalysis();
  }

  /**
   * Answers the unsaved-changes question, then does what was asked (open
   * another skill, close the window). The action is taken from the question
   * before it is closed: read afterwards it would be gone.
   */
  async leaveUnsaved(how: 'discard' | 'save'): Promise<void> {
    const question = this.dialogs.open;
    if (question?.kind !== 'unsaved') return;
    if (how === 'discard') this.discard();
    else if (!(await this.save())) return;
    this.dialogs.close();
    question.then();
  }

  undo(): void {
    this.editor?.undo();
    this.historyMoves++;
  }

  redo(): void {
    this.editor?.redo();
    this.historyMoves++;
  }

  /** Moves to the next (or previous) finding in the text. */
  stepProblem(step: 1 | -1): void {
    this.editor?.stepDiagnostic(step);
  }

  /** Applies the quick fix of a finding on the cursor's line, if one has a fix. */
  async fixAtCursor(): Promise<void> {
    const line = this.editor?.cursorLine;
    const fix = this.analysis?.diagnostics.find((d) => d.fix && d.span.start.line <= (line ?? 0) && (line ?? 0) <= d.span.end.line)?.fix;
    if (fix) await this.applyFix(fix);
  }

  focusEditor(): void {
    this.editor?.focus();
  }

  /** Whether the keyboard is in the text editor (whose keys are its own). */
  get editorFocused(): boolean {
    return this.editor?.view.hasFocus ?? false;
  }

  goToLine(line: number): void {
    this.editor?.goToLine(line);
  }

  /** The open skill and its editor text, for rankings and runs that include unsaved edits. */
  openText(): ipc.OpenText | null {
    return this.current && this.editor ? { path: this.current.path, text: this.editor.text } : null;
  }

  /** The app's events but a benchmark's progress (the Benchmark service's). */
  async onAppEvent(event: Exclude<AppEvent, { kind: 'bench_progress' | 'model_install' }>): Promise<void> {
    if (event.kind === 'close_requested') {
      this.dialogs.show({ kind: 'unsaved', then: () => void ipc.closeWindow() });
      return;
    }
    if (event.kind === 'progress') {
      this.progress = event.data;
      return;
    }
    if (supersedes(event.data.library, this.library)) this.library = event.data.library;
    void this.suites.refresh();
    const open = this.current;
    if (!open || !this.editor) return;
    const touched = event.data.changed.some((p) => p === open.path || p.startsWith(open.dir + '/') || open.dir.startsWith(p));
    if (!touched) return;
    let disk: ipc.SkillFile | null = null;
    try {
      disk = await ipc.openSkill(open.path);
    } catch {
      disk = null;
    }
    if (disk && disk.stamp.hash === open.stamp?.hash) return;
    if (!this.dirty && disk) {
      // No unsaved edits: show what is on disk, keeping it undoable.
      this.current = { ...open, diskText: disk.text, stamp: disk.stamp };
      this.editor.replace(disk.text, 'input.reload');
      return;
    }
    this.conflict = { diskText: disk?.text ?? null, diskStamp: disk?.stamp ?? null };
  }

  keepMine(): void {
    if (!this.current || !this.conflict) return;
    // Saving now deliberately replaces their version (or recreates the file).
    this.current = { ...this.current, stamp: this.conflict.diskStamp, diskText: this.conflict.diskText ?? '' };
    this.conflict = null;
    this.dialogs.close();
  }

  takeTheirs(): void {
    const theirs = this.conflict;
    if (!this.current || !theirs?.diskText || !theirs.diskStamp || !this.editor) return;
    this.current = { ...this.current, diskText: theirs.diskText, stamp: theirs.diskStamp };
    this.editor.replace(theirs.diskText, 'input.reload');
    this.conflict = null;
    this.dialogs.close();
  }

  /** Saves the text merged from a conflict: it replaces the version on disk it was merged against (a newer one is a new conflict). */
  async saveMerged(text: string): Promise<boolean> {
    const theirs = this.conflict;
    if (!this.current || !this.editor || !theirs?.diskStamp || theirs.diskText === null) return false;
    this.current = { ...this.current, diskText: theirs.diskText, stamp: theirs.diskStamp };
    this.editor.replace(text, 'input.merge');
    this.conflict = null;
    return this.save();
  }

  showBoth(): void {
    if (this.conflict && this.editor) this.dialogs.show({ kind: 'both', mine: this.editor.text, theirs: this.conflict.diskText ?? '' });
  }

  async createSkill(name: string): Promise<void> {
    if (!this.library) return;
    const path = await ipc.createSkill(this.library.roots[0].path, name);
    this.dialogs.close();
    await this.openSkill({ path, dir: path.replace(/\/SKILL\.md$/, ''), id: name });
  }

  async renameSkill(skill: SkillSummary, name: string): Promise<void> {
    const path = await ipc.renameSkill(skill.dir, name);
    this.dialogs.close();
    await this.openSkill({ path, dir: path.replace(/\/SKILL\.md$/, ''), id: name });
  }

  async deleteSkill(skill: SkillSummary): Promise<void> {
    await ipc.deleteSkill(skill.dir);
    this.dialogs.close();
    if (this.current?.dir === skill.dir) this.close();
  }
}
