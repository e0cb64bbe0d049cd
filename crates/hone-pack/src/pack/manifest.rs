//! `hone-pack.json`: what a multi-skill pack holds, written so that it can be
//! checked.
//!
//! The manifest is the pack's table of contents with a checksum per file, so
//! an importer can tell a pack that was altered or truncated from the one
//! that was exported, and a reader can see what each skill costs without
//! unpacking it. Its JSON is pretty-printed with fields in a fixed order and
//! no absolute paths, times or machine names, so it is byte-identical for the
//! same input on any machine. The shape is documented on [`Manifest`].

use serde::{Deserialize, Serialize};

/// The file name of the manifest, at the root of the zip.
pub const MANIFEST_FILE: &str = "hone-pack.json";

/// The manifest schema this version of Hone writes and reads.
pub const MANIFEST_VERSION: u32 = 1;

/// The manifest of a pack.
///
/// ```json
/// {
///   "manifest_version": 1,
///   "name": "team-skills",
///   "version": "1.2.0",
///   "hone_version": "0.1.0",
///   "skills": [
///     {
///       "name": "pdf",
///       "description": "Extracts text and tables from PDF files. Use when ...",
///       "files": [
///         { "path": "SKILL.md", "size": 2210, "sha256": "9f86d08…" },
///         { "path": "scripts/extract.py", "size": 812, "sha256": "60303ae…", "executable": true }
///       ],
///       "tokens": { "tokenizer": "o200k", "metadata": 48, "instructions": 530, "resources": 1210 }
///     }
///   ]
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Manifest {
    /// The schema version, [`MANIFEST_VERSION`]. A reader refuses a newer one.
    pub manifest_version: u32,
    /// The pack's name: `--name`, else the library folder's name.
    pub name: String,
    /// The pack's version: `--version`, else `0.0.0`.
    pub version: String,
    /// The version of Hone that wrote the pack.
    pub hone_version: String,
    /// One entry per skill, sorted by name; each skill is the zip folder of
    /// that name.
    pub skills: Vec<ManifestSkill>,
}

/// One skill of a pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ManifestSkill {
    /// The skill's name, which is also its folder in the zip.
    pub name: String,
    /// The frontmatter `description`; absent when the skill has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Every file of the skill, `SKILL.md` included, sorted by path.
    pub files: Vec<ManifestFile>,
    /// What the skill costs at each disclosure stage.
    pub tokens: StageTokens,
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ManifestFile {
    /// Relative to the skill's folder, `/`-separated.
    pub path: String,
    /// In bytes.
    pub size: u64,
    /// Lowercase hex SHA-256 of the content.
    pub sha256: String,
    /// Stored with mode 0755 rather than 0644; absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub executable: bool,
}

/// Token counts per disclosure stage, measured with one tokenizer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StageTokens {
    /// The tokenizer the counts were made with; packs use `o200k`, the one
    /// exact offline tokenizer of a current model family.
    pub tokenizer: String,
    /// Stage 1: the skill's entry in the agentskills catalog, its location
    /// written as `NAME/SKILL.md` (the real one depends on where it is installed).
    pub metadata: u64,
    /// Stage 2: the body of `SKILL.md`.
    pub instructions: u64,
    /// Stage 3: the text files beside `SKILL.md` (binary files are not counted).
    pub resources: u64,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Manifest {
    /// The manifest as stored: pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}
