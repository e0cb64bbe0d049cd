//! One diagnostic type for every finding the engine reports.
//!
//! Every finding points at exact text: a [`Span`] carries byte offsets into the
//! file it names *and* the 1-based line and column an editor shows, so the CLI,
//! the app's gutter and SARIF output all read the same value. A finding about a
//! whole file points at its first character.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How serious a finding is. Ordered so that `Error > Warning > Info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A point in a text file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in Unicode scalar values (what editors show).
    pub column: u32,
    /// Byte offset from the start of the file.
    pub offset: usize,
}

/// A half-open range of a text file, `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Span {
    pub start: Position,
    pub end: Position,
}

impl Span {
    /// The empty span at the start of a file, for findings about a whole file.
    pub const FILE_START: Span = Span {
        start: Position {
            line: 1,
            column: 1,
            offset: 0,
        },
        end: Position {
            line: 1,
            column: 1,
            offset: 0,
        },
    };

    pub fn byte_range(&self) -> std::ops::Range<usize> {
        self.start.offset..self.end.offset
    }
}

/// One replacement of a byte range of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

/// A safe, mechanical fix: applying every edit yields a file where the finding is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Fix {
    /// What the fix does, in the imperative ("Quote the description").
    pub title: String,
    /// Non-overlapping edits, sorted by `start`.
    pub edits: Vec<Edit>,
}

impl Fix {
    /// Applies the fix to `text`, the content the finding was computed on.
    /// Returns `None` when an edit does not fit the text (it changed since).
    pub fn apply(&self, text: &str) -> Option<String> {
        let mut out = String::with_capacity(text.len());
        let mut cursor = 0;
        for edit in &self.edits {
            if edit.start < cursor
                || edit.end < edit.start
                || edit.end > text.len()
                || !text.is_char_boundary(edit.start)
                || !text.is_char_boundary(edit.end)
            {
                return None;
            }
            out.push_str(&text[cursor..edit.start]);
            out.push_str(&edit.replacement);
            cursor = edit.end;
        }
        out.push_str(&text[cursor..]);
        Some(out)
    }
}

/// A finding of a validation rule (or of loading a skill).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Diagnostic {
    /// The rule's stable code, e.g. `HS001`.
    pub code: String,
    /// The rule's kebab-case name, e.g. `name-format`.
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    /// The file the finding is about (usually the skill's `SKILL.md`).
    pub path: PathBuf,
    pub span: Span,
    /// One line on how to resolve the finding.
    pub help: Option<String>,
    pub fix: Option<Fix>,
}
