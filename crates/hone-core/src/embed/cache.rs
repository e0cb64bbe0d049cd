//! The on-disk embedding cache: reopening a library embeds nothing new.
//!
//! One file per model (`<model-id>.bin`, the id fingerprinting the model's
//! files), holding entries keyed by the SHA-256 of the embedded text and its
//! part ranges. Editing one skill changes one text, so one entry is added.
//!
//! ## Format (little-endian)
//!
//! ```text
//! header:  "HONE-EMB" | version u32 | dim u32 | id_len u32 | model id | check [8]
//! record:  len u32 | key [32] | parts u32 | tokens u32
//!          | (1 + parts) × dim × f32            sentence vector, part vectors
//!          | tokens × u32 | tokens × f32        token ids, quantisation scales
//!          | tokens × dim × u8                  token vectors (quantised)
//!          | check [8]
//! ```
//!
//! `check` is the first 8 bytes of the SHA-256 of everything before it in the
//! header or record. New entries are *appended* as whole records in one write,
//! so a crash or a concurrent writer can at worst leave a damaged tail. Reading
//! stops at the first damaged record and keeps the ones before it; a damaged
//! header discards the file. Either way the file is rewritten on the next
//! flush: a damaged cache costs re-embedding, never an error.
//!
//! ## Bound
//!
//! Appending past `max_bytes` compacts the file: entries are kept most recently
//! used first (used in this session, then newest in the file) until they fill
//! three quarters of the bound, so compaction is rare. Rewrites go through a
//! temporary file and a rename, so readers see the old file or the new one.

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::SegmentedEmbedding;
use super::model::TokenVectors;

/// An embedding as the cache stores it.
pub type CachedEmbedding = SegmentedEmbedding;

/// The key of an entry: a hash of what was embedded.
pub type EntryKey = [u8; 32];

/// Default bound of a cache file. An entry takes about 30 KB (its token
/// vectors are most of it), so this holds some 20,000 skills: a served
/// 10,000-skill library (`hone serve`) reopens without re-embedding, with
/// room for its edits. At 256 MiB such a library evicted a quarter of itself
/// on every open and re-embedded it on the next.
pub const DEFAULT_MAX_BYTES: u64 = 640 * 1024 * 1024;

const MAGIC: &[u8; 8] = b"HONE-EMB";
const VERSION: u32 = 3;
const CHECK_LEN: usize = 8;

/// The key of `text` embedded with the part `ranges`.
pub fn entry_key(text: &str, ranges: &[Range<usize>]) -> EntryKey {
    let mut hasher = Sha256::new();
    hasher.update((text.len() as u64).to_le_bytes());
    hasher.update(text.as_bytes());
    for range in ranges {
        hasher.update((range.start as u64).to_le_bytes());
        hasher.update((range.end as u64).to_le_bytes());
    }
    hasher.finalize().into()
}

/// What opening the cache found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CacheStatus {
    /// Memory only, never written.
    InMemory,
    /// No cache file yet.
    New,
    /// Every entry read.
    Loaded { entries: usize },
    /// Entries before a damaged record were kept; the file will be rewritten.
    Repaired { entries: usize, reason: String },
    /// The file was unusable and is rebuilt from scratch.
    Rebuilt { reason: String },
}

struct Slot {
    embedding: CachedEmbedding,
    /// Larger is more recent: file order for loaded entries, then use order.
    recency: u64,
}

/// Embeddings of one model, in memory and (unless in-memory) on disk.
pub struct EmbeddingCache {
    path: Option<PathBuf>,
    model_id: String,
    dim: usize,
    max_bytes: u64,
    slots: HashMap<EntryKey, Slot>,
    /// Inserted but not yet written.
    pending: Vec<EntryKey>,
    clock: u64,
    /// Size of the file as last read or written.
    file_bytes: u64,
    needs_rewrite: bool,
    status: CacheStatus,
    last_write_error: Option<String>,
}

impl EmbeddingCache {
    /// A cache that is never written.
    pub fn in_memory(model_id: &str, dim: usize) -> Self {
        EmbeddingCache {
            path: None,
            model_id: model_id.to_owned(),
            dim,
            max_bytes: u64::MAX,
            slots: HashMap::new(),
            pending: Vec::new(),
            clock: 0,
            file_bytes: 0,
            needs_rewrite: false,
            status: CacheStatus::InMemory,
            last_write_error: None,
        }
    }

    /// Opens the cache file at `path`. Never fails: a missing, foreign or
    /// damaged file gives an empty (or partly filled) cache, see [`status`].
    ///
    /// [`status`]: EmbeddingCache::status
    pub fn open(path: &Path, model_id: &str, dim: usize, max_bytes: u64) -> Self {
        let mut cache = EmbeddingCache::in_memory(model_id, dim);
        cache.path = Some(path.to_path_buf());
        cache.max_bytes = max_bytes;
        cache.status = match std::fs::read(path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => CacheStatus::New,
            Err(err) => {
                cache.needs_rewrite = true;
                CacheStatus::Rebuilt {
                    reason: format!("cannot read: {err}"),
                }
            }
            Ok(bytes) => {
                cache.file_bytes = bytes.len() as u64;
                cache.read(&bytes)
            }
        };
        cache
    }

    pub fn status(&self) -> &CacheStatus {
        &self.status
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The error of the last failed write, if the latest flush failed.
    pub fn last_write_error(&self) -> Option<&str> {
        self.last_write_error.as_deref()
    }

    /// The entry for `key`, marking it as used.
    pub fn get(&mut self, key: &EntryKey) -> Option<&CachedEmbedding> {
        self.clock += 1;
        let clock = self.clock;
        let slot = self.slots.get_mut(key)?;
        slot.recency = clock;
        Some(&slot.embedding)
    }

    /// Adds an entry (written by the next [`flush`](EmbeddingCache::flush)).
    /// Entries of the wrong length are ignored.
    pub fn insert(&mut self, key: EntryKey, embedding: CachedEmbedding) {
        let tokens = &embedding.tokens;
        let valid = embedding.vector.len() == self.dim
            && embedding.parts.iter().all(|p| p.len() == self.dim)
            && tokens.scales.len() == tokens.len()
            && tokens.values.len() == tokens.len() * self.dim;
        if !valid {
            return;
        }
        self.clock += 1;
        if self
            .slots
            .insert(
                key,
                Slot {
                    embedding,
                    recency: self.clock,
                },
            )
            .is_none()
        {
            self.pending.push(key);
        }
    }

    /// Writes the new entries: appended, or the whole file rewritten when it
    /// is damaged or would pass its bound.
    pub fn flush(&mut self) -> std::io::Result<()> {
        let result = self.write();
        self.last_write_error = result.as_ref().err().map(|e| e.to_string());
        result
    }

    fn write(&mut self) -> std::io::Result<()> {
        let Some(path) = self.path.clone() else {
            self.pending.clear();
            return Ok(());
        };
        if self.pending.is_empty() && !self.needs_rewrite {
            return Ok(());
        }
        let appended: Vec<u8> = self
            .pending
            .iter()
            .filter_map(|key| {
                self.slots
                    .get(key)
                    .map(|slot| self.record(key, &slot.embedding))
            })
            .flatten()
            .collect();
        let fits = self.file_bytes + appended.len() as u64 <= self.max_bytes;
        if !self.needs_rewrite && self.file_bytes > 0 && fits {
            let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
            file.write_all(&appended)?;
            self.file_bytes += appended.len() as u64;
        } else {
            self.rewrite(&path)?;
        }
        self.pending.clear();
        self.needs_rewrite = false;
        Ok(())
    }

    /// Writes every entry that fits the bound, most recent first, to a
    /// temporary file renamed over the cache; evicted entries leave memory too.
    fn rewrite(&mut self, path: &Path) -> std::io::Result<()> {
        let target = if self.file_bytes_if_all() > self.max_bytes {
            self.max_bytes / 4 * 3
        } else {
            self.max_bytes
        };
        let mut by_recency: Vec<(&EntryKey, &Slot)> = self.slots.iter().collect();
        by_recency.sort_by_key(|entry| std::cmp::Reverse(entry.1.recency));
        let mut bytes = self.header();
        let mut size = bytes.len() as u64;
        let mut kept = Vec::new();
        for (key, slot) in by_recency {
            let len = self.record_len(&slot.embedding) as u64;
            if size + len <= target {
                size += len;
                kept.push(*key);
            }
        }
        // Oldest first: reading takes later records as more recent.
        for key in kept.iter().rev() {
            bytes.extend_from_slice(&self.record(key, &self.slots[key].embedding));
        }
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        file.write_all(&bytes)?;
        file.as_file().sync_all()?;
        file.persist(path).map_err(|e| e.error)?;
        self.file_bytes = bytes.len() as u64;
        let kept: std::collections::HashSet<EntryKey> = kept.into_iter().collect();
        self.slots.retain(|key, _| kept.contains(key));
        Ok(())
    }

    fn file_bytes_if_all(&self) -> u64 {
        let header = self.header().len() as u64;
        let records: u64 = self
            .slots
            .values()
            .map(|slot| self.record_len(&slot.embedding) as u64)
            .sum();
        header + records
    }

    fn header(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(32 + self.model_id.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(self.dim as u32).to_le_bytes());
        bytes.extend_from_slice(&(self.model_id.len() as u32).to_le_bytes());
        bytes.extend_from_slice(self.model_id.as_bytes());
        let check = check(&bytes);
        bytes.extend_from_slice(&check);
        bytes
    }

    fn record_len(&self, embedding: &CachedEmbedding) -> usize {
        self.record_len_for(embedding.parts.len(), embedding.tokens.len())
    }

    fn record_len_for(&self, parts: usize, tokens: usize) -> usize {
        4 + 32 + 4 + 4 + (1 + parts) * self.dim * 4 + tokens * (8 + self.dim) + CHECK_LEN
    }

    fn record(&self, key: &EntryKey, embedding: &CachedEmbedding) -> Vec<u8> {
        let len = self.record_len(embedding);
        let tokens = &embedding.tokens;
        let mut bytes = Vec::with_capacity(len);
        bytes.extend_from_slice(&((len - 4 - CHECK_LEN) as u32).to_le_bytes());
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(&(embedding.parts.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(tokens.len() as u32).to_le_bytes());
        for value in std::iter::once(&embedding.vector)
            .chain(&embedding.parts)
            .flatten()
        {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        for id in &tokens.ids {
            bytes.extend_from_slice(&id.to_le_bytes());
        }
        for scale in &tokens.scales {
            bytes.extend_from_slice(&scale.to_le_bytes());
        }
        bytes.extend_from_slice(&tokens.values);
        let check = check(&bytes);
        bytes.extend_from_slice(&check);
        bytes
    }

    /// Reads a whole file into the cache, returning what it found.
    fn read(&mut self, bytes: &[u8]) -> CacheStatus {
        let header = self.header();
        if bytes.len() < header.len() || bytes[..header.len()] != header[..] {
            self.needs_rewrite = true;
            let reason = if bytes.starts_with(MAGIC) {
                "header does not match this model or format version"
            } else {
                "not a Hone embedding cache"
            };
            return CacheStatus::Rebuilt {
                reason: reason.into(),
            };
        }
        let mut at = header.len();
        while at < bytes.len() {
            match self.read_record(&bytes[at..]) {
                Ok((key, embedding, used)) => {
                    self.clock += 1;
                    self.slots.insert(
                        key,
                        Slot {
                            embedding,
                            recency: self.clock,
                        },
                    );
                    at += used;
                }
                Err(reason) => {
                    self.needs_rewrite = true;
                    let reason = format!("{reason} at byte {at}; later entries dropped");
                    return CacheStatus::Repaired {
                        entries: self.slots.len(),
                        reason,
                    };
                }
            }
        }
        CacheStatus::Loaded {
            entries: self.slots.len(),
        }
    }

    fn read_record(
        &self,
        bytes: &[u8],
    ) -> Result<(EntryKey, CachedEmbedding, usize), &'static str> {
        let u32_at = |at: usize| -> Option<usize> {
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
        };
        let payload_len = u32_at(0).ok_or("truncated record")?;
        let parts = u32_at(36).ok_or("truncated record")?;
        let tokens = u32_at(40).ok_or("truncated record")?;
        if parts > 4096 || tokens > 1 << 16 {
            return Err("malformed record");
        }
        let total = self.record_len_for(parts, tokens);
        if payload_len + 4 + CHECK_LEN != total {
            return Err("malformed record");
        }
        let record = bytes.get(..total).ok_or("truncated record")?;
        let (body, stored) = record.split_at(total - CHECK_LEN);
        if check(body) != stored {
            return Err("checksum mismatch");
        }
        let key: EntryKey = body[4..36].try_into().map_err(|_| "malformed record")?;
        let floats = |bytes: &[u8]| -> Vec<f32> {
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        };
        let (vectors, rest) = body[44..].split_at((1 + parts) * self.dim * 4);
        let mut vectors = vectors.chunks_exact(self.dim * 4).map(floats);
        let vector = vectors.next().ok_or("malformed record")?;
        let (ids, rest) = rest.split_at(tokens * 4);
        let (scales, values) = rest.split_at(tokens * 4);
        let tokens = TokenVectors {
            ids: ids
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            scales: floats(scales),
            values: values.to_vec(),
        };
        Ok((
            key,
            CachedEmbedding {
                vector,
                parts: vectors.collect(),
                tokens,
            },
            total,
        ))
    }
}

fn check(bytes: &[u8]) -> [u8; CHECK_LEN] {
    let digest = Sha256::digest(bytes);
    let mut check = [0u8; CHECK_LEN];
    check.copy_from_slice(&digest[..CHECK_LEN]);
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIM: usize = 4;

    fn embedding(seed: f32, parts: usize) -> CachedEmbedding {
        let vector: Vec<f32> = (0..DIM).map(|i| seed + i as f32).collect();
        let parts = (0..parts)
            .map(|p| vec![seed * 10.0 + p as f32; DIM])
            .collect();
        let mut tokens = TokenVectors::default();
        tokens.push(7, &vector);
        tokens.push(8, &[1.0, -1.0, 0.5, 0.0]);
        CachedEmbedding {
            vector,
            parts,
            tokens,
        }
    }

    fn open(path: &Path) -> EmbeddingCache {
        EmbeddingCache::open(path, "test-model", DIM, DEFAULT_MAX_BYTES)
    }

    #[test]
    fn entries_survive_reopening_and_appends() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("sub/model.bin");
        let mut cache = open(&path);
        assert_eq!(cache.status(), &CacheStatus::New);
        cache.insert(entry_key("a", &[]), embedding(1.0, 0));
        cache.flush().unwrap();
        let mut cache = open(&path);
        cache.insert(
            entry_key("b", std::slice::from_ref(&(0..1))),
            embedding(2.0, 2),
        );
        cache.flush().unwrap();
        let mut cache = open(&path);
        assert_eq!(cache.status(), &CacheStatus::Loaded { entries: 2 });
        assert_eq!(cache.get(&entry_key("a", &[])), Some(&embedding(1.0, 0)));
        assert_eq!(
            cache.get(&entry_key("b", std::slice::from_ref(&(0..1)))),
            Some(&embedding(2.0, 2))
        );
        assert_eq!(
            cache.get(&entry_key("b", &[])),
            None,
            "part ranges are part of the key"
        );
    }

    #[test]
    fn a_damaged_tail_keeps_earlier_entries_and_is_repaired() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("model.bin");
        let mut cache = open(&path);
        for (i, text) in ["a", "b", "c"].iter().enumerate() {
            cache.insert(entry_key(text, &[]), embedding(i as f32, 1));
        }
        cache.flush().unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 10;
        bytes[last] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();

        let mut cache = open(&path);
        assert!(
            matches!(cache.status(), CacheStatus::Repaired { entries: 2, .. }),
            "{:?}",
            cache.status()
        );
        cache.flush().unwrap();
        assert_eq!(open(&path).status(), &CacheStatus::Loaded { entries: 2 });
    }

    #[test]
    fn garbage_truncation_and_foreign_models_rebuild() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("model.bin");
        std::fs::write(&path, b"\x00garbage that is not a cache").unwrap();
        let mut cache = open(&path);
        assert!(matches!(cache.status(), CacheStatus::Rebuilt { .. }));
        cache.insert(entry_key("a", &[]), embedding(1.0, 0));
        cache.flush().unwrap();

        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert!(matches!(
            open(&path).status(),
            CacheStatus::Repaired { entries: 0, .. }
        ));
        std::fs::write(&path, &bytes[..5]).unwrap();
        assert!(matches!(open(&path).status(), CacheStatus::Rebuilt { .. }));

        std::fs::write(&path, &bytes).unwrap();
        let other = EmbeddingCache::open(&path, "other-model", DIM, DEFAULT_MAX_BYTES);
        assert!(matches!(other.status(), CacheStatus::Rebuilt { .. }));
    }

    #[test]
    fn size_is_bounded_and_recently_used_entries_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("model.bin");
        let record = 4 + 32 + 4 + 4 + DIM * 4 + 2 * (8 + DIM) + CHECK_LEN;
        let max_bytes = (64 + 10 * record) as u64;
        let mut cache = EmbeddingCache::open(&path, "test-model", DIM, max_bytes);
        for i in 0..10 {
            cache.insert(entry_key(&i.to_string(), &[]), embedding(i as f32, 0));
        }
        cache.flush().unwrap();
        let mut cache = EmbeddingCache::open(&path, "test-model", DIM, max_bytes);
        assert_eq!(cache.len(), 10);
        // The oldest entry is used again, so it survives the compaction.
        assert!(cache.get(&entry_key("0", &[])).is_some());
        for i in 10..13 {
            cache.insert(entry_key(&i.to_string(), &[]), embedding(i as f32, 0));
            cache.flush().unwrap();
            assert!(std::fs::metadata(&path).unwrap().len() <= max_bytes);
        }
        let mut cache = EmbeddingCache::open(&path, "test-model", DIM, max_bytes);
        assert!(cache.len() < 13);
        assert!(
            cache.get(&entry_key("0", &[])).is_some(),
            "recently used entry evicted"
        );
        assert!(
            cache.get(&entry_key("12", &[])).is_some(),
            "newest entry evicted"
        );
        assert!(
            cache.get(&entry_key("1", &[])).is_none(),
            "least recently used entry kept"
        );
    }

    #[test]
    fn an_unwritable_cache_reports_and_keeps_working() {
        let tmp = tempfile::tempdir().unwrap();
        let blocker = tmp.path().join("file");
        std::fs::write(&blocker, "not a directory").unwrap();
        let mut cache = open(&blocker.join("model.bin"));
        cache.insert(entry_key("a", &[]), embedding(1.0, 0));
        assert!(cache.flush().is_err());
        assert!(cache.last_write_error().is_some());
        assert!(cache.get(&entry_key("a", &[])).is_some());
    }
}
