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
//! ## Memory
//!
//! Opening the file verifies every record but keeps only its key and place;
//! an entry is read from the file when it is first asked for. A cache holds
//! the embeddings of every library the user has opened (up to its bound),
//! and a process pays memory only for the library it ranks. Entries in memory
//! are held behind an [`Arc`] and handed out as such: the rankers keep the
//! very entries the cache holds, so a library's token vectors (most of an
//! entry) are in memory once, not once in the cache and once per ranker.
//!
//! ## Bound
//!
//! Appending past `max_bytes` compacts the file: entries are kept most recently
//! used first (used in this session, then newest in the file) until they fill
//! three quarters of the bound, so compaction is rare. Rewrites go through a
//! temporary file and a rename, so readers see the old file or the new one.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

/// An entry: in memory, in the file, or both (never neither).
struct Slot {
    entry: Option<Arc<CachedEmbedding>>,
    /// Where its verified record is in the file, once written.
    place: Option<Place>,
    /// Larger is more recent: file order for loaded entries, then use order.
    recency: u64,
}

#[derive(Debug, Clone, Copy)]
struct Place {
    offset: u64,
    len: usize,
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
    /// The file as last read or written, for entries not read yet.
    file: Option<File>,
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
            file: None,
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
        cache.status = match File::open(path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => CacheStatus::New,
            Err(err) => {
                cache.needs_rewrite = true;
                CacheStatus::Rebuilt {
                    reason: format!("cannot read: {err}"),
                }
            }
            Ok(file) => cache.index(file),
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

    /// Entries read into memory (the others are still only on disk).
    pub fn resident(&self) -> usize {
        self.slots
            .values()
            .filter(|slot| slot.entry.is_some())
            .count()
    }

    /// The error of the last failed write, if the latest flush failed.
    pub fn last_write_error(&self) -> Option<&str> {
        self.last_write_error.as_deref()
    }

    /// The entry for `key`, marking it as used.
    /// An entry still on disk is read now; one that cannot be read is
    /// dropped (its text is embedded again) and the file rewritten.
    pub fn get(&mut self, key: &EntryKey) -> Option<&Arc<CachedEmbedding>> {
        self.clock += 1;
        let slot = self.slots.get_mut(key)?;
        slot.recency = self.clock;
        if slot.entry.is_none() {
            match read_entry(self.file.as_ref(), slot.place, self.dim) {
                Some(embedding) => slot.entry = Some(Arc::new(embedding)),
                None => {
                    self.slots.remove(key);
                    self.needs_rewrite = true;
                    return None;
                }
            }
        }
        self.slots.get(key)?.entry.as_ref()
    }

    /// The entry for `key`, read from the file if it is not in memory, but
    /// not kept in memory: for callers that need an entry now and then and
    /// hold it only briefly.
    pub fn peek(&mut self, key: &EntryKey) -> Option<Arc<CachedEmbedding>> {
        self.clock += 1;
        let slot = self.slots.get_mut(key)?;
        slot.recency = self.clock;
        if let Some(entry) = &slot.entry {
            return Some(Arc::clone(entry));
        }
        match read_entry(self.file.as_ref(), slot.place, self.dim) {
            Some(embedding) => Some(Arc::new(embedding)),
            None => {
                self.slots.remove(key);
                self.needs_rewrite = true;
                None
            }
        }
    }

    /// Lets the memory of a written entry go (it stays readable from the
    /// file). Entries not written yet, and those of an in-memory cache, stay.
    pub fn release(&mut self, key: &EntryKey) {
        if let Some(slot) = self.slots.get_mut(key)
            && slot.place.is_some()
        {
            slot.entry = None;
        }
    }

    /// Adds an entry (written by the next [`flush`](EmbeddingCache::flush)).
    /// Entries of the wrong length are ignored.
    pub fn insert(&mut self, key: EntryKey, embedding: Arc<CachedEmbedding>) {
        let tokens = &embedding.tokens;
        let valid = embedding.vector.len() == self.dim
            && embedding.parts.iter().all(|p| p.len() == self.dim)
            && tokens.scales.len() == tokens.len()
            && tokens.values.len() == tokens.len() * self.dim;
        if !valid {
            return;
        }
        self.clock += 1;
        let place = self.slots.get(&key).and_then(|slot| slot.place);
        if self
            .slots
            .insert(
                key,
                Slot {
                    entry: Some(embedding),
                    place,
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
        let mut appended: Vec<u8> = Vec::new();
        let mut places: Vec<(EntryKey, Place)> = Vec::new();
        for key in &self.pending {
            if let Some(embedding) = self.slots.get(key).and_then(|slot| slot.entry.as_ref()) {
                let record = self.record(key, embedding);
                let offset = self.file_bytes + appended.len() as u64;
                places.push((
                    *key,
                    Place {
                        offset,
                        len: record.len(),
                    },
                ));
                appended.extend_from_slice(&record);
            }
        }
        let fits = self.file_bytes + appended.len() as u64 <= self.max_bytes;
        if !self.needs_rewrite && self.file_bytes > 0 && fits && self.file.is_some() {
            let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
            file.write_all(&appended)?;
            self.file_bytes += appended.len() as u64;
            for (key, place) in places {
                if let Some(slot) = self.slots.get_mut(&key) {
                    slot.place = Some(place);
                }
            }
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
        let header = self.header();
        let mut size = header.len() as u64;
        let mut kept = Vec::new();
        for (key, slot) in by_recency {
            let len = self.slot_len(slot) as u64;
            if size + len <= target {
                size += len;
                kept.push(*key);
            }
        }
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        let mut placed: HashMap<EntryKey, (u64, usize)> = HashMap::new();
        {
            let mut writer = BufWriter::new(file.as_file_mut());
            writer.write_all(&header)?;
            let mut at = header.len() as u64;
            // Oldest first: reading takes later records as more recent.
            for key in kept.iter().rev() {
                let slot = &self.slots[key];
                let record = match (&slot.entry, slot.place) {
                    (Some(embedding), _) => Some(self.record(key, embedding)),
                    (None, Some(place)) => read_at(self.file.as_ref(), place),
                    (None, None) => None,
                };
                // A record that can no longer be read is dropped.
                let Some(record) = record else { continue };
                writer.write_all(&record)?;
                placed.insert(*key, (at, record.len()));
                at += record.len() as u64;
            }
            writer.flush()?;
        }
        file.as_file().sync_all()?;
        let file = file.persist(path).map_err(|e| e.error)?;
        self.file_bytes = file.metadata()?.len();
        self.file = Some(file);
        self.slots.retain(|key, slot| match placed.get(key) {
            None => false,
            Some(&(offset, len)) => {
                slot.place = Some(Place { offset, len });
                true
            }
        });
        Ok(())
    }

    fn file_bytes_if_all(&self) -> u64 {
        let header = self.header().len() as u64;
        let records: u64 = self
            .slots
            .values()
            .map(|slot| self.slot_len(slot) as u64)
            .sum();
        header + records
    }

    fn slot_len(&self, slot: &Slot) -> usize {
        match (&slot.entry, slot.place) {
            (_, Some(place)) => place.len,
            (Some(embedding), None) => self.record_len(embedding),
            (None, None) => 0,
        }
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

    /// Verifies every record of `file` and notes where each is, returning
    /// what it found; the entries themselves are read when asked for.
    fn index(&mut self, file: File) -> CacheStatus {
        let status = self.index_records(&file);
        self.file = Some(file);
        status
    }

    fn index_records(&mut self, file: &File) -> CacheStatus {
        let file_len = file.metadata().map_or(0, |m| m.len());
        self.file_bytes = file_len;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let header = self.header();
        let mut head = Vec::with_capacity(header.len());
        let read = (&mut reader)
            .take(header.len() as u64)
            .read_to_end(&mut head);
        if read.is_err() || head != header {
            self.needs_rewrite = true;
            let reason = if head.starts_with(MAGIC) {
                "header does not match this model or format version"
            } else {
                "not a Hone embedding cache"
            };
            return CacheStatus::Rebuilt {
                reason: reason.into(),
            };
        }
        let mut at = header.len() as u64;
        let mut record = Vec::new();
        while at < file_len {
            match self.verify_record(&mut reader, &mut record, file_len - at) {
                Ok(key) => {
                    self.clock += 1;
                    let len = record.len();
                    self.slots.insert(
                        key,
                        Slot {
                            entry: None,
                            place: Some(Place { offset: at, len }),
                            recency: self.clock,
                        },
                    );
                    at += len as u64;
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

    /// Reads the next record into `record` and checks it, returning its key.
    fn verify_record(
        &self,
        reader: &mut impl Read,
        record: &mut Vec<u8>,
        remaining: u64,
    ) -> Result<EntryKey, &'static str> {
        let mut head = [0u8; 44];
        if remaining < head.len() as u64 || reader.read_exact(&mut head).is_err() {
            return Err("truncated record");
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]) as usize
        };
        let (payload_len, parts, tokens) = (u32_at(0), u32_at(36), u32_at(40));
        if parts > 4096 || tokens > 1 << 16 {
            return Err("malformed record");
        }
        let total = self.record_len_for(parts, tokens);
        if payload_len + 4 + CHECK_LEN != total {
            return Err("malformed record");
        }
        if total as u64 > remaining {
            return Err("truncated record");
        }
        record.clear();
        record.extend_from_slice(&head);
        record.resize(total, 0);
        reader
            .read_exact(&mut record[head.len()..])
            .map_err(|_| "truncated record")?;
        let (body, stored) = record.split_at(total - CHECK_LEN);
        if check(body) != stored {
            return Err("checksum mismatch");
        }
        body[4..36].try_into().map_err(|_| "malformed record")
    }
}

/// The bytes of the record at `place` of `file`.
fn read_at(file: Option<&File>, place: Place) -> Option<Vec<u8>> {
    let mut file = file?;
    file.seek(SeekFrom::Start(place.offset)).ok()?;
    let mut bytes = vec![0u8; place.len];
    file.read_exact(&mut bytes).ok()?;
    Some(bytes)
}

/// The entry whose record is at `place` of `file`.
fn read_entry(file: Option<&File>, place: Option<Place>, dim: usize) -> Option<CachedEmbedding> {
    parse_record(&read_at(file, place?)?, dim)
}

/// The embedding of a record verified when the file was opened.
fn parse_record(record: &[u8], dim: usize) -> Option<CachedEmbedding> {
    let u32_at = |at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(record.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let (parts, tokens) = (u32_at(36)?, u32_at(40)?);
    let body = record.get(44..record.len().checked_sub(CHECK_LEN)?)?;
    if body.len() != (1 + parts) * dim * 4 + tokens * (8 + dim) {
        return None;
    }
    let floats = |bytes: &[u8]| -> Vec<f32> {
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    };
    let (vectors, rest) = body.split_at((1 + parts) * dim * 4);
    let mut vectors = vectors.chunks_exact(dim * 4).map(floats);
    let vector = vectors.next()?;
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
    Some(CachedEmbedding {
        vector,
        parts: vectors.collect(),
        tokens,
    })
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
        cache.insert(entry_key("a", &[]), embedding(1.0, 0).into());
        cache.flush().unwrap();
        let mut cache = open(&path);
        cache.insert(
            entry_key("b", std::slice::from_ref(&(0..1))),
            embedding(2.0, 2).into(),
        );
        cache.flush().unwrap();
        let mut cache = open(&path);
        assert_eq!(cache.status(), &CacheStatus::Loaded { entries: 2 });
        assert_eq!(
            cache.get(&entry_key("a", &[])).map(|e| e.as_ref()),
            Some(&embedding(1.0, 0))
        );
        assert_eq!(
            cache
                .get(&entry_key("b", std::slice::from_ref(&(0..1))))
                .map(|e| e.as_ref()),
            Some(&embedding(2.0, 2))
        );
        assert_eq!(
            cache.get(&entry_key("b", &[])),
            None,
            "part ranges are part of the key"
        );
    }

    #[test]
    fn entries_are_read_from_the_file_when_first_asked_for() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("model.bin");
        let mut cache = open(&path);
        for i in 0..3 {
            cache.insert(
                entry_key(&i.to_string(), &[]),
                embedding(i as f32, 1).into(),
            );
        }
        cache.flush().unwrap();
        let mut cache = open(&path);
        assert_eq!(cache.status(), &CacheStatus::Loaded { entries: 3 });
        assert_eq!(cache.resident(), 0, "opening reads no entry");
        assert_eq!(
            cache.get(&entry_key("1", &[])).map(|e| e.as_ref()),
            Some(&embedding(1.0, 1))
        );
        assert_eq!(cache.resident(), 1);
        // A rewrite keeps the entries still on disk readable at their new place.
        cache.needs_rewrite = true;
        cache.flush().unwrap();
        assert_eq!(
            cache.get(&entry_key("2", &[])).map(|e| e.as_ref()),
            Some(&embedding(2.0, 1))
        );
        assert_eq!(open(&path).status(), &CacheStatus::Loaded { entries: 3 });
    }

    #[test]
    fn a_damaged_tail_keeps_earlier_entries_and_is_repaired() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("model.bin");
        let mut cache = open(&path);
        for (i, text) in ["a", "b", "c"].iter().enumerate() {
            cache.insert(entry_key(text, &[]), embedding(i as f32, 1).into());
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
        cache.insert(entry_key("a", &[]), embedding(1.0, 0).into());
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
            cache.insert(
                entry_key(&i.to_string(), &[]),
                embedding(i as f32, 0).into(),
            );
        }
        cache.flush().unwrap();
        let mut cache = EmbeddingCache::open(&path, "test-model", DIM, max_bytes);
        assert_eq!(cache.len(), 10);
        // The oldest entry is used again, so it survives the compaction.
        assert!(cache.get(&entry_key("0", &[])).is_some());
        for i in 10..13 {
            cache.insert(
                entry_key(&i.to_string(), &[]),
                embedding(i as f32, 0).into(),
            );
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
        cache.insert(entry_key("a", &[]), embedding(1.0, 0).into());
        assert!(cache.flush().is_err());
        assert!(cache.last_write_error().is_some());
        assert!(cache.get(&entry_key("a", &[])).is_some());
    }
}
