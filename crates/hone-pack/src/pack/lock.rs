//! `skills-lock.json`, the project lockfile of Vercel's `skills` CLI (npm
//! `skills`, read in version 1.7.4's source): which skills a project has
//! installed, from where, and a hash of each skill's folder, so that a
//! project can tell whether an installed skill still matches its source.
//!
//! Hone reads and writes the same file the same way, so a project can mix
//! both tools: version 1, skills keyed by name in sorted order, each entry's
//! fields in the CLI's order (unknown fields kept), `JSON.stringify(_, null,
//! 2)` and a newline; a `local` source is stored relative to the project
//! (`./lib`, `../lib`).
//!
//! # The folder hash
//!
//! [`skill_folder_hash`] is the CLI's `computeSkillFolderHash`: SHA-256 over
//! every regular file of the folder (symlinks are not followed, `.git` and
//! `node_modules` folders at any depth are skipped), in the order of
//! JavaScript's `a.localeCompare(b)` on the `/`-separated relative paths, of
//! each path's UTF-8 bytes followed by the file's bytes, as lowercase hex.
//! `localeCompare` is ICU's collation for the default locale (the Unicode
//! Collation Algorithm with CLDR root order, tertiary strength, punctuation
//! not ignored: `a_b` < `a-b` < `a.b` < `a/b` < `ab` < `B`), which
//! `icu_collator` implements; a byte order would give another hash as soon as
//! a folder mixes cases or punctuation.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use icu_collator::options::CollatorOptions;
use icu_collator::{Collator, CollatorBorrowed};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{PackError, hex};

/// The lockfile's name, at the project root.
pub const LOCK_FILE: &str = "skills-lock.json";
/// The lockfile version this module reads and writes.
pub const LOCK_VERSION: u32 = 1;

/// A whole `skills-lock.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillsLock {
    pub version: u32,
    /// By skill name; sorted, as the CLI writes them.
    pub skills: BTreeMap<String, LockEntry>,
}

impl Default for SkillsLock {
    fn default() -> Self {
        SkillsLock {
            version: LOCK_VERSION,
            skills: BTreeMap::new(),
        }
    }
}

/// One installed skill. Fields in the CLI's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockEntry {
    /// `owner/repo`, a URL, a package name, or for `local` a path relative to
    /// the project.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// The git ref it was installed from.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// `local`, `github`, `git`, `well-known`, `node_modules`...
    pub source_type: String,
    /// Where the skill's `SKILL.md` is inside the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_path: Option<String>,
    /// A package's version, for `node_modules` sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<serde_json::Value>,
    /// [`skill_folder_hash`] of the source skill when it was installed.
    pub computed_hash: String,
    /// `sha256:HEX` of a skill installed from a `.well-known` index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub well_known_digest: Option<String>,
    /// Fields this version does not know, kept as they are.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl SkillsLock {
    /// The lockfile of the project at `root`; an empty one when there is none.
    /// Like the CLI, a `local` source is resolved against `root`.
    pub fn load(root: &Path) -> Result<SkillsLock, PackError> {
        let path = root.join(LOCK_FILE);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(SkillsLock::default());
            }
            Err(source) => return Err(PackError::Io { path, source }),
        };
        serde_json::from_str(&text).map_err(|err| PackError::Io {
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "line {}, column {}: not a skills lockfile: {err}",
                    err.line(),
                    err.column()
                ),
            ),
            path,
        })
    }

    /// Writes the lockfile at `root`, atomically, as the CLI formats it.
    pub fn save(&self, root: &Path) -> Result<PathBuf, PackError> {
        let path = root.join(LOCK_FILE);
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        crate::workspace::write_atomic(&path, text.as_bytes()).map_err(PackError::io(&path))?;
        Ok(path)
    }

    /// The absolute folder of a `local` entry's source.
    pub fn local_source(root: &Path, entry: &LockEntry) -> Option<PathBuf> {
        (entry.source_type == "local").then(|| root.join(&entry.source))
    }
}

/// `source` as the CLI stores a local path: relative to `root`, `/`
/// separated, starting with `./` or `../` (absolute when on another root).
pub fn portable_source(source: &Path, root: &Path) -> String {
    let source = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let Some(relative) = relative_path(&source, &root) else {
        return source.to_string_lossy().replace('\\', "/");
    };
    let relative = relative.to_string_lossy().replace('\\', "/");
    if relative.is_empty() {
        ".".into()
    } else if relative == ".." || relative.starts_with("../") {
        relative
    } else {
        format!("./{relative}")
    }
}

/// `path` relative to `base`, climbing with `..` where needed; `None` when
/// they share no root.
fn relative_path(path: &Path, base: &Path) -> Option<PathBuf> {
    let path: Vec<_> = path.components().collect();
    let base: Vec<_> = base.components().collect();
    if path.first() != base.first() {
        return None;
    }
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut relative = PathBuf::new();
    for _ in common..base.len() {
        relative.push("..");
    }
    for part in &path[common..] {
        relative.push(part);
    }
    Some(relative)
}

/// The `skills` CLI's hash of a skill folder; see the module docs.
pub fn skill_folder_hash(dir: &Path) -> Result<String, PackError> {
    let mut files = Vec::new();
    collect_files(dir, "", &mut files)?;
    let collator = path_collator();
    files.sort_by(|a, b| collator.compare(&a.0, &b.0));
    let mut hash = Sha256::new();
    for (relative, path) in &files {
        hash.update(relative.as_bytes());
        hash.update(fs::read(path).map_err(PackError::io(path))?);
    }
    Ok(hex(&hash.finalize()))
}

/// The collator of JavaScript's `localeCompare` without a locale: CLDR root.
fn path_collator() -> CollatorBorrowed<'static> {
    Collator::try_new(Default::default(), CollatorOptions::default())
        .unwrap_or_else(|err| unreachable!("the root collation is compiled in: {err}"))
}

fn collect_files(
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, PathBuf)>,
) -> Result<(), PackError> {
    for entry in fs::read_dir(dir).map_err(PackError::io(dir))? {
        let entry = entry.map_err(PackError::io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file_type = entry.file_type().map_err(PackError::io(entry.path()))?;
        let relative = format!("{prefix}{name}");
        if file_type.is_dir() {
            if name == ".git" || name == "node_modules" {
                continue;
            }
            collect_files(&entry.path(), &format!("{relative}/"), files)?;
        } else if file_type.is_file() {
            files.push((relative, entry.path()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_sort_as_javascript_locale_compare_does() {
        // The order Node 22's `localeCompare` gives these (checked by hand).
        let expected = [
            "_x.md",
            "#x",
            "~y",
            "$z",
            "10.md",
            "9.md",
            "a b",
            "a_b.md",
            "a-b.md",
            "a.b.md",
            "a.md",
            "A.md",
            "a/b",
            "ab",
            "B.md",
            "e.md",
            "é.md",
            "f.md",
            "scripts/a.py",
            "SKILL.md",
        ];
        let mut shuffled: Vec<&str> = expected.iter().rev().copied().collect();
        let collator = path_collator();
        shuffled.sort_by(|a, b| collator.compare(a, b));
        assert_eq!(shuffled, expected);
    }

    #[test]
    fn local_sources_are_stored_relative_to_the_project() {
        let root = Path::new("/work/project");
        assert_eq!(
            portable_source(Path::new("/work/project/lib"), root),
            "./lib"
        );
        assert_eq!(portable_source(Path::new("/work/lib"), root), "../lib");
        assert_eq!(portable_source(root, root), ".");
    }

    #[test]
    fn the_lockfile_round_trips_with_unknown_fields_and_the_clis_field_order() {
        let text = r#"{
  "version": 1,
  "skills": {
    "hello": {
      "source": "owner/repo",
      "ref": "main",
      "sourceType": "github",
      "skillPath": "skills/hello/SKILL.md",
      "via": "x",
      "computedHash": "abc",
      "subagents": [
        "a"
      ]
    }
  }
}
"#;
        let lock: SkillsLock = serde_json::from_str(text).unwrap();
        let mut written = serde_json::to_string_pretty(&lock).unwrap();
        written.push('\n');
        assert_eq!(written, text);
    }
}
