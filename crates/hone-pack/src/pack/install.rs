//! Installing skills where a client loads them ([`Client::install_folder`]),
//! uninstalling them, and telling which installed skills differ from their
//! source (`hone outdated`).
//!
//! A skill is installed as a pack would carry it: the files [`super::select`]
//! keeps (no `.git`, no `evals/`, nothing `.honeignore` lists), gated on the
//! target's errors like an export. A pack (`.zip`, `.skill`) is first
//! extracted with [`super::import`]'s checks into a temporary folder. Each
//! skill is written into a staging folder beside its destination and renamed
//! into place ([`super::tree`]); `--link` puts a symlink to the source there
//! instead. A skill already installed under the name is compared file by
//! file: identical is left alone, different is kept unless forced, and the
//! answer lists what differs. A project install records the skill in the
//! project's `skills-lock.json` as Vercel's `skills` CLI does ([`super::lock`]).
//! On request, each copy's `SKILL.md` records where it came from, in the
//! `metadata` keys `gh skill` writes ([`super::provenance`]); otherwise a copy
//! is byte for byte its source.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::export::{self, ExportOptions, PlannedSkill};
use super::lock::{self, LockEntry, SkillsLock};
use super::provenance::{self, Provenance};
use super::tree::{self, Staging};
use super::{ImportOptions, PackError, names, select};
use crate::clients::{Client, Scope};
use crate::diagnostic::Diagnostic;
use crate::folder::SKILL_FILE;
use crate::library::find_skill_dirs;
use crate::rules::Target;
use crate::skill::Skill;

/// Where and how to install.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub client: Client,
    pub scope: Scope,
    /// The project root for [`Scope::Project`], the home folder for
    /// [`Scope::User`].
    pub base: PathBuf,
    /// Whose validation gates the install.
    pub target: Target,
    pub allow_errors: bool,
    /// A symlink to the source instead of a copy.
    pub link: bool,
    /// Replace installed skills that differ.
    pub force: bool,
    /// Only say what would be done.
    pub dry_run: bool,
    /// Record in each copy's `SKILL.md` where it came from, as `gh skill`
    /// does. A link has no copy of its own, and a skill from a pack no
    /// lasting source: neither gets it.
    pub provenance: bool,
}

/// What installing one skill does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum InstallAction {
    /// Nothing of that name is installed.
    Add,
    /// The installed skill has the same files; left as it is.
    Unchanged,
    /// The installed skill differs and is replaced (with force).
    Replace,
    /// The installed skill differs and is kept (no force): nothing is written.
    Keep,
}

/// How an installed folder differs from what would be installed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FolderDiff {
    /// Files only the new copy has.
    pub added: Vec<String>,
    /// Files only the installed copy has.
    pub removed: Vec<String>,
    /// Files in both, with other content or mode.
    pub changed: Vec<String>,
    /// The installed skill is a symlink (to this), so it is not compared.
    pub link: Option<PathBuf>,
}

impl FolderDiff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.link.is_none()
    }
}

/// One skill of an install.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct InstalledSkill {
    pub name: String,
    pub source: PathBuf,
    pub destination: PathBuf,
    pub action: InstallAction,
    pub diff: FolderDiff,
    pub findings: Vec<Diagnostic>,
    /// What the copy's `SKILL.md` records about its source, when asked to.
    pub provenance: Option<Provenance>,
    /// The files a copy holds, `/`-separated (none for a link).
    pub files: Vec<String>,
}

/// What an install did, or (dry run) would do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct InstallReport {
    pub client: Client,
    pub scope: Scope,
    pub dry_run: bool,
    pub skills: Vec<InstalledSkill>,
    /// The lockfile written (in a dry run, to be written), for a project
    /// install of local skills.
    pub lockfile: Option<PathBuf>,
}

impl InstallReport {
    /// Whether some installed skill differs and was kept.
    pub fn kept(&self) -> bool {
        self.skills.iter().any(|s| s.action == InstallAction::Keep)
    }
}

/// Installs the skills of `inputs` (skills, libraries, or packs) for
/// `options.client`. When an installed skill differs and `force` is not
/// given, nothing at all is written and the report says which (action
/// [`InstallAction::Keep`]).
pub fn install(inputs: &[PathBuf], options: &InstallOptions) -> Result<InstallReport, PackError> {
    let (sources, _extracted) = unpack_packs(inputs, options.target)?;
    let export_options = ExportOptions {
        target: options.target,
        allow_errors: options.allow_errors,
        ..ExportOptions::default()
    };
    let plan = export::plan(&sources, &export_options, &|_| Vec::new())?;
    let mut skills = Vec::new();
    for planned in &plan.skills {
        let name = &planned.skill.id;
        let destination = options
            .client
            .install_folder(options.scope, &options.base, name);
        let provenance =
            (options.provenance && !options.link && is_local(&planned.skill.dir, inputs))
                .then(|| provenance::of_source(&planned.skill.dir));
        let diff = if fs::symlink_metadata(&destination).is_ok() {
            Some(diff_folder(
                planned,
                &destination,
                options.link,
                provenance.as_ref(),
            )?)
        } else {
            None
        };
        let action = match &diff {
            None => InstallAction::Add,
            Some(diff) if diff.is_empty() => InstallAction::Unchanged,
            Some(_) if options.force => InstallAction::Replace,
            Some(_) => InstallAction::Keep,
        };
        skills.push(InstalledSkill {
            name: name.clone(),
            source: planned.skill.dir.clone(),
            destination,
            action,
            diff: diff.unwrap_or_default(),
            findings: planned.findings.clone(),
            provenance,
            files: if options.link {
                Vec::new()
            } else {
                planned.files.iter().map(|f| f.file.path.clone()).collect()
            },
        });
    }
    let mut report = InstallReport {
        client: options.client,
        scope: options.scope,
        dry_run: options.dry_run,
        skills,
        lockfile: None,
    };
    if options.dry_run {
        let local = plan.skills.iter().any(|s| is_local(&s.skill.dir, inputs));
        report.lockfile =
            (options.scope == Scope::Project && local).then(|| options.base.join(lock::LOCK_FILE));
        return Ok(report);
    }
    if report.kept() {
        return Ok(report);
    }
    for (planned, skill) in plan.skills.iter().zip(&report.skills) {
        match skill.action {
            InstallAction::Add | InstallAction::Replace if options.link => {
                link_into_place(&skill.source, &skill.destination)?
            }
            InstallAction::Add | InstallAction::Replace => {
                let staging = Staging::new(&skill.destination)?;
                for file in &planned.files {
                    let select::SelectedFile {
                        path,
                        source,
                        executable,
                    } = &file.file;
                    match &skill.provenance {
                        Some(provenance) if path == SKILL_FILE => {
                            let stamped =
                                provenance::expected_skill_file(source, Some(provenance))?;
                            staging.write(path, &stamped, *executable)?
                        }
                        _ => staging.copy(path, source, *executable)?,
                    }
                }
                staging.commit(true)?;
            }
            InstallAction::Unchanged | InstallAction::Keep => {}
        }
    }
    if options.scope == Scope::Project {
        report.lockfile = record_in_lock(&options.base, &plan.skills, inputs)?;
    }
    Ok(report)
}

/// Extracts the packs among `inputs` (safely, see [`super::import`]) into a
/// temporary folder, which is returned to keep it alive; other inputs pass
/// through.
fn unpack_packs(
    inputs: &[PathBuf],
    target: Target,
) -> Result<(Vec<PathBuf>, Option<tempfile::TempDir>), PackError> {
    let is_pack = |p: &Path| {
        p.is_file()
            && p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("zip") || e.eq_ignore_ascii_case("skill"))
    };
    if !inputs.iter().any(|p| is_pack(p)) {
        return Ok((inputs.to_vec(), None));
    }
    let temp = tempfile::tempdir().map_err(PackError::io(std::env::temp_dir()))?;
    let mut sources = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        if is_pack(input) {
            let folder = temp.path().join(i.to_string());
            let options = ImportOptions {
                target,
                ..ImportOptions::default()
            };
            super::import(input, &folder, &options)?;
            sources.push(folder);
        } else {
            sources.push(input.clone());
        }
    }
    Ok((sources, Some(temp)))
}

/// Compares what would be installed with the installed folder; with
/// `provenance`, the `SKILL.md` installed is the source's stamped with it.
fn diff_folder(
    planned: &PlannedSkill,
    installed: &Path,
    link: bool,
    provenance: Option<&Provenance>,
) -> Result<FolderDiff, PackError> {
    let meta = fs::symlink_metadata(installed).map_err(PackError::io(installed))?;
    if meta.is_symlink() {
        let target = fs::read_link(installed).map_err(PackError::io(installed))?;
        let same =
            link && fs::canonicalize(installed).ok() == fs::canonicalize(&planned.skill.dir).ok();
        return Ok(FolderDiff {
            link: (!same).then_some(target),
            ..FolderDiff::default()
        });
    }
    if link {
        // A copy where a link is wanted differs, whatever its files.
        return Ok(FolderDiff {
            changed: vec![".".into()],
            ..FolderDiff::default()
        });
    }
    let mut installed_files = BTreeMap::new();
    if meta.is_dir() {
        list_files(installed, "", &mut installed_files)?;
    }
    let mut diff = FolderDiff::default();
    for file in &planned.files {
        let path = &file.file.path;
        match installed_files.remove(path) {
            None => diff.added.push(path.clone()),
            Some(existing) => {
                let new = if path == SKILL_FILE {
                    provenance::expected_skill_file(&file.file.source, provenance)?
                } else {
                    fs::read(&file.file.source).map_err(PackError::io(&file.file.source))?
                };
                let old = fs::read(&existing).map_err(PackError::io(&existing))?;
                if new != old || is_executable(&existing) != file.file.executable {
                    diff.changed.push(path.clone());
                }
            }
        }
    }
    diff.removed = installed_files.into_keys().collect();
    Ok(diff)
}

fn list_files(
    dir: &Path,
    prefix: &str,
    files: &mut BTreeMap<String, PathBuf>,
) -> Result<(), PackError> {
    for entry in fs::read_dir(dir).map_err(PackError::io(dir))? {
        let entry = entry.map_err(PackError::io(dir))?;
        let relative = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            list_files(&entry.path(), &format!("{relative}/"), files)?;
        } else {
            files.insert(relative, entry.path());
        }
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    false
}

/// Puts a symlink to `source` at `destination`: made beside it, then renamed
/// over whatever is there, which is moved aside and removed after.
fn link_into_place(source: &Path, destination: &Path) -> Result<(), PackError> {
    let source = fs::canonicalize(source).map_err(PackError::io(source))?;
    let parent = destination.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(PackError::io(parent))?;
    let temp = parent.join(format!(".hone-link-{}", std::process::id()));
    let _ = fs::remove_file(&temp);
    symlink_dir(&source, &temp).map_err(PackError::io(&temp))?;
    let aside = parent.join(format!(".hone-replaced-{}", std::process::id()));
    let existing = fs::symlink_metadata(destination).is_ok();
    if existing {
        fs::rename(destination, &aside).map_err(PackError::io(destination))?;
    }
    if let Err(source) = fs::rename(&temp, destination) {
        if existing {
            let _ = fs::rename(&aside, destination);
        }
        let _ = fs::remove_file(&temp);
        return Err(PackError::Io {
            path: destination.to_path_buf(),
            source,
        });
    }
    if existing {
        tree::remove_any(&aside).map_err(PackError::io(&aside))?;
    }
    Ok(())
}

#[cfg(unix)]
fn symlink_dir(source: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(source, link)
}

#[cfg(windows)]
fn symlink_dir(source: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(source, link)
}

/// Records each installed local skill in the project's `skills-lock.json`:
/// its library as the source, relative to the project, and the `skills`
/// CLI's hash of its folder. Skills from packs have no lasting source and are
/// not recorded.
fn record_in_lock(
    root: &Path,
    skills: &[PlannedSkill],
    inputs: &[PathBuf],
) -> Result<Option<PathBuf>, PackError> {
    let local: Vec<&PlannedSkill> = skills
        .iter()
        .filter(|s| is_local(&s.skill.dir, inputs))
        .collect();
    if local.is_empty() {
        return Ok(None);
    }
    let mut lock = SkillsLock::load(root)?;
    for planned in local {
        let library = planned.skill.dir.parent().unwrap_or(&planned.skill.dir);
        lock.skills.insert(
            planned.skill.id.clone(),
            LockEntry {
                source: lock::portable_source(library, root),
                source_url: None,
                git_ref: None,
                source_type: "local".into(),
                skill_path: None,
                version: None,
                via: None,
                computed_hash: lock::skill_folder_hash(&planned.skill.dir)?,
                well_known_digest: None,
                other: serde_json::Map::new(),
            },
        );
    }
    lock.save(root).map(Some)
}

/// Whether the skill at `dir` comes from one of `inputs` itself, not from a
/// pack extracted into a temporary folder.
fn is_local(dir: &Path, inputs: &[PathBuf]) -> bool {
    inputs.iter().any(|input| is_under(dir, input))
}

fn is_under(path: &Path, base: &Path) -> bool {
    match (fs::canonicalize(path), fs::canonicalize(base)) {
        (Ok(path), Ok(base)) => path.starts_with(base),
        _ => false,
    }
}

/// What uninstalling one skill did, or would do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Uninstalled {
    pub name: String,
    pub destination: PathBuf,
    /// Whether something of that name was there.
    pub found: bool,
    /// It was a symlink (only the link is removed).
    pub link: bool,
}

/// Removes the skills `names` from the client's folder (a link is removed,
/// not what it points to), and from the project's lockfile once no client's
/// folder in the project holds them (the lockfile has one entry per skill,
/// whichever clients it is installed for).
pub fn uninstall(
    skill_names: &[String],
    options: &InstallOptions,
) -> Result<Vec<Uninstalled>, PackError> {
    let mut done = Vec::new();
    for name in skill_names {
        if let Err((_, reason)) = names::check_component(name) {
            return Err(PackError::UnsafeSkillName {
                name: name.clone(),
                dir: options.base.clone(),
                reason,
            });
        }
        let destination = options
            .client
            .install_folder(options.scope, &options.base, name);
        let meta = fs::symlink_metadata(&destination).ok();
        done.push(Uninstalled {
            name: name.clone(),
            found: meta.is_some(),
            link: meta.as_ref().is_some_and(|m| m.is_symlink()),
            destination,
        });
    }
    if options.dry_run {
        return Ok(done);
    }
    for skill in done.iter().filter(|s| s.found) {
        // Moved aside first, so the name is free at once even if removing a
        // large folder fails halfway.
        let aside = skill.destination.with_file_name(format!(
            ".{}.hone-removed-{}",
            skill.name,
            std::process::id()
        ));
        fs::rename(&skill.destination, &aside).map_err(PackError::io(&skill.destination))?;
        tree::remove_any(&aside).map_err(PackError::io(&aside))?;
    }
    if options.scope == Scope::Project {
        let mut lock = SkillsLock::load(&options.base)?;
        let before = lock.skills.len();
        let still_installed = |name: &str| {
            crate::clients::Client::ALL.iter().any(|client| {
                fs::symlink_metadata(client.install_folder(Scope::Project, &options.base, name))
                    .is_ok()
            })
        };
        lock.skills
            .retain(|name, _| !skill_names.contains(name) || still_installed(name));
        if lock.skills.len() != before {
            lock.save(&options.base)?;
        }
    }
    Ok(done)
}

/// Whether an installed skill still matches its source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outdated {
    pub name: String,
    /// The source folder of the skill, when it was found.
    pub source: Option<PathBuf>,
    /// The source's hash now differs from the one recorded at install.
    pub source_changed: bool,
    /// Each client folder holding the skill.
    pub installed: Vec<InstalledCopy>,
    /// Why it could not be checked, when it could not.
    pub problem: Option<String>,
}

/// One installed copy of a skill, compared with its source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstalledCopy {
    pub client: Client,
    pub folder: PathBuf,
    /// How it differs from the source now (empty: the same), its
    /// provenance keys aside.
    pub diff: FolderDiff,
    /// Where its `SKILL.md` says it came from.
    pub provenance: Option<Provenance>,
    /// For a git provenance whose source is on disk: whether the source
    /// folder's tree in the commit checked out is still the one recorded.
    pub tree_matches: Option<bool>,
}

impl Outdated {
    /// The source changed since it was locked, or a copy differs from it.
    pub fn differs(&self) -> bool {
        self.source_changed
            || self
                .installed
                .iter()
                .any(|c| !c.diff.is_empty() || c.tree_matches == Some(false))
    }
}

/// Checks every local skill of the project's `skills-lock.json` against its
/// source: whether the source changed since it was recorded, and how each
/// project client folder's copy differs from the source now. Copies no
/// lockfile lists but whose `SKILL.md` records a provenance (`gh skill`
/// installs, `hone install --provenance`) are reported too, and compared
/// with a `local-path` source that is still there.
pub fn outdated(root: &Path, target: Target) -> Result<Vec<Outdated>, PackError> {
    let lock = SkillsLock::load(root)?;
    let mut report = Vec::new();
    for (name, entry) in &lock.skills {
        let Some(library) = SkillsLock::local_source(root, entry) else {
            report.push(unchecked(
                name,
                format!("a `{}` source is not checked offline", entry.source_type),
            ));
            continue;
        };
        let mut problems = Vec::new();
        let source = find_skill_dirs(&library, &mut problems)
            .into_iter()
            .find(|dir| Skill::load(dir).is_ok_and(|s| &s.id == name));
        let Some(source) = source else {
            report.push(unchecked(
                name,
                format!("no skill `{name}` in {}", library.display()),
            ));
            continue;
        };
        report.push(Outdated {
            name: name.clone(),
            source_changed: lock::skill_folder_hash(&source)? != entry.computed_hash,
            installed: compare_copies(root, name, &source, target)?,
            source: Some(source),
            problem: None,
        });
    }
    for (name, copies) in unlocked_copies(root, &lock) {
        let local = copies.iter().find_map(|c| match &c.provenance {
            Some(Provenance::Local { path }) if path.join(SKILL_FILE).is_file() => {
                Some(path.clone())
            }
            _ => None,
        });
        report.push(match local {
            Some(source) => Outdated {
                installed: compare_copies(root, &name, &source, target)?,
                source: Some(source),
                ..unchecked(&name, String::new())
            },
            None => Outdated {
                installed: copies,
                ..unchecked(&name, "its source is not on this machine".into())
            },
        });
    }
    Ok(report)
}

fn unchecked(name: &str, problem: String) -> Outdated {
    Outdated {
        name: name.to_owned(),
        source: None,
        source_changed: false,
        installed: Vec::new(),
        problem: (!problem.is_empty()).then_some(problem),
    }
}

/// Each project client folder's copy of `name`, compared with `source`.
fn compare_copies(
    root: &Path,
    name: &str,
    source: &Path,
    target: Target,
) -> Result<Vec<InstalledCopy>, PackError> {
    let options = ExportOptions {
        target,
        allow_errors: true,
        ..ExportOptions::default()
    };
    let plan = export::plan(&[source.to_path_buf()], &options, &|_| Vec::new())?;
    let mut copies: Vec<InstalledCopy> = Vec::new();
    for client in Client::ALL {
        let folder = client.install_folder(Scope::Project, root, name);
        let Ok(meta) = fs::symlink_metadata(&folder) else {
            continue;
        };
        // Clients that share a folder (`.agents/skills`) list it once.
        if copies.iter().any(|c| c.folder == folder) {
            continue;
        }
        let provenance = (!meta.is_symlink())
            .then(|| recorded_provenance(&folder))
            .flatten();
        let diff = diff_folder(
            &plan.skills[0],
            &folder,
            meta.is_symlink(),
            provenance.as_ref(),
        )?;
        let tree_matches = match &provenance {
            Some(Provenance::Git { tree_sha, .. }) => {
                provenance::current_tree(source).map(|tree| &tree == tree_sha)
            }
            _ => None,
        };
        copies.push(InstalledCopy {
            client,
            folder,
            diff,
            provenance,
            tree_matches,
        });
    }
    Ok(copies)
}

/// The provenance an installed copy's `SKILL.md` records.
fn recorded_provenance(folder: &Path) -> Option<Provenance> {
    let text = fs::read_to_string(folder.join(SKILL_FILE)).ok()?;
    provenance::read(&text)
}

/// The copies in the project's client folders that the lockfile does not
/// list and that record a provenance, by skill name.
fn unlocked_copies(root: &Path, lock: &SkillsLock) -> BTreeMap<String, Vec<InstalledCopy>> {
    let mut found: BTreeMap<String, Vec<InstalledCopy>> = BTreeMap::new();
    let mut seen = Vec::new();
    for client in Client::ALL {
        let folder = root.join(client.skill_folders(Scope::Project)[0]);
        if seen.contains(&folder) {
            continue;
        }
        let Ok(entries) = fs::read_dir(&folder) else {
            seen.push(folder);
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if lock.skills.contains_key(&name) || path.is_symlink() {
                continue;
            }
            if let Some(provenance) = recorded_provenance(&path) {
                found.entry(name).or_default().push(InstalledCopy {
                    client,
                    folder: path,
                    diff: FolderDiff::default(),
                    provenance: Some(provenance),
                    tree_matches: None,
                });
            }
        }
        seen.push(folder);
    }
    found
}
