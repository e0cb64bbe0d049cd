// The window's only door to the app. The commands and every type they
// exchange are generated from the Rust side into ./bindings.ts (by
// src-tauri/src/ipc.rs; a test fails when it is stale). This facade keeps the
// names the components import, and turns a command's `CommandError` into a
// thrown `CommandFailure` so callers keep using try/catch.

import { Channel } from '@tauri-apps/api/core';
import {
  commands,
  type AppEvent,
  type Cell,
  type CommandError,
  type Field,
  type FieldHighlight,
  type LogEntry,
  type Phase,
  type Reader,
  type Snippet,
  type SourcePosition,
  type ValueType,
} from './bindings';

export type * from './bindings';

// Names the components used before the types were generated, kept so they read
// as what they are in the window.
export type FrontmatterField = Field;
export type FieldType = ValueType;
export type FieldReader = Reader;
export type CompatCell = Cell;
export type FieldText = FieldHighlight;
export type ServeLogEntry = LogEntry;
export type ServeSnippet = Snippet;
export type ServePhase = Phase;

/** `path:line:column`, the way compilers and `hone check` write a place. */
export function positionText(position: SourcePosition): string {
  return `${position.path}:${position.line}:${position.column}`;
}

/**
 * A failed command, thrown. `String(failure)` is what the window shows: the
 * message, after its position when it has one.
 */
export class CommandFailure extends Error {
  readonly kind: CommandError['kind'];
  readonly position: SourcePosition | null;

  /** A plain string is how Tauri itself rejects (an unknown command, a bad argument). */
  constructor(error: CommandError | string) {
    const known: CommandError =
      typeof error === 'string' ? { kind: 'failed', message: error, position: null } : error;
    super(known.message);
    this.name = 'CommandFailure';
    this.kind = known.kind;
    this.position = known.position;
  }

  override toString(): string {
    return this.position ? `${positionText(this.position)}: ${this.message}` : this.message;
  }
}

type Outcome<T> = { status: 'ok'; data: T } | { status: 'error'; error: CommandError };

/** A generated command that answers an outcome, as one that throws its error. */
function throwing<A extends unknown[], T>(
  command: (...args: A) => Promise<Outcome<T>>,
): (...args: A) => Promise<T> {
  return async (...args) => {
    const outcome = await command(...args);
    if (outcome.status === 'error') throw new CommandFailure(outcome.error);
    return outcome.data;
  };
}

export const startup = throwing(commands.startup);
export const libraryHealth = throwing(commands.libraryHealth);
/** Reports the window usable; answers how long after the app started that was, in ms. */
export const markReady = commands.markReady;
export const openLibrary = throwing(commands.openLibrary);
export const forgetRecent = commands.forgetRecent;
export const openSkill = throwing(commands.openSkill);
export const analyze = throwing(commands.analyze);
export const frontmatterFields = commands.frontmatterFields;
export const setField = throwing(commands.setField);
export const applyFix = throwing(commands.applyFix);
export const preview = throwing(commands.preview);
export const readResource = throwing(commands.readResource);
export const saveSkill = throwing(commands.saveSkill);
export const createSkill = throwing(commands.createSkill);
export const renameSkill = throwing(commands.renameSkill);
export const deleteSkill = throwing(commands.deleteSkill);
export const libraryCosts = throwing(commands.libraryCosts);
export const libraryStageCosts = throwing(commands.libraryStageCosts);
export const setDirty = commands.setDirty;
export const closeWindow = throwing(commands.closeWindow);

/** Receives library changes and close requests for as long as the window lives. */
export function subscribe(onEvent: (event: AppEvent) => void): Promise<void> {
  const events = new Channel<AppEvent>();
  events.onmessage = onEvent;
  return commands.subscribe(events);
}

// Ranking and evals.
export const rankerStatus = commands.rankerStatus;
export const rankQuery = throwing(commands.rankQuery);
/** Lets a client's own skills compete beside the library's in rankings and eval runs (null: the library alone). */
export const setCompetingBuiltins = throwing(commands.setCompetingBuiltins);
export const listSuites = commands.listSuites;
export const suiteCases = throwing(commands.suiteCases);
/** The names no skill of the library answers to (by name or folder name). */
export const unknownSkills = commands.unknownSkills;
export const runEval = throwing(commands.runEval);
export const editSuite = throwing(commands.editSuite);
export const createSuite = throwing(commands.createSuite);
export const importTriggerEvals = throwing(commands.importTriggerEvals);

// Packs.
export const exportPack = throwing(commands.exportPack);
export const planImport = throwing(commands.planImport);
/** Every skill of a pack scanned for security before import (as `hone unpack` shows them). */
export const packSecurity = throwing(commands.packSecurity);
/** Imports a pack; a dangerous skill only when named in `dangerous` (as `hone unpack --allow-dangerous`). */
export const importPack = throwing(commands.importPack);
/** What `claude plugin validate` would refuse in a plugin or marketplace export, before it is written. */
export const checkExport = throwing(commands.checkExport);

// "Install into…": the engine's plan (a dry run), the install, the uninstall (as `hone install`).
export const planInstall = throwing(commands.planInstall);
export const installSkills = throwing(commands.installSkills);
export const uninstallSkills = throwing(commands.uninstallSkills);

// Security: every skill of the open library scanned (as `hone scan`).
export const librarySecurity = throwing(commands.librarySecurity);

// "Serve this library".
export const serveStart = throwing(commands.serveStart);
export const serveStop = commands.serveStop;
export const serveStatus = commands.serveStatus;

// Routing diagnostics.
export const whyLost = throwing(commands.whyLost);
export const libraryMap = throwing(commands.libraryMap);
export const suggestEdits = throwing(commands.suggestEdits);
export const calibrateThreshold = throwing(commands.calibrateThreshold);

// Named runs and the pinned baseline of the Evals tab.
export const listNamedRuns = throwing(commands.listNamedRuns);
export const saveNamedRun = throwing(commands.saveNamedRun);
export const deleteNamedRun = throwing(commands.deleteNamedRun);
export const compareWithBaseline = throwing(commands.compareWithBaseline);

// The agent ranker in the app (src-tauri/src/agent.rs; hone_core::agent).
export const agentProviders = throwing(commands.agentProviders);
/** Sends a key inward to the OS keyring (or this session's memory); it never comes back. */
export const agentSetKey = throwing(commands.agentSetKey);
export const agentForgetKey = throwing(commands.agentForgetKey);
export const agentPreview = throwing(commands.agentPreview);
export const agentRunEval = throwing(commands.agentRunEval);
export const agentCancel = commands.agentCancel;
export const agentAsk = throwing(commands.agentAsk);

/** Suggestions with the agent's held-out deltas and account, once confirmed. */
export type ConfirmedSuggestions = import('./bindings').Suggestions;
/** What confirming the first suggestions with the chosen agent will send and cost. */
export const confirmPreview = throwing(commands.confirmPreview);
/** The first suggestions re-run on the held-out cases by the chosen agent (the local model by default). */
export const confirmSuggestions = throwing(commands.confirmSuggestions);

// The Benchmark tab: task evals through the real agent (src-tauri/src/bench.rs; hone_core::bench).
export const benchSuites = throwing(commands.benchSuites);
export const benchSuite = throwing(commands.benchSuite);
/** What a benchmark would run, cost and send, before anything is. */
export const benchPreview = throwing(commands.benchPreview);
/** Runs a benchmark; each finished run arrives as a `bench_progress` event. */
export const benchRun = throwing(commands.benchRun);
/** The agent CLIs a benchmark can run here, and why each cannot, if it cannot. */
export const benchAgents = throwing(commands.benchAgents);
export const benchCancel = commands.benchCancel;
/** Installs the default embedding model into the user's cache; steps arrive as `model_install` events. */
export const modelInstall = throwing(commands.modelInstall);
export const modelInstallCancel = commands.modelInstallCancel;
/** Stops the library's embedding in progress; what was embedded stays cached. */
export const embeddingCancel = commands.embeddingCancel;
/** Keeps the suite's last report in evals/bench-runs/ to compare later runs with. */
export const benchKeep = throwing(commands.benchKeep);
/** Appends a task case; refused with `conflict` when the file changed since `stamp`. */
export const benchAddCase = throwing(commands.benchAddCase);

// The Clients tab: what each agent client lists of the library, and a capture
// of the installed client's real listing (src-tauri/src/clients.rs; hone_core::clients).
export const clientsList = throwing(commands.clientsList);
export const clientsVerdicts = throwing(commands.clientsVerdicts);
/** Runs the installed client offline; long (seconds to a minute), cancellable. */
export const clientsCapture = throwing(commands.clientsCapture);
export const clientsCaptureCancel = commands.clientsCaptureCancel;

/** Remembers the open library's target (its evals/hone-settings.json); a `library_changed` event follows with the library checked for it. */
export const setLibraryTarget = throwing(commands.setLibraryTarget);
