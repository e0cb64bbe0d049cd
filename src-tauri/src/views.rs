//! The values the commands send to the window.
//!
//! Each is snake_case on the wire, like the engine's types, and derives `specta::Type`: its TypeScript
//! twin in `ui/src/lib/bindings.ts` is generated from it (see [`crate::ipc`]).

use hone_core::catalog::BudgetReport;
use hone_core::clients::{Client, Scope};
use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::eval::{Case, Comparison, Report};
use hone_core::pack::install::InstallReport;
use hone_core::pack::version::Bump;
use hone_core::pack::{ExportReport, ManifestProblem};
use hone_core::rank::highlight::FieldHighlight;
use hone_core::rank::{Explanation, RankerKind};
use hone_core::rules::Target;
use hone_core::rules::compat::SkillCompat;
use hone_core::substitute::Substitution;
use hone_core::workspace::Stamp;
use serde::{Deserialize, Serialize};

/// What the window needs to draw its first frame.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Startup {
    pub library: LibraryView,
    pub recent: Vec<String>,
    pub tokenizers: Vec<String>,
    /// Whether a first start may greet the author (what to try first);
    /// `HONE_NO_FIRST_RUN` turns it off for automation, as browsers'
    /// `--no-first-run` does.
    pub welcome: bool,
}

/// Which root a skill comes from: the opened library, or the optional
/// user-level skills folder it takes priority over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RootKind {
    Project,
    User,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RootView {
    pub path: String,
    pub kind: RootKind,
}

#[derive(Debug, Clone, Default, Serialize, specta::Type)]
pub struct LibraryView {
    pub roots: Vec<RootView>,
    pub skills: Vec<SkillSummary>,
    pub shadowed: Vec<ShadowedView>,
    pub problems: Vec<ProblemView>,
    /// Time to scan and load the library.
    pub load_ms: u64,
    /// Whose rules decide which findings are errors: the library's remembered
    /// target, else the engine's default.
    pub target: Target,
    /// Whether the findings are still being computed (counts are 0 until then).
    pub checking: bool,
    /// Which reading of the library this view shows; a later reading has a
    /// larger number. A command's answer and an event can arrive in either
    /// order, so the window keeps the newest view by this and `checking`.
    pub generation: u64,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SkillSummary {
    pub id: String,
    pub dir_name: String,
    pub dir: String,
    pub path: String,
    /// Index into `LibraryView::roots`.
    pub root: usize,
    pub description: String,
    pub errors: u32,
    pub warnings: u32,
    /// Tokens of what an agent always sees (name and description).
    pub metadata_tokens: u64,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ShadowedView {
    pub id: String,
    pub kept: String,
    pub hidden: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ProblemView {
    pub path: String,
    pub message: String,
}

/// A skill file as read from disk.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SkillFile {
    pub path: String,
    pub text: String,
    pub stamp: Stamp,
}

/// Everything the editor shows about the current text.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Analysis {
    pub diagnostics: Vec<Diagnostic>,
    /// The frontmatter as JSON when it parses as a mapping.
    pub fields: Option<serde_json::Map<String, serde_json::Value>>,
    /// Why the form cannot be used (unclosed frontmatter, broken YAML).
    pub form_blocked: Option<String>,
    pub costs: StageCosts,
    pub description_chars: usize,
    /// Characters of description + when_to_use, which Claude Code caps.
    pub listing_chars: usize,
    /// Per client: loads, loads with changes or refused, and why.
    pub compatibility: SkillCompat,
    /// Time the engine took, in microseconds.
    pub engine_micros: u64,
}

/// Token cost of each loading stage of a skill.
#[derive(Debug, Clone, Default, Serialize, specta::Type)]
pub struct StageCosts {
    pub tokenizer: String,
    pub metadata: u64,
    pub instructions: u64,
    pub resources: u64,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ResourceView {
    pub path: String,
    pub size: u64,
    pub is_text: bool,
    pub tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Preview {
    /// Address of the rendered body for the preview frame.
    pub url: String,
    pub resources: Vec<ResourceView>,
    pub substitutions: Vec<Substitution>,
    /// The message Claude Code adds after a `Skill` call with the example
    /// argument (the session id left as its placeholder).
    pub invocation: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SaveOutcome {
    Saved {
        stamp: Stamp,
    },
    /// The file changed on disk since it was read; nothing was written.
    Conflict {
        disk_text: Option<String>,
        disk_stamp: Option<Stamp>,
    },
}

/// Library-wide token figures for the chosen tokenizer and Claude Code model.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LibraryCosts {
    pub tokenizer: String,
    pub metadata_total: u64,
    /// The model's context window, in tokens.
    pub context_window: u64,
    /// Claude Code's listing for the model, from its client profile.
    pub listing: BudgetReport,
    /// The Claude Code settings files read, in the order applied.
    pub settings_sources: Vec<String>,
    /// Settings that could not be read or understood.
    pub settings_problems: Vec<String>,
}

/// Sent through the watch channel when files of the library change on disk.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LibraryChanged {
    pub library: LibraryView,
    /// The `SKILL.md` files whose content changed, appeared or vanished.
    pub changed: Vec<String>,
}

pub fn count(diagnostics: &[Diagnostic], severity: Severity) -> u32 {
    diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .count() as u32
}

/// A ranking of the library for the test-query panel.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Ranking {
    pub ranker: RankerKind,
    /// The ranker's own threshold (the panel's slider starts there).
    pub default_threshold: f32,
    pub results: Vec<RankedView>,
    /// Where the open skill ranks, when a skill is open.
    pub open: Option<OpenRank>,
    /// Time the engine took to rank, in microseconds.
    pub micros: u64,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RankedView {
    /// 1-based.
    pub rank: usize,
    pub id: String,
    /// The skill's folder (the routing document's key).
    pub key: String,
    pub score: f32,
    pub confidence: f32,
    /// The routing fields, cut at the matched words.
    pub fields: Vec<FieldHighlight>,
    /// The client whose own skill this is, when it is not the library's.
    pub builtin_of: Option<hone_core::clients::Client>,
    pub explanation: Explanation,
}

/// The open skill's rank (1-based, within the top 50) with the editor's text
/// and with the saved file.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct OpenRank {
    pub id: String,
    pub now: Option<usize>,
    pub saved: Option<usize>,
    /// Whether unsaved edits change what the ranker sees.
    pub edited: bool,
}

/// Whether a ranker can be used, and if not, what to do about it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RankerStatus {
    pub kind: RankerKind,
    pub available: bool,
    pub note: Option<String>,
    /// The ranker's threshold, known before its first ranking so the panel
    /// shows it at once (building a semantic ranker can take seconds).
    pub default_threshold: f32,
}

/// The editor's text of the open skill, for rankings that include unsaved edits.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct OpenText {
    pub path: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SuiteSummary {
    pub path: String,
    /// File name relative to the library's `evals/` folder.
    pub label: String,
    pub name: Option<String>,
    pub cases: usize,
    /// Why the file cannot be used, with its position.
    pub error: Option<String>,
    /// YAML suites can be edited in the app; trigger-eval JSON is read-only.
    pub editable: bool,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SuiteView {
    pub path: String,
    pub name: String,
    pub editable: bool,
    pub cases: Vec<Case>,
}

/// A change to one suite file.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuiteEdit {
    Add { case: Case },
    Replace { index: usize, case: Case },
    Remove { index: usize },
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EvalRun {
    pub report: Report,
    /// Against the previous run of the same suite and ranker in this session.
    pub comparison: Option<Comparison>,
    /// Whether unsaved edits of the open skill were part of the run.
    pub with_edits: bool,
}

/// Which skills go into a pack, and in which form.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct ExportRequest {
    /// Skill folders. A plugin, marketplace or well-known index holds the
    /// whole library instead, as `hone pack LIBRARY --format ...` does.
    pub skills: Vec<String>,
    pub format: ExportFormat,
    /// Whose validation gates the export.
    pub target: Target,
    /// The pack file, or the folder a plugin, marketplace or index is written into.
    pub output: String,
    pub allow_errors: bool,
    /// Raise the library's version (and add its changelog entry) first.
    pub bump: Option<Bump>,
    /// Replace the output folder of a plugin, marketplace or index.
    pub replace: bool,
}

/// The forms `hone pack --format` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum ExportFormat {
    Zip,
    Skill,
    Plugin,
    Marketplace,
    WellKnown,
}

/// The result of an export: written, or refused for findings at error level
/// or for a manifest the client would refuse.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExportOutcome {
    Written {
        report: ExportReport,
        bumped: Option<Bumped>,
    },
    /// A plugin, marketplace or well-known folder.
    Folder {
        path: String,
        /// The plugins written (none for an index), each `name@version`.
        plugins: Vec<String>,
        /// Skills, as the client names them (`plugin:skill` in a plugin).
        skills: Vec<String>,
        /// What `claude plugin validate` warns about and accepts.
        warnings: Vec<ManifestProblem>,
        bumped: Option<Bumped>,
    },
    Blocked {
        skills: Vec<BlockedSkill>,
    },
    /// The manifest would be refused by the client; nothing was written.
    Refused {
        problems: Vec<ManifestProblem>,
    },
}

/// A version raised before an export.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Bumped {
    pub from: String,
    pub to: String,
    pub changelog: String,
}

/// What a plugin or marketplace export would meet, before it is written.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExportCheck {
    /// It would pass, with what `claude plugin validate` only warns about.
    Passes {
        warnings: Vec<ManifestProblem>,
    },
    Blocked {
        skills: Vec<BlockedSkill>,
    },
    Refused {
        problems: Vec<ManifestProblem>,
    },
}

/// Where to install skills, and how.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct InstallRequest {
    /// Skill folders of the open library.
    pub skills: Vec<String>,
    pub client: Client,
    pub scope: Scope,
    /// The project folder, for the project scope.
    pub project: Option<String>,
    /// A symlink to the skill instead of a copy.
    pub link: bool,
    /// Record where each copy came from, as `gh skill` does.
    pub provenance: bool,
    /// Replace installed skills of those names that differ.
    pub replace: bool,
}

/// The result of an install or its plan.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InstallOutcome {
    Report { report: InstallReport },
    Blocked { skills: Vec<BlockedSkill> },
}

/// Which installed skills to remove.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct UninstallRequest {
    pub names: Vec<String>,
    pub client: Client,
    pub scope: Scope,
    pub project: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct BlockedSkill {
    pub name: String,
    /// Its `SKILL.md`, for the window to open.
    pub path: String,
    pub findings: Vec<Diagnostic>,
}
