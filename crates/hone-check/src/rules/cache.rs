//! What a second `hone check` of an unchanged library answers from disk
//! instead of working out again, as ruff keeps its lint cache.
//!
//! Two answers cost most of a check and depend only on text:
//!
//! - "does this body exceed 5,000 tokens?" (`HS402`), kept per body by
//!   [`LimitMemo`];
//! - the colliding pairs of a library (`HS502`), which depend only on the
//!   routing texts of all its skills. Analysing them (stemming every routing
//!   text, building postings, scoring pairs) cost a warm check of the
//!   1,821-skill corpus about 38 ms and 13 MiB of its 175 ms and 66 MiB
//!   (measured): [`CollisionMemo`] keeps the result keyed by a 128-bit XXH3
//!   fingerprint of every routing document, in library order.
//!
//! A missing, damaged or foreign file is an empty cache, never an error; a
//! cache that cannot be written only makes the next run slower.
//!
//! The cache is the check's own (it was the top-level `check_cache`): the
//! rules' library pass takes it and reads the collision memo, and the memo
//! holds the collision rule's results, so the two live in one module tree
//! rather than importing each other.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::rank::RoutingDoc;
use crate::rank::collision::{Collision, MIN_SHARED_TERMS, TERM_SIMILARITY};
use crate::tokens::memo::LimitMemo;

/// The caches of one check run.
#[derive(Default)]
pub struct CheckCache {
    pub limits: LimitMemo,
    pub collisions: CollisionMemo,
}

impl CheckCache {
    /// Caches that are never saved.
    pub fn in_memory() -> CheckCache {
        CheckCache::default()
    }

    /// The caches under `dir`: `tokens/limits.bin` and `check/collisions.json`.
    pub fn open(dir: &Path) -> CheckCache {
        CheckCache {
            limits: LimitMemo::open(&dir.join("tokens").join("limits.bin")),
            collisions: CollisionMemo::open(&dir.join("check").join("collisions.json")),
        }
    }

    /// The caches in the user's cache folder (`$XDG_CACHE_HOME/hone`), or in
    /// memory when there is none.
    pub fn open_default() -> CheckCache {
        crate::workspace::hone_cache_dir()
            .map_or_else(CheckCache::in_memory, |dir| CheckCache::open(&dir))
    }

    /// Writes back what this run learned; nothing when it learned nothing.
    pub fn save(&self) -> std::io::Result<()> {
        let limits = self.limits.save();
        self.collisions.save()?;
        limits
    }
}

/// Bump when the collision analysis changes what it finds for the same
/// routing texts (analyser, thresholds, the shape of [`Collision`]): old
/// entries then stop matching.
const COLLISION_FORMAT: u32 = 1;
/// Libraries remembered; checking a few libraries in turn keeps them all warm.
const MAX_LIBRARIES: usize = 8;

pub(crate) type Fingerprint = u128;

#[derive(Serialize, Deserialize)]
struct CollisionFile {
    format: u32,
    /// Most recently used first.
    libraries: Vec<Remembered>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Remembered {
    /// Hex, as JSON has no 128-bit integers.
    fingerprint: String,
    collisions: Vec<Collision>,
}

/// The colliding pairs of the libraries checked last, by a fingerprint of
/// their routing documents.
#[derive(Default)]
pub struct CollisionMemo {
    path: Option<PathBuf>,
    known: Vec<Remembered>,
    /// What to move to the front when saving: a new result, or one found
    /// further back.
    used: Mutex<Option<Remembered>>,
}

impl CollisionMemo {
    /// The memo stored at `path`; empty when the file is missing or damaged.
    pub fn open(path: &Path) -> CollisionMemo {
        let known = std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<CollisionFile>(&bytes).ok())
            .filter(|file| file.format == COLLISION_FORMAT)
            .map(|file| file.libraries)
            .unwrap_or_default();
        CollisionMemo {
            path: Some(path.to_path_buf()),
            known,
            used: Mutex::default(),
        }
    }

    /// The collisions of `docs`, remembered or else from `compute`.
    pub fn collisions(
        &self,
        docs: &[RoutingDoc],
        compute: impl FnOnce() -> Vec<Collision>,
    ) -> Vec<Collision> {
        let fingerprint = format!("{:032x}", fingerprint(docs));
        if let Some(at) = self.known.iter().position(|k| k.fingerprint == fingerprint) {
            let collisions = self.known[at].collisions.clone();
            if at > 0 {
                self.remember(fingerprint, collisions.clone());
            }
            return collisions;
        }
        let collisions = compute();
        self.remember(fingerprint, collisions.clone());
        collisions
    }

    fn remember(&self, fingerprint: String, collisions: Vec<Collision>) {
        if let Ok(mut used) = self.used.lock() {
            *used = Some(Remembered {
                fingerprint,
                collisions,
            });
        }
    }

    /// Writes the memo back when this run computed or reordered something.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let Some(first) = self.used.lock().ok().and_then(|used| used.clone()) else {
            return Ok(());
        };
        let rest = self
            .known
            .iter()
            .filter(|k| k.fingerprint != first.fingerprint)
            .cloned();
        let libraries: Vec<Remembered> = std::iter::once(first.clone())
            .chain(rest)
            .take(MAX_LIBRARIES)
            .collect();
        let file = CollisionFile {
            format: COLLISION_FORMAT,
            libraries,
        };
        let bytes = serde_json::to_vec(&file).map_err(std::io::Error::other)?;
        crate::workspace::write_cache_atomic(path, &bytes)
    }
}

/// Everything the collision analysis reads, in order, length-prefixed so
/// that no two libraries hash the same stream. The engine's version is in
/// it, so a new release never trusts an old answer. The analysis's index
/// kept in memory between checks is known by it too.
pub(crate) fn fingerprint(docs: &[RoutingDoc]) -> Fingerprint {
    let mut hasher = Xxh3::new();
    let mut field = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(&COLLISION_FORMAT.to_le_bytes());
    field(&TERM_SIMILARITY.to_le_bytes());
    field(&(MIN_SHARED_TERMS as u64).to_le_bytes());
    field(&(docs.len() as u64).to_le_bytes());
    for doc in docs {
        field(doc.key.as_bytes());
        field(doc.id.as_bytes());
        field(doc.name.as_bytes());
        field(doc.description.as_bytes());
        match &doc.when_to_use {
            Some(when) => {
                field(b"1");
                field(when.as_bytes());
            }
            None => field(b"0"),
        }
        field(&(doc.triggers.len() as u64).to_le_bytes());
        for trigger in &doc.triggers {
            field(trigger.as_bytes());
        }
    }
    hasher.digest128()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(key: &str, description: &str) -> RoutingDoc {
        RoutingDoc {
            key: key.into(),
            id: key.into(),
            name: key.into(),
            description: description.into(),
            when_to_use: None,
            triggers: Vec::new(),
        }
    }

    fn collision(first_key: &str) -> Collision {
        Collision {
            first: 0,
            second: 1,
            first_key: first_key.into(),
            second_key: "b".into(),
            term_similarity: 0.75,
            semantic_similarity: None,
            shared: vec!["pdf".into(), "forms".into()],
        }
    }

    #[test]
    fn a_result_survives_a_restart_and_is_not_recomputed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("check/collisions.json");
        let docs = vec![doc("a", "fill pdf forms"), doc("b", "fill pdf forms too")];
        let memo = CollisionMemo::open(&path);
        assert_eq!(
            memo.collisions(&docs, || vec![collision("a")]),
            vec![collision("a")]
        );
        memo.save().unwrap();
        let reopened = CollisionMemo::open(&path);
        let again = reopened.collisions(&docs, || panic!("recomputed an unchanged library"));
        assert_eq!(again, vec![collision("a")]);
        // An unchanged run writes nothing.
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        reopened.save().unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before
        );
    }

    #[test]
    fn any_change_to_a_routing_text_or_the_order_recomputes() {
        let docs = vec![doc("a", "fill pdf forms"), doc("b", "merge pdf files")];
        let base = fingerprint(&docs);
        let mut edited = docs.clone();
        edited[1].triggers.push("merge".into());
        let mut when = docs.clone();
        when[0].when_to_use = Some(String::new());
        let mut moved = docs.clone();
        moved.swap(0, 1);
        // Text moved from one field to the next is a different library.
        let mut shifted = docs.clone();
        shifted[0].name = "a f".into();
        shifted[0].description = "ill pdf forms".into();
        for other in [edited, when, moved, shifted] {
            assert_ne!(fingerprint(&other), base);
        }
        assert_eq!(fingerprint(&docs.clone()), base);
    }

    #[test]
    fn a_damaged_or_foreign_file_is_an_empty_memo() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("collisions.json");
        for garbage in [
            &b""[..],
            b"{\"format\": 999, \"libraries\": []}",
            b"{\"format\": 1, \"libr",
            b"not json",
        ] {
            std::fs::write(&path, garbage).unwrap();
            assert!(CollisionMemo::open(&path).known.is_empty());
        }
    }

    #[test]
    fn the_most_recent_libraries_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("collisions.json");
        for n in 0..MAX_LIBRARIES + 2 {
            let memo = CollisionMemo::open(&path);
            let docs = vec![doc(&format!("skill-{n}"), "text")];
            memo.collisions(&docs, Vec::new);
            memo.save().unwrap();
        }
        let known = CollisionMemo::open(&path).known;
        assert_eq!(known.len(), MAX_LIBRARIES);
        let newest = format!("{:032x}", fingerprint(&[doc("skill-9", "text")]));
        assert_eq!(known[0].fingerprint, newest);
    }
}
