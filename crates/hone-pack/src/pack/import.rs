//! Verifying a pack and importing it: the same inspection (list, extract into
//! a temporary folder, match the manifest, validate every skill), then, for
//! an import, a rename of each skill into place. [`scan_pack`] imports into
//! a temporary folder to run the security scan ([`crate::security`]) there.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::manifest::{MANIFEST_FILE, MANIFEST_VERSION, Manifest};
use super::reader::{self, Extracted, Staged};
use super::{Limits, PackError, Rejection, RejectionKind};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{self, Target};
use crate::security;
use crate::skill::Skill;

/// How to verify a pack.
#[derive(Debug, Clone, Copy, Default)]
pub struct VerifyOptions {
    /// Whose validation the skills must pass.
    pub target: Target,
    pub limits: Limits,
}

/// How to import a pack.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    pub target: Target,
    pub limits: Limits,
    /// Replace skills that already exist in the destination.
    pub force: bool,
}

/// One skill found in a pack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackedSkill {
    /// Its folder in the pack.
    pub name: String,
    pub files: usize,
    /// Uncompressed.
    pub bytes: u64,
    /// Validation findings; paths are relative to the pack (`pdf/SKILL.md`).
    pub findings: Vec<Diagnostic>,
}

/// What `hone pack --verify` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    pub pack: PathBuf,
    /// No problem and no error-level finding.
    pub ok: bool,
    pub manifest: Option<Manifest>,
    pub skills: Vec<PackedSkill>,
    /// Why the pack cannot be trusted or imported; empty when it can.
    pub problems: Vec<Rejection>,
}

/// What importing a skill does at its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum ImportAction {
    /// No skill of that name is there yet.
    Add,
    /// A skill (or file) of that name is there and is replaced; only with `force`.
    Replace,
}

/// One skill of an import, planned or done.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PlannedSkill {
    pub name: String,
    /// The folder it is (or would be) written to.
    pub destination: PathBuf,
    pub action: ImportAction,
    pub files: usize,
    pub bytes: u64,
    /// Validation findings, with paths at the destination.
    pub findings: Vec<Diagnostic>,
}

/// A dry run of an import: what it would add and replace, and whether it can
/// go ahead.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ImportPlan {
    pub pack: PathBuf,
    pub destination: PathBuf,
    pub manifest: Option<Manifest>,
    pub skills: Vec<PlannedSkill>,
    /// Why the pack is refused; empty when it is not.
    pub problems: Vec<Rejection>,
    /// No problem, and nothing to replace unless `force` was given.
    pub ready: bool,
}

/// What an import wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ImportReport {
    pub pack: PathBuf,
    pub destination: PathBuf,
    pub skills: Vec<PlannedSkill>,
}

/// Checks a pack: its listing and limits, its manifest's checksums, its
/// layout, and the validation of every skill. Only I/O on the pack file or
/// the temporary folder is an error; everything wrong with the pack is in the
/// report.
pub fn verify(pack: &Path, options: &VerifyOptions) -> Result<VerifyReport, PackError> {
    let inspection = inspect(pack, &options.limits, options.target, &std::env::temp_dir())?;
    let ok = inspection.problems.is_empty()
        && !inspection
            .skills
            .iter()
            .flat_map(|s| &s.findings)
            .any(|d| d.severity == Severity::Error);
    Ok(VerifyReport {
        pack: pack.to_path_buf(),
        ok,
        manifest: inspection.manifest,
        skills: inspection.skills,
        problems: inspection.problems,
    })
}

/// What [`import`] would do, without writing anything beside `destination`
/// (the pack is inspected in the system's temporary folder).
pub fn plan_import(
    pack: &Path,
    destination: &Path,
    options: &ImportOptions,
) -> Result<ImportPlan, PackError> {
    let inspection = inspect(pack, &options.limits, options.target, &std::env::temp_dir())?;
    let skills = planned_skills(&inspection.skills, destination);
    let replaces = skills.iter().any(|s| s.action == ImportAction::Replace);
    Ok(ImportPlan {
        pack: pack.to_path_buf(),
        destination: destination.to_path_buf(),
        ready: inspection.problems.is_empty() && (options.force || !replaces),
        manifest: inspection.manifest,
        skills,
        problems: inspection.problems,
    })
}

/// Imports the skills of `pack` into `destination` (created if missing). The
/// pack is extracted into a temporary folder beside `destination` and every
/// check must pass before the first skill is moved into place; existing
/// skills are replaced only with `force`. Validation findings are reported,
/// not enforced: a skill with errors can be imported to be repaired.
pub fn import(
    pack: &Path,
    destination: &Path,
    options: &ImportOptions,
) -> Result<ImportReport, PackError> {
    let staging_parent = nearest_existing_ancestor(destination);
    let inspection = inspect(pack, &options.limits, options.target, &staging_parent)?;
    if !inspection.problems.is_empty() {
        return Err(PackError::Rejected(inspection.problems));
    }
    let skills = planned_skills(&inspection.skills, destination);
    let replaced: Vec<String> = skills
        .iter()
        .filter(|s| s.action == ImportAction::Replace)
        .map(|s| s.name.clone())
        .collect();
    if !replaced.is_empty() && !options.force {
        return Err(PackError::WouldOverwrite {
            destination: destination.to_path_buf(),
            names: replaced,
        });
    }
    let Some(staged) = inspection.staged else {
        return Err(PackError::Rejected(Vec::new()));
    };
    fs::create_dir_all(destination).map_err(PackError::io(destination))?;
    commit(&staged, &skills, &staging_parent)?;
    Ok(ImportReport {
        pack: pack.to_path_buf(),
        destination: destination.to_path_buf(),
        skills,
    })
}

/// The pack, extracted and checked.
struct Inspection {
    /// Present when extraction got that far.
    staged: Option<Staged>,
    manifest: Option<Manifest>,
    skills: Vec<PackedSkill>,
    problems: Vec<Rejection>,
}

fn inspect(
    pack: &Path,
    limits: &Limits,
    target: Target,
    staging_parent: &Path,
) -> Result<Inspection, PackError> {
    let listing = reader::list(pack, limits)?;
    let mut inspection = Inspection {
        staged: None,
        manifest: None,
        skills: Vec::new(),
        problems: listing.problems.clone(),
    };
    if !inspection.problems.is_empty() {
        return Ok(inspection);
    }
    let staged = reader::stage(pack, &listing, staging_parent)?;
    inspection.problems.extend(staged.problems.iter().cloned());
    if !inspection.problems.is_empty() {
        return Ok(inspection);
    }
    if let Some(bytes) = &staged.manifest {
        match serde_json::from_slice::<Manifest>(bytes) {
            Ok(manifest) => {
                inspection.problems.extend(check_manifest(
                    &manifest,
                    &listing.skills,
                    &staged.files,
                ));
                inspection.manifest = Some(manifest);
            }
            Err(err) => inspection.problems.push(Rejection {
                kind: RejectionKind::Manifest,
                entry: Some(MANIFEST_FILE.into()),
                message: format!("not a Hone pack manifest: {err}"),
            }),
        }
    }
    inspection.skills = listing
        .skills
        .par_iter()
        .map(|name| packed_skill(&staged, name, target))
        .collect::<Result<Vec<_>, PackError>>()?;
    inspection.staged = Some(staged);
    Ok(inspection)
}

/// Loads and validates one staged skill, with finding paths made relative to
/// the pack.
fn packed_skill(staged: &Staged, name: &str, target: Target) -> Result<PackedSkill, PackError> {
    let dir = reader::staged_skill(staged, name);
    let skill = Skill::load(&dir).map_err(PackError::io(&dir))?;
    let mut findings = rules::check_skill(&skill, target);
    for finding in &mut findings {
        if let Ok(relative) = finding.path.strip_prefix(staged.dir.path()) {
            finding.path = relative.to_path_buf();
        }
    }
    let prefix = format!("{name}/");
    let files: Vec<&Extracted> = staged
        .files
        .range(prefix.clone()..)
        .take_while(|(path, _)| path.starts_with(&prefix))
        .map(|(_, f)| f)
        .collect();
    Ok(PackedSkill {
        name: name.to_owned(),
        files: files.len(),
        bytes: files.iter().map(|f| f.size).sum(),
        findings,
    })
}

/// Every way the pack's files can disagree with its manifest.
fn check_manifest(
    manifest: &Manifest,
    folders: &BTreeSet<String>,
    files: &BTreeMap<String, Extracted>,
) -> Vec<Rejection> {
    let mut problems = Vec::new();
    let mut problem = |kind, entry: Option<String>, message: String| {
        problems.push(Rejection {
            kind,
            entry,
            message,
        })
    };
    if manifest.manifest_version > MANIFEST_VERSION {
        let message = format!(
            "manifest version {} is newer than this Hone reads ({MANIFEST_VERSION})",
            manifest.manifest_version
        );
        problem(RejectionKind::Manifest, Some(MANIFEST_FILE.into()), message);
        return problems;
    }
    let mut listed = BTreeSet::new();
    let mut listed_files = BTreeSet::new();
    for skill in &manifest.skills {
        if !listed.insert(skill.name.as_str()) {
            problem(
                RejectionKind::Manifest,
                Some(skill.name.clone()),
                "listed twice in the manifest".into(),
            );
            continue;
        }
        if !folders.contains(&skill.name) {
            problem(
                RejectionKind::Manifest,
                Some(skill.name.clone()),
                "in the manifest but not in the pack".into(),
            );
            continue;
        }
        for file in &skill.files {
            let path = format!("{}/{}", skill.name, file.path);
            listed_files.insert(path.clone());
            let Some(actual) = files.get(&path) else {
                problem(
                    RejectionKind::Manifest,
                    Some(path),
                    "in the manifest but not in the pack".into(),
                );
                continue;
            };
            if actual.size != file.size || actual.sha256 != file.sha256 {
                let message = format!(
                    "content differs from the manifest (sha256 {}, {} bytes; expected {}, {} bytes)",
                    actual.sha256, actual.size, file.sha256, file.size
                );
                problem(RejectionKind::ChecksumMismatch, Some(path), message);
            } else if actual.executable != file.executable {
                problem(
                    RejectionKind::Manifest,
                    Some(path),
                    "executable bit differs from the manifest".into(),
                );
            }
        }
    }
    for folder in folders.iter().filter(|f| !listed.contains(f.as_str())) {
        problem(
            RejectionKind::Manifest,
            Some(folder.clone()),
            "in the pack but not in the manifest".into(),
        );
    }
    for path in files.keys().filter(|p| !listed_files.contains(*p)) {
        let folder = path.split('/').next().unwrap_or_default();
        if listed.contains(folder) {
            problem(
                RejectionKind::Manifest,
                Some(path.clone()),
                "in the pack but not in the manifest".into(),
            );
        }
    }
    problems
}

fn planned_skills(skills: &[PackedSkill], destination: &Path) -> Vec<PlannedSkill> {
    skills
        .iter()
        .map(|skill| {
            let target = destination.join(&skill.name);
            let action = if fs::symlink_metadata(&target).is_ok() {
                ImportAction::Replace
            } else {
                ImportAction::Add
            };
            let findings = skill
                .findings
                .iter()
                .cloned()
                .map(|mut finding| {
                    finding.path = destination.join(&finding.path);
                    finding
                })
                .collect();
            PlannedSkill {
                name: skill.name.clone(),
                destination: target,
                action,
                files: skill.files,
                bytes: skill.bytes,
                findings,
            }
        })
        .collect()
}

/// `path`, or its nearest ancestor that exists: where the staging folder goes,
/// on the same file system as the destination so that moving is a rename.
pub(crate) fn nearest_existing_ancestor(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let start = absolute.parent().unwrap_or(&absolute);
    start
        .ancestors()
        .find(|a| a.is_dir())
        .map(Path::to_path_buf)
        .unwrap_or(start.to_path_buf())
}

/// Moves each staged skill into place. A skill being replaced is first moved
/// aside; if any move fails, every move already made is undone, so the
/// destination ends as it was or with every skill in place.
fn commit(
    staged: &Staged,
    skills: &[PlannedSkill],
    staging_parent: &Path,
) -> Result<(), PackError> {
    let aside = tempfile::Builder::new()
        .prefix(".hone-replaced-")
        .tempdir_in(staging_parent)
        .map_err(PackError::io(staging_parent))?;
    let mut done: Vec<(&PlannedSkill, Option<PathBuf>)> = Vec::new();
    for skill in skills {
        let source = reader::staged_skill(staged, &skill.name);
        let result = (|| {
            let moved_aside = match skill.action {
                ImportAction::Replace => {
                    let to = aside.path().join(&skill.name);
                    fs::rename(&skill.destination, &to)
                        .map_err(PackError::io(&skill.destination))?;
                    Some(to)
                }
                ImportAction::Add => None,
            };
            if let Err(err) = fs::rename(&source, &skill.destination) {
                if let Some(original) = &moved_aside {
                    let _ = fs::rename(original, &skill.destination);
                }
                return Err(PackError::Io {
                    path: skill.destination.clone(),
                    source: err,
                });
            }
            Ok(moved_aside)
        })();
        match result {
            Ok(moved_aside) => done.push((skill, moved_aside)),
            Err(err) => {
                for (skill, moved_aside) in done.into_iter().rev() {
                    let _ = fs::rename(
                        &skill.destination,
                        reader::staged_skill(staged, &skill.name),
                    );
                    if let Some(original) = moved_aside {
                        let _ = fs::rename(original, &skill.destination);
                    }
                }
                return Err(err);
            }
        }
    }
    Ok(())
}

/// Scans a pack without installing it: it is extracted, with every check of
/// `hone unpack` (no path escapes, no symlink, no zip bomb, checksums
/// match), into a temporary folder that is removed afterwards, and its
/// skills are scanned there; nothing is run. Paths in the reports are
/// relative to the pack (`pdf/scripts/fill.py`).
pub fn scan_pack(
    pack: &Path,
    acks: &[security::Acknowledgement],
) -> Result<Vec<security::SkillSecurity>, PackError> {
    let staging = tempfile::tempdir().map_err(|source| PackError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let destination = staging.path().join("skills");
    let options = ImportOptions::default();
    import(pack, &destination, &options)?;
    let (_, mut reports) = security::scan_paths(std::slice::from_ref(&destination), acks, None)?;
    for report in &mut reports {
        let relative = |path: &Path| {
            path.strip_prefix(&destination)
                .unwrap_or(path)
                .to_path_buf()
        };
        report.path = relative(&report.path);
        for finding in &mut report.findings {
            finding.path = relative(&finding.path);
        }
    }
    Ok(reports)
}
