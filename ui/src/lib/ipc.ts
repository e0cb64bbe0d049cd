// The window's only door to the app: typed wrappers of every Tauri command.
// Each type mirrors a Rust type of src-tauri/src/views.rs or hone-core
// (camelCase on the wire where the Rust side renames, snake_case where the
// engine's types are sent as they are). A change there is a change here.

import { Channel, invoke } from '@tauri-apps/api/core';

export type Severity = 'info' | 'warning' | 'error';

export interface Position {
  line: number;
  column: number;
  /** Byte offset in the UTF-8 text. */
  offset: number;
}

export interface Span {
  start: Position;
  end: Position;
}

export interface Edit {
  start: number;
  end: number;
  replacement: string;
}

export interface Fix {
  title: string;
  edits: Edit[];
}

/** hone_core::diagnostic::Diagnostic */
export interface Diagnostic {
  code: string;
  rule: string;
  severity: Severity;
  message: string;
  path: string;
  span: Span;
  help: string | null;
  fix: Fix | null;
}

/** hone_core::workspace::Stamp */
export interface Stamp {
  hash: string;
  len: number;
}

export type RootKind = 'project' | 'user';

export interface RootView {
  path: string;
  kind: RootKind;
}

export interface SkillSummary {
  id: string;
  dirName: string;
  dir: string;
  path: string;
  root: number;
  description: string;
  errors: number;
  warnings: number;
  metadataTokens: number;
}

export interface ShadowedView {
  id: string;
  kept: string;
  hidden: string;
}

export interface ProblemView {
  path: string;
  message: string;
}

export interface LibraryView {
  roots: RootView[];
  skills: SkillSummary[];
  shadowed: ShadowedView[];
  problems: ProblemView[];
  loadMs: number;
}

export interface Startup {
  library: LibraryView;
  recent: string[];
  tokenizers: string[];
}

export interface SkillFile {
  path: string;
  text: string;
  stamp: Stamp;
}

export interface StageCosts {
  tokenizer: string;
  metadata: number;
  instructions: number;
  resources: number;
}

export interface Analysis {
  diagnostics: Diagnostic[];
  fields: Record<string, unknown> | null;
  formBlocked: string | null;
  costs: StageCosts;
  descriptionChars: number;
  listingChars: number;
  engineMicros: number;
}

export interface ResourceView {
  path: string;
  size: number;
  isText: boolean;
  tokens: number | null;
}

export interface Substitution {
  placeholder: string;
  becomes: string;
}

export interface Preview {
  url: string;
  resources: ResourceView[];
  substitutions: Substitution[];
}

export type SaveOutcome =
  | { kind: 'saved'; stamp: Stamp }
  | { kind: 'conflict'; diskText: string | null; diskStamp: Stamp | null };

export interface LibraryCosts {
  tokenizer: string;
  metadataTotal: number;
  contextWindow: number;
  truncated: string[];
}

/** hone_core::edit::FieldValue */
export type FieldValue =
  | { kind: 'text'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'integer'; value: number }
  | { kind: 'list'; value: string[] }
  | { kind: 'remove' };

export interface LibraryChanged {
  library: LibraryView;
  changed: string[];
}

export type AppEvent =
  | { kind: 'libraryChanged'; data: LibraryChanged }
  | { kind: 'closeRequested' };

export const startup = () => invoke<Startup>('startup');

export const openLibrary = (path: string, userRoot: string | null) =>
  invoke<Startup>('open_library', { path, userRoot });

export const forgetRecent = (path: string) => invoke<string[]>('forget_recent', { path });

export const openSkill = (path: string) => invoke<SkillFile>('open_skill', { path });

export const analyze = (path: string, text: string) =>
  invoke<Analysis>('analyze', { path, text });

export const setField = (text: string, key: string, value: FieldValue) =>
  invoke<string>('set_field', { text, key, value });

export const applyFix = (text: string, fix: Fix) => invoke<string>('apply_fix', { text, fix });

export const preview = (path: string, text: string, argument: string) =>
  invoke<Preview>('preview', { path, text, argument });

export const readResource = (path: string) => invoke<string>('read_resource', { path });

export const saveSkill = (path: string, text: string, expected: Stamp | null) =>
  invoke<SaveOutcome>('save_skill', { path, text, expected });

export const createSkill = (root: string, name: string) =>
  invoke<string>('create_skill', { root, name });

export const renameSkill = (dir: string, name: string) =>
  invoke<string>('rename_skill', { dir, name });

export const deleteSkill = (dir: string) => invoke<void>('delete_skill', { dir });

export const libraryCosts = (tokenizer: string, contextWindow: number) =>
  invoke<LibraryCosts>('library_costs', { tokenizer, contextWindow });

export const setDirty = (dirty: boolean) => invoke<void>('set_dirty', { dirty });

export const closeWindow = () => invoke<void>('close_window');

/** Receives library changes and close requests for as long as the window lives. */
export function subscribe(onEvent: (event: AppEvent) => void): Promise<void> {
  const events = new Channel<AppEvent>();
  events.onmessage = onEvent;
  return invoke<void>('subscribe', { events });
}
