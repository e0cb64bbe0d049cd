//! Writing a pack: collect the skills, gate on validation, select and compress
//! their files, and write the zip in one canonical order.

use std::collections::{HashMap, HashSet};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use ignore::gitignore::Gitignore;
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, PreparedZipFile, System, ZipWriter};

use super::manifest::{
    MANIFEST_FILE, MANIFEST_VERSION, Manifest, ManifestFile, ManifestSkill, StageTokens,
};
use super::select::{self, SelectedFile};
use super::{PackError, PackFormat, SkillFindings, hex, names, timestamp};
use crate::catalog::skill_costs;
use crate::diagnostic::{Diagnostic, Severity};
use crate::folder::SKILL_FILE;
use crate::library::{DiscoveryProblem, LibraryError, find_skill_dirs};
use crate::rules::{self, Target};
use crate::skill::Skill;
use crate::tokens::Tokenizer;

/// Deflate level 6, zlib's default: the usual balance, and fixed so that the
/// bytes are too.
const DEFLATE_LEVEL: i64 = 6;

/// What to export and how.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    /// Whose validation gates the export.
    pub target: Target,
    pub format: PackFormat,
    /// The pack's name; default: the one skill's name for a one-skill pack,
    /// else the name of the folder that holds every input (the library).
    pub name: Option<String>,
    /// The pack's version; default `0.0.0`.
    pub version: Option<String>,
    /// Keep each skill's top-level `evals/` folder.
    pub include_evals: bool,
    /// Export even when skills have error-level findings.
    pub allow_errors: bool,
    /// Write `hone-pack.json` into a one-skill pack too (a pack of several
    /// skills always carries it).
    pub manifest: bool,
    /// The entries' modification time, in seconds since 1970 UTC; default:
    /// `SOURCE_DATE_EPOCH`, else 1980-01-01 00:00:00.
    pub epoch: Option<i64>,
}

/// How far compression has come; reported after every file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExportProgress {
    pub files_done: usize,
    pub files_total: usize,
    pub bytes_done: u64,
    pub bytes_total: u64,
}

/// One skill as exported.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ExportedSkill {
    /// The skill's name and its folder in the pack.
    pub name: String,
    /// The frontmatter `description`, when it has one.
    pub description: Option<String>,
    /// Where it was read from.
    pub dir: PathBuf,
    pub files: usize,
    /// Uncompressed.
    pub bytes: u64,
    pub tokens: StageTokens,
    /// Every finding, including the warnings that did not stop the export.
    pub findings: Vec<Diagnostic>,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ExportReport {
    /// The pack file; `None` for [`build`], which writes nothing.
    pub path: Option<PathBuf>,
    pub format: PackFormat,
    pub name: String,
    pub version: String,
    /// Whether the pack carries `hone-pack.json`.
    pub manifest: bool,
    /// Sorted by name.
    pub skills: Vec<ExportedSkill>,
    /// Zip entries, the manifest included.
    pub entries: usize,
    /// Bytes of the pack file.
    pub size: u64,
    /// Lowercase hex SHA-256 of the pack file.
    pub sha256: String,
    /// Skill folders a library `.honeignore` left out.
    pub ignored_skills: Vec<PathBuf>,
    /// Folders that could not be scanned, and unparsable `.honeignore` lines.
    pub problems: Vec<DiscoveryProblem>,
}

/// A pack built in memory.
#[derive(Debug, Clone)]
pub struct BuiltPack {
    pub bytes: Vec<u8>,
    pub report: ExportReport,
}

/// Builds the pack of the skills at `inputs` (each a skill, a `SKILL.md` or a
/// library folder) and writes it to `output`, atomically. When `output` is a
/// folder, the file inside it is `NAME.zip` (or `NAME.skill`).
pub fn export(
    inputs: &[PathBuf],
    output: &Path,
    options: &ExportOptions,
    progress: &(dyn Fn(ExportProgress) + Sync),
) -> Result<ExportReport, PackError> {
    let BuiltPack { bytes, mut report } = build(inputs, options, progress)?;
    let path = if output.is_dir() {
        output.join(format!("{}.{}", report.name, options.format.extension()))
    } else {
        output.to_path_buf()
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(PackError::io(parent))?;
    }
    crate::workspace::write_atomic(&path, &bytes).map_err(PackError::io(&path))?;
    report.path = Some(path);
    Ok(report)
}

/// Builds the pack in memory, exactly as [`export`] would write it.
pub fn build(
    inputs: &[PathBuf],
    options: &ExportOptions,
    progress: &(dyn Fn(ExportProgress) + Sync),
) -> Result<BuiltPack, PackError> {
    let time = timestamp::zip_time(timestamp::resolve_epoch(options.epoch)?);
    let Plan {
        name,
        version,
        skills: planned,
        ignored,
        problems,
    } = plan(inputs, options, &|_| Vec::new())?;
    let files_total = planned.iter().map(|p| p.files.len()).sum();
    let bytes_total = planned.iter().flat_map(|p| &p.files).map(|f| f.size).sum();
    let files_done = AtomicUsize::new(0);
    let bytes_done = AtomicU64::new(0);
    let jobs: Vec<(usize, &PlannedFile)> = planned
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.files.iter().map(move |f| (i, f)))
        .collect();
    let compressed: Vec<Compressed> = jobs
        .into_par_iter()
        .map(|(skill, file)| {
            let prefix = format!("{}/", planned[skill].skill.id);
            let entry = compress(&prefix, file, time)?;
            let done = files_done.fetch_add(1, Ordering::Relaxed) + 1;
            let bytes = bytes_done.fetch_add(entry.size, Ordering::Relaxed) + entry.size;
            progress(ExportProgress {
                files_done: done,
                files_total,
                bytes_done: bytes,
                bytes_total,
            });
            Ok((skill, entry))
        })
        .collect::<Result<Vec<_>, PackError>>()?
        .into_iter()
        .map(|(_, entry)| entry)
        .collect();

    let skills = exported_skills(&planned, &compressed);
    let with_manifest = options.manifest || skills.len() > 1;
    let manifest = with_manifest.then(|| manifest(&name, &version, &skills, &compressed));
    let bytes = write_zip(manifest.as_ref(), compressed, time)?;
    let entries = skills.iter().map(|s| s.files).sum::<usize>() + usize::from(with_manifest);
    let report = ExportReport {
        path: None,
        format: options.format,
        name,
        version,
        manifest: with_manifest,
        skills,
        entries,
        size: bytes.len() as u64,
        sha256: hex(&Sha256::digest(&bytes)),
        ignored_skills: ignored,
        problems,
    };
    Ok(BuiltPack { bytes, report })
}

/// The skills of an export, their files chosen and their findings made, once
/// the gate has let them through.
pub(crate) struct Plan {
    pub name: String,
    pub version: String,
    /// Sorted by name.
    pub skills: Vec<PlannedSkill>,
    pub ignored: Vec<PathBuf>,
    pub problems: Vec<DiscoveryProblem>,
}

/// Collects the skills of `inputs`, selects their files and checks them for
/// `options.target`, adding the findings of `extra_checks` (a format's own),
/// and stops when any has an error-level finding unless errors are allowed.
pub(crate) fn plan(
    inputs: &[PathBuf],
    options: &ExportOptions,
    extra_checks: &(dyn Fn(&Skill) -> Vec<Diagnostic> + Sync),
) -> Result<Plan, PackError> {
    let collected = collect(inputs)?;
    if options.format == PackFormat::Skill && collected.sources.len() != 1 {
        return Err(PackError::SkillFormatNeedsOneSkill(collected.sources.len()));
    }
    let name = match &options.name {
        Some(name) => name.clone(),
        None if collected.sources.len() == 1 => collected.sources[0].skill.id.clone(),
        None => collected.library_name.clone(),
    };
    if let Err((_, reason)) = names::check_component(&name) {
        return Err(PackError::UnsafePackName { name, reason });
    }
    let version = options
        .version
        .clone()
        .unwrap_or_else(|| "0.0.0".to_owned());

    let planned: Vec<PlannedSkill> = collected
        .sources
        .into_par_iter()
        .map(|source| {
            let mut planned = plan_skill(source, options);
            planned.findings.extend(extra_checks(&planned.skill));
            planned
        })
        .collect();
    let blocked: Vec<SkillFindings> = planned
        .iter()
        .filter(|p| p.findings.iter().any(|d| d.severity == Severity::Error))
        .map(|p| SkillFindings {
            name: p.skill.id.clone(),
            dir: p.skill.dir.clone(),
            findings: p.findings.clone(),
        })
        .collect();
    if !blocked.is_empty() && !options.allow_errors {
        return Err(PackError::Blocked(blocked));
    }
    Ok(Plan {
        name,
        version,
        skills: planned,
        ignored: collected.ignored,
        problems: collected.problems,
    })
}

/// A skill found under the inputs, with the `.honeignore` of its library.
struct Source {
    skill: Skill,
    library_ignore: Option<std::sync::Arc<Gitignore>>,
}

struct Collected {
    /// Sorted by name.
    sources: Vec<Source>,
    /// The name of the deepest folder holding every input.
    library_name: String,
    ignored: Vec<PathBuf>,
    problems: Vec<DiscoveryProblem>,
}

/// Finds and loads the skills of every input, refusing two of one name.
fn collect(inputs: &[PathBuf]) -> Result<Collected, PackError> {
    let mut sources: Vec<Source> = Vec::new();
    let mut ignored = Vec::new();
    let mut problems = Vec::new();
    let mut library_dirs = Vec::new();
    for input in inputs {
        if !input.exists() {
            return Err(LibraryError::NotFound(input.clone()).into());
        }
        let is_skill = input.is_file() || input.join(SKILL_FILE).is_file();
        // A library's `.honeignore` covers every skill under it; a skill's own
        // is read when its files are selected.
        let library_ignore = if is_skill {
            None
        } else {
            let mut findings = Vec::new();
            let ignore = select::load_ignore(input, &mut findings);
            problems.extend(findings.into_iter().map(|d| DiscoveryProblem {
                path: d.path,
                message: d.message,
            }));
            ignore.map(std::sync::Arc::new)
        };
        let library_dir = if is_skill {
            let skill_dir = if input.is_file() {
                input.parent().unwrap_or(Path::new(""))
            } else {
                input
            };
            canonical(skill_dir)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default()
        } else {
            input.clone()
        };
        library_dirs.push(library_dir);
        for dir in find_skill_dirs(input, &mut problems) {
            if library_ignore
                .as_ref()
                .is_some_and(|m| is_ignored_dir(m, input, &dir))
            {
                ignored.push(dir);
                continue;
            }
            let skill = Skill::load(&dir).map_err(PackError::io(dir.join(SKILL_FILE)))?;
            sources.push(Source {
                skill,
                library_ignore: library_ignore.clone(),
            });
        }
    }
    if sources.is_empty() {
        return Err(PackError::NoSkills(inputs.to_vec()));
    }
    // The same folder reached through two inputs is one skill.
    let mut seen_dirs = HashSet::new();
    sources.retain(|s| {
        seen_dirs.insert(
            s.skill
                .dir
                .canonicalize()
                .unwrap_or_else(|_| s.skill.dir.clone()),
        )
    });
    sources.sort_by(|a, b| a.skill.id.cmp(&b.skill.id));
    let mut by_folded: HashMap<String, &Path> = HashMap::new();
    for source in &sources {
        let name = &source.skill.id;
        if let Err((_, reason)) = names::check_component(name) {
            return Err(PackError::UnsafeSkillName {
                name: name.clone(),
                dir: source.skill.dir.clone(),
                reason,
            });
        }
        if let Some(first) = by_folded.insert(names::fold_case(name), &source.skill.dir) {
            return Err(PackError::DuplicateSkill {
                name: name.clone(),
                first: first.to_path_buf(),
                second: source.skill.dir.clone(),
            });
        }
    }
    Ok(Collected {
        sources,
        library_name: common_folder_name(&library_dirs),
        ignored,
        problems,
    })
}

/// Whether the library's `.honeignore` leaves out the skill folder `dir`.
fn is_ignored_dir(matcher: &Gitignore, library: &Path, dir: &Path) -> bool {
    dir.starts_with(library)
        && dir != library
        && matcher.matched_path_or_any_parents(dir, true).is_ignore()
}

/// The name of the deepest folder that holds all of `dirs`.
fn common_folder_name(dirs: &[PathBuf]) -> String {
    let canonical: Vec<PathBuf> = dirs.iter().map(|d| canonical(d)).collect();
    let Some(first) = canonical.first() else {
        return "skills".into();
    };
    let mut common = first.clone();
    for dir in &canonical[1..] {
        while !dir.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "skills".into())
}

/// The absolute form of `path`, `""` meaning the current folder; the path
/// itself when it cannot be resolved.
fn canonical(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// A file to pack and its size on disk.
pub(crate) struct PlannedFile {
    pub file: SelectedFile,
    pub size: u64,
}

/// A skill with its files chosen and its findings made.
pub(crate) struct PlannedSkill {
    pub skill: Skill,
    pub files: Vec<PlannedFile>,
    pub tokens: StageTokens,
    pub findings: Vec<Diagnostic>,
}

fn plan_skill(source: Source, options: &ExportOptions) -> PlannedSkill {
    let Source {
        skill,
        library_ignore,
    } = source;
    let selection =
        select::select_files(&skill.dir, library_ignore.as_deref(), options.include_evals);
    let mut findings = rules::check_skill(&skill, options.target);
    findings.extend(selection.findings);
    let files: Vec<PlannedFile> = selection
        .files
        .into_iter()
        .map(|file| {
            let size = std::fs::metadata(&file.source)
                .map(|m| m.len())
                .unwrap_or(0);
            PlannedFile { file, size }
        })
        .collect();
    let tokens = stage_tokens(&skill, &files);
    PlannedSkill {
        skill,
        files,
        tokens,
        findings,
    }
}

/// The skill's costs in `o200k`, counting only the resources that are packed.
fn stage_tokens(skill: &Skill, files: &[PlannedFile]) -> StageTokens {
    let packed: HashSet<&str> = files.iter().map(|f| f.file.path.as_str()).collect();
    let mut packed_skill = skill.clone();
    packed_skill
        .resources
        .retain(|r| packed.contains(r.path.as_str()));
    let tokenizer = Tokenizer::o200k();
    let costs = skill_costs(&packed_skill, &tokenizer);
    let entry = portable_catalog_entry(&costs.metadata.agentskills.text, &skill.id);
    StageTokens {
        tokenizer: tokenizer.name().to_owned(),
        metadata: tokenizer.count(&entry) as u64,
        instructions: costs.instructions.tokens as u64,
        resources: costs.resources.tokens as u64,
    }
}

/// The catalog entry with its `<location>` (the absolute path on this
/// machine) replaced by `NAME/SKILL.md`, so that the manifest's count is the
/// same wherever the pack is made.
fn portable_catalog_entry(entry: &str, name: &str) -> String {
    const OPEN: &str = "<location>\n";
    const CLOSE: &str = "\n</location>";
    let (Some(start), Some(end)) = (entry.find(OPEN), entry.rfind(CLOSE)) else {
        return entry.to_owned();
    };
    let start = start + OPEN.len();
    if end < start {
        return entry.to_owned();
    }
    format!("{}{name}/{SKILL_FILE}{}", &entry[..start], &entry[end..])
}

/// A file compressed and hashed, ready to be appended.
struct Compressed {
    /// `skill/path` in the zip.
    zip_path: String,
    /// Relative to the skill folder.
    path: String,
    size: u64,
    sha256: String,
    executable: bool,
    prepared: PreparedZipFile,
}

fn entry_options(executable: bool, time: DateTime) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(DEFLATE_LEVEL))
        .last_modified_time(time)
        .unix_permissions(if executable { 0o755 } else { 0o644 })
        // The zip crate defaults to the host system, which would make a pack
        // written on Windows differ from one written on Linux.
        .system(System::Unix)
}

/// Compresses one file as the entry `{prefix}{path}`.
fn compress(prefix: &str, file: &PlannedFile, time: DateTime) -> Result<Compressed, PackError> {
    let PlannedFile { file, .. } = file;
    let bytes = std::fs::read(&file.source).map_err(PackError::io(&file.source))?;
    let zip_path = format!("{prefix}{}", file.path);
    let prepared =
        PreparedZipFile::from_data(&zip_path, entry_options(file.executable, time), &bytes)?;
    Ok(Compressed {
        zip_path,
        path: file.path.clone(),
        size: bytes.len() as u64,
        sha256: hex(&Sha256::digest(&bytes)),
        executable: file.executable,
        prepared,
    })
}

fn exported_skills(planned: &[PlannedSkill], compressed: &[Compressed]) -> Vec<ExportedSkill> {
    let mut offset = 0;
    planned
        .iter()
        .map(|p| {
            let files = &compressed[offset..offset + p.files.len()];
            offset += p.files.len();
            ExportedSkill {
                name: p.skill.id.clone(),
                description: p.skill.meta.description.clone(),
                dir: p.skill.dir.clone(),
                files: files.len(),
                bytes: files.iter().map(|f| f.size).sum(),
                tokens: p.tokens.clone(),
                findings: p.findings.clone(),
            }
        })
        .collect()
}

fn manifest(
    name: &str,
    version: &str,
    skills: &[ExportedSkill],
    compressed: &[Compressed],
) -> Manifest {
    let mut offset = 0;
    let skills = skills
        .iter()
        .map(|skill| {
            let files = &compressed[offset..offset + skill.files];
            offset += skill.files;
            ManifestSkill {
                name: skill.name.clone(),
                description: skill.description.clone(),
                files: files
                    .iter()
                    .map(|f| ManifestFile {
                        path: f.path.clone(),
                        size: f.size,
                        sha256: f.sha256.clone(),
                        executable: f.executable,
                    })
                    .collect(),
                tokens: skill.tokens.clone(),
            }
        })
        .collect();
    Manifest {
        manifest_version: MANIFEST_VERSION,
        name: name.to_owned(),
        version: version.to_owned(),
        hone_version: env!("CARGO_PKG_VERSION").to_owned(),
        skills,
    }
}

/// One skill's files zipped with `SKILL.md` at the root, no folder around
/// them: the archive a `.well-known` index points to. Canonical like a pack.
pub(crate) fn zip_skill_at_root(
    planned: &PlannedSkill,
    time: DateTime,
) -> Result<Vec<u8>, PackError> {
    let compressed = planned
        .files
        .iter()
        .map(|file| compress("", file, time))
        .collect::<Result<Vec<_>, _>>()?;
    write_zip(None, compressed, time)
}

/// Writes the zip: the manifest first, then every file in byte order of its
/// path, so the order never depends on the file system or on thread timing.
fn write_zip(
    manifest: Option<&Manifest>,
    mut files: Vec<Compressed>,
    time: DateTime,
) -> Result<Vec<u8>, PackError> {
    files.sort_by(|a, b| a.zip_path.cmp(&b.zip_path));
    let capacity = files
        .iter()
        .map(|f| f.prepared.compressed_size() as usize + 2 * f.zip_path.len() + 128)
        .sum();
    let mut zip = ZipWriter::new(Cursor::new(Vec::with_capacity(capacity)));
    if let Some(manifest) = manifest {
        let prepared = PreparedZipFile::from_data(
            MANIFEST_FILE,
            entry_options(false, time),
            &manifest.to_bytes(),
        )?;
        zip.add_prepared_file(prepared)?;
    }
    for file in files {
        zip.add_prepared_file(file.prepared)?;
    }
    Ok(zip.finish()?.into_inner())
}
