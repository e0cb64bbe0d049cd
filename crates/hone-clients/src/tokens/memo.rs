//! A persistent memo of "does this text exceed N tokens?", so that checking a
//! large library a second time tokenizes nothing that has not changed.
//!
//! The body-size rule (`HS402`) is the one expensive rule: deciding whether a
//! body passes 5,000 tokens means running the tokenizer over up to ~20 KB of
//! text, for every long body. The answer depends only on the encoding, the
//! limit and the text, so it is keyed by a 128-bit XXH3 hash of those three
//! (a cache key, not a defence: XXH3 hashes the corpus's long bodies about
//! ten times faster than SHA-256, and this hash runs on every check) and kept on
//! disk (`$XDG_CACHE_HOME/hone/tokens/limits.bin`), as ruff keeps its lint
//! cache. A missing, damaged or foreign file is an empty memo, never an error:
//! the answers are recomputed and the file rewritten atomically.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::Tokenizer;

const MAGIC: &[u8; 8] = b"HONELIM2";
const KEY_LEN: usize = 16;
const RECORD_LEN: usize = KEY_LEN + 1;
const CHECK_LEN: usize = 8;
/// About 1.7 MB on disk; past it, only the answers used by the last run are kept.
pub const MAX_ENTRIES: usize = 100_000;

type Key = [u8; KEY_LEN];

struct Known {
    exceeds: bool,
    used: AtomicBool,
}

/// Answers to "does this text exceed `limit` tokens?", shared by threads.
#[derive(Default)]
pub struct LimitMemo {
    path: Option<PathBuf>,
    known: HashMap<Key, Known>,
    /// Answers learned this run, also for the texts it meets again: a
    /// library often holds copies of a skill (168 of the shared corpus's
    /// long bodies repeat an earlier one, 1.9 of its 14.8 MB).
    fresh: Mutex<HashMap<Key, bool>>,
}

impl LimitMemo {
    /// A memo that is never saved.
    pub fn in_memory() -> LimitMemo {
        LimitMemo::default()
    }

    /// The memo stored at `path`; empty when the file is missing or damaged.
    pub fn open(path: &Path) -> LimitMemo {
        let known = std::fs::read(path)
            .ok()
            .and_then(|bytes| decode(&bytes))
            .unwrap_or_default();
        LimitMemo {
            path: Some(path.to_path_buf()),
            known,
            fresh: Mutex::default(),
        }
    }

    /// Where the CLI keeps the memo: `<hone cache>/tokens/limits.bin`.
    pub fn default_path() -> Option<PathBuf> {
        crate::workspace::hone_cache_dir().map(|dir| dir.join("tokens").join("limits.bin"))
    }

    /// Whether `text` has more than `limit` tokens, from the memo when known.
    pub fn exceeds(&self, tokenizer: &Tokenizer, text: &str, limit: usize) -> bool {
        // Short texts are decided without tokenizing; not worth a record.
        if text.len() <= limit {
            return tokenizer.exceeds(text, limit);
        }
        let key = key(tokenizer.name(), limit, text);
        if let Some(known) = self.known.get(&key) {
            known.used.store(true, Ordering::Relaxed);
            return known.exceeds;
        }
        // A poisoned lock only loses answers, never gives a wrong one.
        let learned = self.fresh.lock().ok().and_then(|f| f.get(&key).copied());
        if let Some(exceeds) = learned {
            return exceeds;
        }
        let exceeds = tokenizer.exceeds(text, limit);
        if let Ok(mut fresh) = self.fresh.lock() {
            fresh.insert(key, exceeds);
        }
        exceeds
    }

    /// Writes the memo back when this run learned something new. Past
    /// [`MAX_ENTRIES`], answers this run did not use are dropped.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let fresh = self.fresh.lock().map(|f| f.clone()).unwrap_or_default();
        if fresh.is_empty() {
            return Ok(());
        }
        let over = self.known.len() + fresh.len() > MAX_ENTRIES;
        let kept = self
            .known
            .iter()
            .filter(|(_, k)| !over || k.used.load(Ordering::Relaxed))
            .map(|(key, k)| (*key, k.exceeds));
        let mut records: Vec<(Key, bool)> = fresh.into_iter().chain(kept).collect();
        records.truncate(MAX_ENTRIES);
        crate::workspace::write_cache_atomic(path, &encode(&records))
    }

    pub fn len(&self) -> usize {
        self.known.len() + self.fresh.lock().map_or(0, |f| f.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn key(encoding: &str, limit: usize, text: &str) -> Key {
    let mut hasher = Xxh3::new();
    hasher.update(encoding.as_bytes());
    hasher.update(&[0]);
    hasher.update(&(limit as u64).to_le_bytes());
    hasher.update(text.as_bytes());
    hasher.digest128().to_le_bytes()
}

fn checksum(bytes: &[u8]) -> [u8; CHECK_LEN] {
    xxh3_64(bytes).to_le_bytes()
}

fn encode(records: &[(Key, bool)]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(MAGIC.len() + records.len() * RECORD_LEN + CHECK_LEN);
    bytes.extend_from_slice(MAGIC);
    for (key, exceeds) in records {
        bytes.extend_from_slice(key);
        bytes.push(u8::from(*exceeds));
    }
    let check = checksum(&bytes);
    bytes.extend_from_slice(&check);
    bytes
}

fn decode(bytes: &[u8]) -> Option<HashMap<Key, Known>> {
    let body_len = bytes.len().checked_sub(CHECK_LEN)?;
    let (body, check) = bytes.split_at(body_len);
    let records = body.strip_prefix(MAGIC.as_slice())?;
    if records.len() % RECORD_LEN != 0 || checksum(body) != check {
        return None;
    }
    let known = records
        .chunks_exact(RECORD_LEN)
        .map(|record| {
            let mut key = [0; KEY_LEN];
            key.copy_from_slice(&record[..KEY_LEN]);
            let exceeds = record[KEY_LEN] != 0;
            let used = AtomicBool::new(false);
            (key, Known { exceeds, used })
        })
        .collect();
    Some(known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_text(words: usize) -> String {
        "lorem ipsum ".repeat(words)
    }

    #[test]
    fn answers_survive_a_restart_and_match_the_tokenizer() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("tokens/limits.bin");
        let tokenizer = Tokenizer::o200k();
        let (short, long) = (long_text(100), long_text(4000));
        let memo = LimitMemo::open(&path);
        assert!(!memo.exceeds(&tokenizer, &short, 500));
        assert!(memo.exceeds(&tokenizer, &long, 5000));
        memo.save().unwrap();
        let reopened = LimitMemo::open(&path);
        assert_eq!(reopened.known.len(), 2);
        assert!(!reopened.exceeds(&tokenizer, &short, 500));
        assert!(reopened.exceeds(&tokenizer, &long, 5000));
        // A different limit is a different question.
        assert!(!reopened.exceeds(&tokenizer, &long, 50_000));
    }

    #[test]
    fn a_damaged_file_is_an_empty_memo_and_is_rewritten() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("limits.bin");
        let tokenizer = Tokenizer::o200k();
        let text = long_text(4000);
        let memo = LimitMemo::open(&path);
        memo.exceeds(&tokenizer, &text, 5000);
        memo.save().unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[MAGIC.len() + 3] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let damaged = LimitMemo::open(&path);
        assert!(damaged.known.is_empty());
        assert!(damaged.exceeds(&tokenizer, &text, 5000));
        damaged.save().unwrap();
        assert_eq!(LimitMemo::open(&path).known.len(), 1);
        for garbage in [&b""[..], b"HONELIM1", b"not a memo at all, just some bytes"] {
            std::fs::write(&path, garbage).unwrap();
            assert!(LimitMemo::open(&path).known.is_empty());
        }
    }

    #[test]
    fn a_text_met_again_in_a_run_is_answered_from_what_it_learned() {
        let memo = LimitMemo::in_memory();
        let tokenizer = Tokenizer::o200k();
        let (over, under) = (long_text(4000), long_text(1000));
        for _ in 0..3 {
            assert!(memo.exceeds(&tokenizer, &over, 5000));
            assert!(!memo.exceeds(&tokenizer, &under, 5000));
        }
        assert_eq!(memo.len(), 2);
    }

    #[test]
    fn an_unchanged_run_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("limits.bin");
        LimitMemo::open(&path).save().unwrap();
        assert!(!path.exists());
    }
}
