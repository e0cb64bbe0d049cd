//! Skill packs: reproducible export, verification and safe import.
//!
//! A pack is a zip with one top-level folder per skill, named after the skill,
//! holding its files: the layout Claude's skill upload expects, and the one
//! Anthropic's skill-creator writes as `NAME.skill`. A pack of several skills
//! also carries `hone-pack.json` ([`manifest`]) with a SHA-256 per file and
//! each skill's token cost per disclosure stage; a one-skill upload zip
//! carries nothing extra unless asked, because an upload takes the zip as is.
//!
//! # Why exports are reproducible
//!
//! A pack is something people check in, sign, publish and diff. If the same
//! skills gave a different zip on another machine (another file order, the
//! checkout's modification times, another deflate implementation), no one
//! could tell an innocent rebuild from a tampered one. So [`export`] sorts
//! entries by path (the manifest first), stamps every entry with one fixed
//! time (`SOURCE_DATE_EPOCH` when set, else 1980-01-01 00:00:00, the zip
//! epoch; see [`timestamp`]), keeps only the executable bit of permissions
//! (0644 or 0755, Unix host), and compresses with flate2's pinned pure-Rust
//! backend (miniz_oxide) at level 6. Same input, same bytes, anywhere.
//!
//! # Why exports are gated
//!
//! A pack travels: a skill with an error-level finding would fail its upload
//! or mislead the agent that loads it. The chosen target's validation runs
//! first and its errors stop the export unless the caller allows them;
//! symlinks that leave the skill are findings of their own ([`select`]).
//!
//! # Why imports are paranoid
//!
//! A zip is untrusted input: names can climb out of the target folder
//! (`../`, `/etc`, `C:\`, `a\..\..`), entries can be symlinks, duplicates that
//! overwrite each other, names only a case-sensitive disk keeps apart, or a
//! few kilobytes that inflate to terabytes. [`plan_import`] and [`import`]
//! reject every such pack with the reasons and write nothing: the pack is
//! checked from its central directory first, then extracted into a
//! temporary folder beside the destination, each file's size and checksum
//! checked as it is written, and only when everything checked out is each
//! skill moved into place with a rename. An existing skill is replaced only
//! when the caller forces it, and then by rename too, never merged.

mod export;
mod import;
pub mod install;
pub mod lock;
pub mod manifest;
mod names;
pub mod plugin;
pub mod provenance;
mod reader;
pub mod select;
pub mod timestamp;
mod tree;
pub mod version;
pub mod well_known;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use export::{
    BuiltPack, ExportOptions, ExportProgress, ExportReport, ExportedSkill, build, export,
};
pub use import::{
    ImportAction, ImportOptions, ImportPlan, ImportReport, PackedSkill, PlannedSkill,
    VerifyOptions, VerifyReport, import, plan_import, scan_pack, verify,
};
pub use manifest::{MANIFEST_FILE, Manifest, ManifestFile, ManifestSkill, StageTokens};

use crate::diagnostic::Diagnostic;
use crate::library::LibraryError;

/// What [`export`] writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum PackFormat {
    /// `NAME.zip`: one or more skills.
    #[default]
    Zip,
    /// `NAME.skill`: exactly one skill, the skill-creator convention.
    Skill,
}

impl PackFormat {
    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            PackFormat::Zip => "zip",
            PackFormat::Skill => "skill",
        }
    }
}

/// What a pack may expand to before it is refused as a zip bomb.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Entries (files and folders), as the central directory declares them.
    pub max_entries: usize,
    /// Total uncompressed bytes.
    pub max_total_size: u64,
    /// Uncompressed bytes of one entry.
    pub max_entry_size: u64,
    /// Uncompressed over compressed size, for entries of at least
    /// [`Limits::RATIO_CHECKED_FROM`] bytes and for the pack as a whole.
    pub max_ratio: u64,
}

impl Limits {
    /// Smaller entries may compress as well as they like: a short run of
    /// blank lines deflates a thousandfold and harms no one.
    pub const RATIO_CHECKED_FROM: u64 = 1 << 20;
}

impl Default for Limits {
    /// Generous for skills (the largest real libraries are a few thousand
    /// files and tens of megabytes) and small against a disk.
    fn default() -> Self {
        Limits {
            max_entries: 20_000,
            max_total_size: 1 << 30,
            max_entry_size: 256 << 20,
            max_ratio: 200,
        }
    }
}

/// Why a pack is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum RejectionKind {
    /// The file is not a readable zip, or its headers disagree.
    Corrupt,
    /// A `..` component.
    PathEscape,
    /// A leading `/`, or a drive letter.
    AbsolutePath,
    /// A `\`, a separator on Windows.
    Backslash,
    NulInName,
    /// `CON`, `NUL`, `COM1` and the other Windows device names.
    ReservedName,
    /// Any other name some system cannot hold.
    InvalidName,
    NotUtf8,
    Symlink,
    /// A pipe, socket or device entry.
    SpecialFile,
    /// The same name twice, or a name that is both a file and a folder.
    DuplicateEntry,
    /// Two names that differ only in letter case.
    CaseCollision,
    TooManyEntries,
    TooLarge,
    CompressionRatio,
    Encrypted,
    UnsupportedCompression,
    /// An entry that inflates to another size than it declares.
    SizeMismatch,
    /// A file whose content differs from the manifest's checksum.
    ChecksumMismatch,
    /// The manifest is unreadable, or disagrees with the pack's files.
    Manifest,
    /// Files outside a skill folder, or a folder without `SKILL.md`.
    Layout,
}

/// One reason a pack is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Rejection {
    pub kind: RejectionKind,
    /// The entry it is about, as stored (lossily decoded when not UTF-8).
    pub entry: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.entry {
            Some(entry) => write!(f, "{}: {}", entry.escape_debug(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The findings of one skill, for reports and for a failed gate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillFindings {
    pub name: String,
    pub dir: PathBuf,
    pub findings: Vec<Diagnostic>,
}

#[derive(Debug, thiserror::Error)]
pub enum PackError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error("no skills found in {}", display_paths(.0))]
    NoSkills(Vec<PathBuf>),
    #[error("two skills are named `{name}` ({} and {}); a pack holds one folder per name", first.display(), second.display())]
    DuplicateSkill {
        name: String,
        first: PathBuf,
        second: PathBuf,
    },
    #[error("the skill at {} is named `{name}`, which cannot be a folder name in a pack: {reason}", dir.display())]
    UnsafeSkillName {
        name: String,
        dir: PathBuf,
        reason: String,
    },
    #[error("pack name `{name}` cannot be a file name: {reason}")]
    UnsafePackName { name: String, reason: String },
    #[error("a .skill file holds exactly one skill; {0} were found")]
    SkillFormatNeedsOneSkill(usize),
    #[error("export stopped: {} skill(s) have error-level findings", .0.len())]
    Blocked(Vec<SkillFindings>),
    #[error("SOURCE_DATE_EPOCH is `{0}`, not a whole number of seconds")]
    BadSourceDateEpoch(String),
    #[error("zip: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("pack rejected:\n  {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  "))]
    Rejected(Vec<Rejection>),
    #[error("these skills already exist in {}: {}; nothing was written", destination.display(), names.join(", "))]
    WouldOverwrite {
        destination: PathBuf,
        names: Vec<String>,
    },
    #[error("{} already exists and is not empty; nothing was written (--force replaces it)", .0.display())]
    FolderExists(PathBuf),
    #[error("the manifest cannot be written:\n  {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  "))]
    Manifest(Vec<ManifestProblem>),
    #[error(transparent)]
    Settings(#[from] crate::library_settings::SettingsError),
    #[error("{}: cannot record where the skill came from: {reason}", path.display())]
    Provenance { path: PathBuf, reason: String },
}

/// Something in a library's `package` settings (or the options given) that
/// would make a plugin or marketplace manifest the client refuses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ManifestProblem {
    /// The file the value comes from, when it comes from one.
    pub path: Option<PathBuf>,
    /// 1-based line of the key in that file, when it is found there.
    pub line: Option<usize>,
    /// The key, as a JSON path (`package.author.name`).
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => write!(f, "{}:{line}: ", path.display())?,
            (Some(path), None) => write!(f, "{}: ", path.display())?,
            _ => {}
        }
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

impl PackError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> PackError {
        let path = path.into();
        move |source| PackError::Io { path, source }
    }
}

fn display_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Lowercase hex of a digest.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}
