//! The on-disk answer cache: re-running an unchanged suite costs nothing.
//!
//! An answer is stored under the SHA-256 of the provider, its endpoint, the
//! model, the listing's hash, the request and the run index, one small JSON
//! file each (`<dir>/<2 hex>/<64 hex>.json`), written atomically. Only the
//! answer is stored (the pick, the usage): never a key, a header or the
//! request itself. Failed calls are not cached, so they are retried.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::listing::hex;
use super::{Answer, Provider};

/// A folder of cached answers.
#[derive(Debug, Clone)]
pub struct AnswerCache {
    dir: PathBuf,
}

impl AnswerCache {
    pub fn new(dir: impl Into<PathBuf>) -> AnswerCache {
        AnswerCache { dir: dir.into() }
    }

    /// `$XDG_CACHE_HOME/hone/agent` (or the platform's equivalent).
    pub fn default_dir() -> Option<PathBuf> {
        crate::workspace::hone_cache_dir().map(|dir| dir.join("agent"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of one answer.
    pub fn key(provider: &dyn Provider, listing_hash: &str, request: &str, run: usize) -> String {
        let mut hasher = Sha256::new();
        for part in [
            provider.name(),
            &provider.endpoint(),
            provider.model(),
            listing_hash,
            request,
            &run.to_string(),
        ] {
            // Length-prefixed: no two different tuples hash the same text.
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        // Only when set, so other providers' cached answers keep their keys.
        let prompt = provider.prompt_version();
        if !prompt.is_empty() {
            hasher.update((prompt.len() as u64).to_le_bytes());
            hasher.update(prompt.as_bytes());
        }
        hex(&hasher.finalize())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The cached answer, if any. An unreadable entry is a miss.
    pub fn get(&self, key: &str) -> Option<Answer> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Stores an answer atomically (a temporary file renamed into place).
    pub fn put(&self, key: &str, answer: &Answer) -> std::io::Result<()> {
        let path = self.path(key);
        let dir = path.parent().expect("cache paths have a parent");
        std::fs::create_dir_all(dir)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        serde_json::to_writer(&mut file, answer)?;
        file.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}
