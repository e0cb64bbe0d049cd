//! Publishing skills on the web: `/.well-known/agent-skills/index.json`, the
//! discovery index proposed for agentskills.io (PR #254, schema 0.2.0) and
//! read by Vercel's `skills` CLI (`npx skills add https://example.com`).
//!
//! Each entry names a skill, its `description`, a `type` (`skill-md`: the
//! `SKILL.md` alone; `archive`: a zip of the skill folder with `SKILL.md` at
//! its root), a `url` relative to the index, and the `digest` of the file it
//! points to (`sha256:HEX`). The CLI drops, without a word, an entry whose
//! name is not `a-z0-9-` (1 to 64, no leading, trailing or double hyphen) or
//! whose description is empty or longer than 1,024 characters, so Hone
//! refuses to write one. Archives are written like packs (sorted entries, one
//! fixed time, deflate 6): the same skills give the same bytes and digests.
//!
//! [`import_index`] reads such an index from a local file (Hone fetches
//! nothing): each file's digest is checked, and archives go through
//! [`super::import`]'s checks before anything is written.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::export::{self, ExportOptions};
use super::tree::Staging;
use super::{ImportOptions, ImportReport, ManifestProblem, PackError, hex, names, timestamp};

/// Where the index and its files go, under the site root.
pub const WELL_KNOWN_DIR: &str = ".well-known/agent-skills";
pub const INDEX_FILE: &str = "index.json";
/// The `$schema` of a version 0.2.0 index.
pub const DISCOVERY_SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WellKnownIndex {
    #[serde(rename = "$schema")]
    pub schema: String,
    pub skills: Vec<WellKnownEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WellKnownEntry {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: EntryKind,
    pub description: String,
    /// Relative to the index.
    pub url: String,
    /// `sha256:HEX` of the file at `url`.
    pub digest: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryKind {
    SkillMd,
    Archive,
}

/// What a well-known export wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WellKnownReport {
    /// The `.well-known/agent-skills` folder.
    pub path: PathBuf,
    pub index: WellKnownIndex,
}

/// Writes `OUTPUT/.well-known/agent-skills/` for the skills of `inputs`: the
/// index, and for each skill its `SKILL.md` (a skill of one file) or a zip.
/// Only that folder is replaced, and only with `force`.
pub fn export_well_known(
    inputs: &[PathBuf],
    output: &Path,
    options: &ExportOptions,
    force: bool,
) -> Result<WellKnownReport, PackError> {
    let time = timestamp::zip_time(timestamp::resolve_epoch(options.epoch)?);
    let plan = export::plan(inputs, options, &|_| Vec::new())?;
    let mut problems = Vec::new();
    for planned in &plan.skills {
        let skill = &planned.skill;
        let problem = |key: &str, message: String| ManifestProblem {
            path: Some(skill.path.clone()),
            line: skill
                .yaml_root()
                .and_then(|root| root.entry(key))
                .map(|(k, _)| skill.lines.position(skill.text(), k.span.start).line as usize),
            key: key.to_owned(),
            message,
        };
        if !is_index_name(&skill.id) {
            problems.push(problem(
                "name",
                format!(
                    "`{}` cannot be listed: an index name is 1 to 64 of a-z, 0-9 and single inner hyphens",
                    skill.id
                ),
            ));
        }
        let description = skill.meta.description.as_deref().unwrap_or("");
        if description.trim().is_empty() || description.chars().count() > 1024 {
            problems.push(problem(
                "description",
                "an index entry needs a description of 1 to 1,024 characters".into(),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(PackError::Manifest(problems));
    }
    let destination = output.join(WELL_KNOWN_DIR);
    let staging = Staging::new(&destination)?;
    let mut entries = Vec::new();
    for planned in &plan.skills {
        let name = planned.skill.id.clone();
        let only_skill_md = planned.files.len() == 1;
        let (kind, url, bytes) = if only_skill_md {
            let bytes = fs::read(&planned.files[0].file.source)
                .map_err(PackError::io(&planned.files[0].file.source))?;
            (EntryKind::SkillMd, format!("{name}/SKILL.md"), bytes)
        } else {
            (
                EntryKind::Archive,
                format!("{name}.zip"),
                export::zip_skill_at_root(planned, time)?,
            )
        };
        staging.write(&url, &bytes, false)?;
        entries.push(WellKnownEntry {
            description: planned.skill.meta.description.clone().unwrap_or_default(),
            name,
            kind,
            url,
            digest: format!("sha256:{}", hex(&Sha256::digest(&bytes))),
        });
    }
    let index = WellKnownIndex {
        schema: DISCOVERY_SCHEMA.into(),
        skills: entries,
    };
    let mut json = serde_json::to_vec_pretty(&index).unwrap_or_default();
    json.push(b'\n');
    staging.write(INDEX_FILE, &json, false)?;
    let path = staging.commit(force)?;
    Ok(WellKnownReport { path, index })
}

/// The `skills` CLI's `isValidSkillName`.
fn is_index_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// An index's skills, each read, checked against its digest and wrapped as
/// a pack of one skill folder in a temporary folder (removed when this is
/// dropped), ready to be scanned and imported.
pub struct StagedIndex {
    _temp: tempfile::TempDir,
    /// Each skill's name and its one-skill pack.
    pub packs: Vec<(String, std::path::PathBuf)>,
}

/// Imports the skills an index file lists into `destination`, reading the
/// files it points to beside it. Refused, with nothing written: a URL that
/// is not a relative path inside the index's folder, a digest that does not
/// match, and whatever [`super::import`] refuses in an archive.
pub fn import_index(
    index_path: &Path,
    destination: &Path,
    options: &ImportOptions,
) -> Result<Vec<ImportReport>, PackError> {
    import_staged(&stage_index(index_path)?, destination, options)
}

/// Reads an index and the files it lists, refusing a URL outside the
/// index's folder or a digest that does not match, and stages each skill as
/// a pack of one folder (see [`StagedIndex`]). Nothing is written outside a
/// temporary folder.
pub fn stage_index(index_path: &Path) -> Result<StagedIndex, PackError> {
    let text = fs::read_to_string(index_path).map_err(PackError::io(index_path))?;
    let index: WellKnownIndex = serde_json::from_str(&text).map_err(|err| {
        PackError::Rejected(vec![super::Rejection {
            kind: super::RejectionKind::Manifest,
            entry: Some(INDEX_FILE.into()),
            message: format!("not a 0.2.0 skills index: {err}"),
        }])
    })?;
    let base = index_path.parent().unwrap_or(Path::new("."));
    let reject = |entry: &WellKnownEntry, message: String| {
        PackError::Rejected(vec![super::Rejection {
            kind: super::RejectionKind::Manifest,
            entry: Some(entry.name.clone()),
            message,
        }])
    };
    // Every file is read and checked before the first skill is written.
    let mut files = Vec::new();
    for entry in &index.skills {
        if !is_index_name(&entry.name) {
            return Err(reject(entry, "not a valid skill name".into()));
        }
        if entry.url.contains(':')
            || entry.url.starts_with('/')
            || entry
                .url
                .split('/')
                .any(|part| names::check_component(part).is_err())
        {
            return Err(reject(
                entry,
                format!(
                    "`{}` is not a path inside the index's folder; Hone reads local indexes only",
                    entry.url
                ),
            ));
        }
        let path = base.join(&entry.url);
        let bytes = fs::read(&path).map_err(PackError::io(&path))?;
        let digest = format!("sha256:{}", hex(&Sha256::digest(&bytes)));
        if digest != entry.digest {
            return Err(reject(
                entry,
                format!(
                    "{} has digest {digest}, the index says {}",
                    entry.url, entry.digest
                ),
            ));
        }
        files.push((entry, bytes));
    }
    let temp = tempfile::tempdir().map_err(PackError::io(std::env::temp_dir()))?;
    let mut packs = Vec::new();
    for (entry, bytes) in files {
        // Both kinds become a pack of one skill folder, so that the import's
        // checks and its rename into place apply to each.
        let pack = temp.path().join(format!("{}.zip", entry.name));
        let zipped = match entry.kind {
            EntryKind::SkillMd => zip_under(&entry.name, None, &bytes)?,
            EntryKind::Archive => zip_under(&entry.name, Some(&bytes), &[])?,
        };
        fs::write(&pack, zipped).map_err(PackError::io(&pack))?;
        packs.push((entry.name.clone(), pack));
    }
    Ok(StagedIndex { _temp: temp, packs })
}

/// Imports a staged index's skills into `destination`: refused, with
/// nothing written, when a name is already there (unless forced).
pub fn import_staged(
    staged: &StagedIndex,
    destination: &Path,
    options: &ImportOptions,
) -> Result<Vec<ImportReport>, PackError> {
    let existing: Vec<String> = staged
        .packs
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| fs::symlink_metadata(destination.join(name)).is_ok())
        .collect();
    if !existing.is_empty() && !options.force {
        return Err(PackError::WouldOverwrite {
            destination: destination.to_path_buf(),
            names: existing,
        });
    }
    staged
        .packs
        .iter()
        .map(|(_, pack)| super::import(pack, destination, options))
        .collect()
}

/// A zip holding `name/`: the entries of `archive` moved under it (copied
/// raw, so the import checks them as they were), or `skill_md` as
/// `name/SKILL.md`.
fn zip_under(name: &str, archive: Option<&[u8]>, skill_md: &[u8]) -> Result<Vec<u8>, PackError> {
    use std::io::Cursor;
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    match archive {
        Some(bytes) => {
            let mut source = zip::ZipArchive::new(Cursor::new(bytes))?;
            for i in 0..source.len() {
                let file = source.by_index_raw(i)?;
                let renamed = format!("{name}/{}", file.name()?);
                writer.raw_copy_file_rename(file, renamed)?;
            }
        }
        None => {
            use std::io::Write;
            writer.start_file(
                format!("{name}/SKILL.md"),
                zip::write::SimpleFileOptions::default(),
            )?;
            writer
                .write_all(skill_md)
                .map_err(PackError::io(format!("{name}/SKILL.md")))?;
        }
    }
    Ok(writer.finish()?.into_inner())
}
