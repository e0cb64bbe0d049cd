//! The values the commands send to the window.
//!
//! `ui/src/lib/ipc.ts` mirrors every type here field for field (camelCase on
//! the wire); a change here is a change there.

use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::workspace::Stamp;
use serde::{Deserialize, Serialize};

/// What the window needs to draw its first frame.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Startup {
    pub library: LibraryView,
    pub recent: Vec<String>,
    pub tokenizers: Vec<String>,
}

/// Which root a skill comes from: the opened library, or the optional
/// user-level skills folder it takes priority over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RootKind {
    Project,
    User,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootView {
    pub path: String,
    pub kind: RootKind,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LibraryView {
    pub roots: Vec<RootView>,
    pub skills: Vec<SkillSummary>,
    pub shadowed: Vec<ShadowedView>,
    pub problems: Vec<ProblemView>,
    /// Time to scan, load and check the library.
    pub load_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
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

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShadowedView {
    pub id: String,
    pub kept: String,
    pub hidden: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProblemView {
    pub path: String,
    pub message: String,
}

/// A skill file as read from disk.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillFile {
    pub path: String,
    pub text: String,
    pub stamp: Stamp,
}

/// Everything the editor shows about the current text.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub diagnostics: Vec<Diagnostic>,
    /// The frontmatter as JSON when it parses as a mapping.
    pub fields: Option<serde_json::Value>,
    /// Why the form cannot be used (unclosed frontmatter, broken YAML).
    pub form_blocked: Option<String>,
    pub costs: StageCosts,
    pub description_chars: usize,
    /// Characters of description + when_to_use, which Claude Code caps.
    pub listing_chars: usize,
    /// Time the engine took, in microseconds.
    pub engine_micros: u64,
}

/// Token cost of each loading stage of a skill.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StageCosts {
    pub tokenizer: String,
    pub metadata: u64,
    pub instructions: u64,
    pub resources: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceView {
    pub path: String,
    pub size: u64,
    pub is_text: bool,
    pub tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Substitution {
    pub placeholder: String,
    pub becomes: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// Address of the rendered body for the preview frame.
    pub url: String,
    pub resources: Vec<ResourceView>,
    pub substitutions: Vec<Substitution>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SaveOutcome {
    Saved {
        stamp: Stamp,
    },
    /// The file changed on disk since it was read; nothing was written.
    #[serde(rename_all = "camelCase")]
    Conflict {
        disk_text: Option<String>,
        disk_stamp: Option<Stamp>,
    },
}

/// Library-wide token figures for the chosen tokenizer and context window.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LibraryCosts {
    pub tokenizer: String,
    pub metadata_total: u64,
    pub context_window: u64,
    /// Skills whose descriptions do not fit Claude Code's listing budget.
    pub truncated: Vec<String>,
}

/// Sent through the watch channel when files of the library change on disk.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
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
