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
  /** Whose rules decide which findings are errors: the library's remembered target, else the engine's default. */
  target: Target;
  /** The findings are still being computed; counts are 0 until a `libraryChanged` event. */
  checking: boolean;
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
  /** The open skill's row of the compatibility matrix. */
  compatibility: SkillCompat;
  engineMicros: number;
}

/** hone_core::rules::compat::Verdict */
export type Verdict = 'loads' | 'loads-with-changes' | 'refused';

/** hone_core::rules::compat::CellFinding */
export interface CellFinding {
  code: string;
  message: string;
  line: number;
}

/** hone_core::rules::compat::Cell */
export interface CompatCell {
  verdict: Verdict;
  findings: CellFinding[];
}

/** hone_core::rules::compat::SkillCompat: a cell per client, keyed by target name. */
export interface SkillCompat {
  id: string;
  path: string;
  targets: Record<string, CompatCell>;
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
  listing: BudgetReport;
  settingsSources: string[];
  settingsProblems: string[];
}

/** hone_core::catalog::ListingStatus */
export interface ListingStatus {
  id: string;
  status: 'listed' | 'truncated' | 'name-only' | 'at-risk' | 'unlisted';
  reason: string;
  /** The entry's length in the full listing (UTF-16 units, as the budget counts them); 0 when unlisted. */
  chars: number;
  /** Its length as a bare name. */
  name_chars: number;
  /** Where it starts in the full listing (newlines included). */
  offset: number;
}

/** hone_core::catalog::BudgetReport (the fields the window shows). */
export interface BudgetReport {
  context_window_tokens: number;
  budget_chars: number;
  full_chars: number;
  listed_chars: number;
  over_budget: boolean;
  budget_fraction: number;
  max_desc_chars: number;
  budget_source: 'context-window' | 'SLASH_COMMAND_TOOL_CHAR_BUDGET';
  at_risk: string[];
  min_dropped: number;
  max_dropped: number;
  entries: ListingStatus[];
}

/** hone_core::fields::Reader: who reads a frontmatter key. */
export type FieldReader = 'agentskills' | 'claude-code' | 'claude-api' | 'copilot' | 'routers';

/** hone_core::fields::ValueType, flattened into the field. */
export type FieldType =
  | { type: 'string' }
  | { type: 'text' }
  | { type: 'boolean' }
  | { type: 'integer' }
  | { type: 'enum'; values: string[] }
  | { type: 'list'; split: 'none' | 'whitespace' | 'globs' | 'tools' }
  | { type: 'map' }
  | { type: 'any' };

/** hone_core::fields::Field: one key of the engine's frontmatter table. */
export type FrontmatterField = FieldType & {
  key: string;
  label: string;
  readers: FieldReader[];
  maxChars: number | null;
  /** Claude Code's listing cap on this field and `when_to_use` together. */
  listingChars: number | null;
  suggestions: string[];
  respelled: boolean;
  help: string;
};

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

export interface Progress {
  task: 'embedding' | 'eval' | 'export';
  done: number;
  total: number;
}

export type AppEvent =
  | { kind: 'libraryChanged'; data: LibraryChanged }
  | { kind: 'closeRequested' }
  | { kind: 'progress'; data: Progress };

// ---- Ranking and evals (src-tauri/src/routing.rs, panel.rs; hone_core::rank, hone_core::eval)

export type RankerKind = 'bm25' | 'semantic' | 'hybrid';
export type RoutingField = 'name' | 'description' | 'when_to_use' | 'triggers';

export interface TermMatch {
  term: string;
  query_range: { start: number; end: number };
  token: string;
  field: RoutingField;
  term_frequency: number;
  contribution: number;
  highlights: { start: number; end: number }[];
}

export interface KeywordExplanation {
  terms: TermMatch[];
  unmatched: string[];
  evidence: number;
}

export interface SemanticExplanation {
  similarity: number;
  parts: { field: RoutingField; range: { start: number; end: number }; contribution: number }[];
}

export interface HybridExplanation {
  keyword: KeywordExplanation | null;
  semantic: SemanticExplanation | null;
  keyword_confidence: number;
  token_match: number;
  formula: string;
}

export type Explanation =
  | ({ kind: 'keyword' } & KeywordExplanation)
  | ({ kind: 'semantic' } & SemanticExplanation)
  | ({ kind: 'hybrid' } & HybridExplanation);

export interface Segment {
  text: string;
  hit: boolean;
}

export interface FieldText {
  field: RoutingField;
  segments: Segment[];
  strongestPart: string | null;
}

export interface RankedView {
  rank: number;
  id: string;
  key: string;
  score: number;
  confidence: number;
  fields: FieldText[];
  explanation: Explanation;
}

export interface OpenRank {
  id: string;
  now: number | null;
  saved: number | null;
  edited: boolean;
}

export interface Ranking {
  ranker: RankerKind;
  defaultThreshold: number;
  results: RankedView[];
  open: OpenRank | null;
  micros: number;
}

export interface RankerStatus {
  kind: RankerKind;
  available: boolean;
  note: string | null;
  defaultThreshold: number;
}

export interface OpenText {
  path: string;
  text: string;
}

/** hone_core::eval::Case */
export interface Case {
  query: string;
  expect: string[] | null;
  reject: string[];
  kinds: string[];
  line: number;
}

export interface SuiteSummary {
  path: string;
  label: string;
  name: string | null;
  cases: number;
  error: string | null;
  editable: boolean;
}

export interface SuiteView {
  path: string;
  name: string;
  editable: boolean;
  cases: Case[];
}

export type SuiteEdit =
  | { kind: 'add'; case: Case }
  | { kind: 'replace'; index: number; case: Case }
  | { kind: 'remove'; index: number };

/** hone_core::eval::MetricValues */
export interface MetricValues {
  cases: number;
  positive_cases: number;
  negative_cases: number;
  p_at_1: number | null;
  p_at_3: number | null;
  recall_at_3: number | null;
  hit_at_3: number | null;
  hit_at_5: number | null;
  mrr: number | null;
  accuracy: number | null;
  false_positive_rate: number | null;
  latency_ms_p50: number | null;
  latency_ms_p99: number | null;
}

export interface CaseReport {
  suite: string;
  line: number;
  query: string;
  kinds: string[];
  expect: string[] | null;
  reject: string[];
  first_expected_rank: number | null;
  top: { id: string; score: number; confidence: number }[];
  selected: string[];
  passed: boolean;
  failure: string | null;
  latency_ms: number;
}

/** hone_core::eval::Report (the `hone eval --format json` shape) */
export interface Report {
  suite: string;
  library: string;
  ranker: RankerKind;
  threshold: number;
  metrics: MetricValues & { by_kind: Record<string, MetricValues> };
  cases: CaseReport[];
}

export interface CaseChange {
  suite: string;
  query: string;
  old_passed: boolean;
  new_passed: boolean;
  old_rank: number | null;
  new_rank: number | null;
}

export interface Comparison {
  metrics: Record<string, { old: number | null; new: number | null; delta: number | null }>;
  improved: CaseChange[];
  regressed: CaseChange[];
  only_old: number;
  only_new: number;
}

export interface EvalRun {
  report: Report;
  comparison: Comparison | null;
  withEdits: boolean;
}

export const rankerStatus = () => invoke<RankerStatus[]>('ranker_status');

export const rankQuery = (query: string, ranker: RankerKind, top: number, open: OpenText | null) =>
  invoke<Ranking>('rank_query', { query, ranker, top, open });

export const listSuites = () => invoke<SuiteSummary[]>('list_suites');

export const suiteCases = (path: string) => invoke<SuiteView>('suite_cases', { path });

/** The names no skill of the library answers to (by name or folder name). */
export const unknownSkills = (names: string[]) => invoke<string[]>('unknown_skills', { names });

export const runEval = (path: string, ranker: RankerKind, threshold: number | null, open: OpenText | null) =>
  invoke<EvalRun>('run_eval', { path, ranker, threshold, open });

export const editSuite = (path: string, edit: SuiteEdit) => invoke<SuiteView>('edit_suite', { path, edit });

export const createSuite = (name: string) => invoke<string>('create_suite', { name });

export const importTriggerEvals = (file: string, skill: string, suite: string) =>
  invoke<SuiteView>('import_trigger_evals', { file, skill, suite });

// ---- Packs (src-tauri/src/packs.rs; hone_core::pack)

export type PackFormat = 'zip' | 'skill';
export type Target = 'agentskills' | 'claude-code' | 'claude-api' | 'copilot' | 'all';

export interface ExportRequest {
  skills: string[];
  format: PackFormat;
  target: Target;
  output: string;
  allowErrors: boolean;
}

export interface ExportReport {
  path: string | null;
  format: PackFormat;
  name: string;
  version: string;
  manifest: boolean;
  skills: { name: string; dir: string; files: number; bytes: number }[];
  entries: number;
  size: number;
  sha256: string;
}

export interface BlockedSkill {
  name: string;
  path: string;
  findings: Diagnostic[];
}

export type ExportOutcome =
  | { kind: 'written'; report: ExportReport }
  | { kind: 'blocked'; skills: BlockedSkill[] };

export interface PlannedSkill {
  name: string;
  destination: string;
  action: 'add' | 'replace';
  files: number;
  bytes: number;
  findings: Diagnostic[];
}

export interface ImportPlan {
  pack: string;
  destination: string;
  skills: PlannedSkill[];
  problems: { kind: string; entry: string | null; message: string }[];
  ready: boolean;
}

export interface ImportReport {
  pack: string;
  destination: string;
  skills: PlannedSkill[];
}

export const exportPack = (request: ExportRequest) => invoke<ExportOutcome>('export_pack', { request });

export const planImport = (pack: string, destination: string) =>
  invoke<ImportPlan>('plan_import', { pack, destination });

export const importPack = (pack: string, destination: string, replace: boolean) =>
  invoke<ImportReport>('import_pack', { pack, destination, replace });

export const startup = () => invoke<Startup>('startup');

/** Reports the window usable; answers how long after the app started that was, in ms. */
export const markReady = () => invoke<number>('mark_ready');

export const openLibrary = (path: string, userRoot: string | null) =>
  invoke<Startup>('open_library', { path, userRoot });

export const forgetRecent = (path: string) => invoke<string[]>('forget_recent', { path });

export const openSkill = (path: string) => invoke<SkillFile>('open_skill', { path });

export const analyze = (path: string, text: string) =>
  invoke<Analysis>('analyze', { path, text });

export const frontmatterFields = () => invoke<FrontmatterField[]>('frontmatter_fields');

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

/** Findings per severity. */
export interface Counts {
  error: number;
  warning: number;
  info: number;
}

export interface RuleHealth {
  code: string;
  rule: string;
  counts: Counts;
  /** Indexes into `LibraryHealth.skills`. */
  skills: number[];
}

export interface SkillHealth {
  id: string;
  dir: string;
  path: string;
  counts: Counts;
}

export interface LibraryHealth {
  target: Target;
  totals: Counts;
  rules: RuleHealth[];
  skills: SkillHealth[];
}

export const libraryHealth = (target: Target) => invoke<LibraryHealth>('library_health', { target });
// "Serve this library" (src-tauri/src/serving.rs).

export type ServePhase = 'stopped' | 'starting' | 'running' | 'failed';

/** hone_serve::Answered */
export interface Answered {
  method: string;
  detail: string;
  error: string | null;
  micros: number;
}

export interface ServeLogEntry {
  seq: number;
  atMs: number;
  /** null for a line about the server's life. */
  request: Answered | null;
  text: string;
}

/** A `hone serve --print-config` snippet. */
export interface ServeSnippet {
  client: string;
  label: string;
  how: string;
  text: string;
}

export interface ServeStatus {
  phase: ServePhase;
  url: string | null;
  token: string | null;
  strict: boolean;
  skills: number | null;
  excluded: number | null;
  clients: number | null;
  ranker: RankerKind | null;
  threshold: number | null;
  roots: string[];
  snippets: ServeSnippet[];
  program: string;
  programFound: boolean;
  /** Entries after the `since` asked for, oldest first. */
  log: ServeLogEntry[];
  defaultPort: number;
}

export const serveStart = (port: number, strict: boolean, token: boolean) =>
  invoke<ServeStatus>('serve_start', { port, strict, token });

export const serveStop = () => invoke<ServeStatus>('serve_stop');

export const serveStatus = (since: number) => invoke<ServeStatus>('serve_status', { since });

// Routing diagnostics (src-tauri/src/diagnose.rs). Mirrors, by hand, of
// hone_core::rank::contrast, rank::map, eval::suggest and eval::calibrate.

/** hone_core::rank::contrast::WordMatch */
export interface WordMatch {
  word: string;
  field: RoutingField;
  contribution: number;
}

/** hone_core::rank::contrast::SentenceCloseness */
export interface SentenceCloseness {
  field: RoutingField;
  text: string;
  closeness: number;
}

/** hone_core::rank::contrast::SkillSide */
export interface SkillSide {
  id: string;
  key: string;
  rank: number | null;
  score: number;
  confidence: number;
  words: WordMatch[];
  fields: FieldText[];
  similarity: number | null;
  sentences: SentenceCloseness[];
}

/** hone_core::rank::contrast::Contrast */
export interface Contrast {
  request: string;
  expected: SkillSide;
  other: SkillSide;
  /** The other's confidence minus the expected's: what the expected must gain. */
  margin: number;
  score_margin: number;
  only_expected: string[];
  only_other: string[];
  both: string[];
  neither: string[];
}

/** hone_core::rules::collision::Collision */
export interface Collision {
  first: number;
  second: number;
  first_key: string;
  second_key: string;
  term_similarity: number;
  semantic_similarity: number | null;
  shared: string[];
}

/** hone_core::rank::map::LibraryMap (its projection is not read here). */
export interface LibraryMap {
  points: { id: string; key: string; x: number; y: number }[];
  edges: Collision[];
  request: [number, number] | null;
}

/** hone_core::eval::suggest::Suggestion */
export interface Suggestion {
  change: { kind: 'add' | 'remove'; text: string };
  reason: string;
  before: string;
  after: string;
  training_delta: number;
  held_out_delta: number;
}

/** hone_core::eval::suggest::Suggestions */
export interface Suggestions {
  skill: string;
  training_cases: number;
  held_out_cases: number;
  training_accuracy: number;
  held_out_accuracy: number;
  candidates: Suggestion[];
  rejected: number;
}

/** hone_core::eval::calibrate::ThresholdScore */
export interface ThresholdScore {
  threshold: number;
  accuracy: number | null;
  false_positive_rate: number | null;
}

/** hone_core::eval::calibrate::Calibration */
export interface Calibration {
  ranker: RankerKind;
  cases: number;
  before: ThresholdScore;
  after: ThresholdScore;
}

export const whyLost = (query: string, ranker: RankerKind, expected: string, against: string | null, open: OpenText | null) =>
  invoke<Contrast>('why_lost', { query, ranker, expected, against, open });

export const libraryMap = (ranker: RankerKind, query: string | null, open: OpenText | null) =>
  invoke<LibraryMap>('library_map', { ranker, query, open });

export const suggestEdits = (ranker: RankerKind, skill: string) => invoke<Suggestions>('suggest_edits', { ranker, skill });

export const calibrateThreshold = (ranker: RankerKind) => invoke<Calibration>('calibrate_threshold', { ranker });

// --- health ---

/** Remembers the open library's target (its evals/hone-settings.json); a `libraryChanged` event follows with the library checked for it. */
export const setLibraryTarget = (target: Target) => invoke<void>('set_library_target', { target });
