//! Embedded sections: each skill's body chunks as 8-bit vectors, scanned for
//! the sections closest to a request.
//!
//! A skill's sections are embedded with the installed model, one vector per
//! chunk ([`super::doc::Chunk`]), through a cache file of their own beside the
//! descriptions' (`<model-id>-chunks.bin`, the same format and bound), so
//! reopening a library embeds nothing and an edit embeds the sections that
//! changed. Only sentence vectors are kept: the token vectors the listing's
//! late interaction reads would make the file some 60 times larger.
//!
//! At 10,000 skills and up to 12 sections each a float matrix would take
//! 180 MB; the index keeps each vector in 8 bits with one scale (a cosine off
//! by about 0.004, far below the gaps that order skills), 4.6 MB per 10,000
//! chunks, and the scan multiplies integers, which the compiler vectorises.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use crate::embed::cache::{DEFAULT_MAX_BYTES, entry_key};
use crate::embed::{EmbedProgress, Embedder, EmbeddingCache, SegmentedEmbedding};

use super::super::RankError;
use super::doc::Chunk;

/// New chunk vectors are written to the cache file this many at a time.
const FLUSH_EVERY: usize = 256;

/// A dead row's owner: its skill was edited or removed.
const DEAD: u32 = u32::MAX;

/// The chunks' embedding cache, opened beside the descriptions'.
pub struct ChunkCache {
    cache: Mutex<EmbeddingCache>,
}

impl ChunkCache {
    /// The cache file for `embedder`'s model in `dir` (none: in memory).
    pub fn open(embedder: &Embedder, dir: Option<&Path>) -> Self {
        let model = embedder.model();
        let cache = match dir {
            Some(dir) => EmbeddingCache::open(
                &dir.join(format!("{}-chunks.bin", model.id())),
                model.id(),
                model.dim(),
                DEFAULT_MAX_BYTES,
            ),
            None => EmbeddingCache::in_memory(model.id(), model.dim()),
        };
        ChunkCache {
            cache: Mutex::new(cache),
        }
    }

    /// The unit vector of every text when the cache holds them all; `None`
    /// (and nothing embedded) when it lacks any.
    pub fn cached_vectors(&self, texts: &[&str]) -> Option<Vec<Vec<f32>>> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        texts
            .iter()
            .map(|text| Some(cache.peek(&entry_key(text, &[]))?.vector.clone()))
            .collect()
    }

    /// Embeds the texts the cache lacks into it, reporting `progress`; how
    /// many were embedded. Holds a batch's vectors at a time, not all of
    /// them, as [`ChunkCache::vectors`] would.
    pub fn embed_missing(
        &self,
        embedder: &Embedder,
        texts: &[&str],
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<usize, RankError> {
        let missing: Vec<&str> = {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            texts
                .iter()
                .copied()
                .filter(|text| cache.peek(&entry_key(text, &[])).is_none())
                .collect()
        };
        let total = missing.len();
        for (batch_index, batch) in missing.chunks(FLUSH_EVERY).enumerate() {
            let done_before = batch_index * FLUSH_EVERY;
            self.vectors(embedder, batch, &mut |p| {
                progress(EmbedProgress {
                    done: done_before + p.done,
                    total,
                })
            })?;
        }
        Ok(total)
    }

    /// The unit vector of every text, from the cache where possible; the
    /// rest embedded (reported to `progress`) and written to the cache.
    pub fn vectors(
        &self,
        embedder: &Embedder,
        texts: &[&str],
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Vec<Vec<f32>>, RankError> {
        let keys: Vec<_> = texts.iter().map(|t| entry_key(t, &[])).collect();
        let mut vectors = vec![Vec::new(); texts.len()];
        let mut missing = Vec::new();
        {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            for (i, key) in keys.iter().enumerate() {
                match cache.peek(key) {
                    Some(entry) => vectors[i] = entry.vector.clone(),
                    None => missing.push(i),
                }
            }
        }
        let total = missing.len();
        // Written batch by batch: a library's first indexing takes minutes,
        // and an interrupted one keeps what it embedded.
        for (batch_index, batch) in missing.chunks(FLUSH_EVERY).enumerate() {
            let inputs: Vec<(&str, &[std::ops::Range<usize>])> =
                batch.iter().map(|&i| (texts[i], &[][..])).collect();
            let done_before = batch_index * FLUSH_EVERY;
            let embedded = embedder
                .model()
                .embed_segmented(&inputs, &mut |p| {
                    progress(EmbedProgress {
                        done: done_before + p.done,
                        total,
                    })
                })
                .map_err(|e| RankError::Model(e.to_string()))?;
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            for (&i, embedding) in batch.iter().zip(embedded) {
                // Only the sentence vector is stored (see the module docs).
                let kept = SegmentedEmbedding {
                    vector: embedding.vector,
                    ..SegmentedEmbedding::default()
                };
                vectors[i] = kept.vector.clone();
                cache.insert(keys[i], std::sync::Arc::new(kept));
            }
            // A cache that cannot be written costs time on the next open only.
            let _ = cache.flush();
            for &i in batch {
                cache.release(&keys[i]);
            }
        }
        Ok(vectors)
    }
}

/// One vector in 8 bits: `value ≈ scale · byte`.
fn quantise(vector: &[f32], into: &mut Vec<i8>) -> f32 {
    let largest = vector.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = (largest / 127.0).max(f32::MIN_POSITIVE);
    into.extend(
        vector
            .iter()
            .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8),
    );
    scale
}

fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

/// The chunk vectors of a library, by slot.
pub struct ChunkIndex {
    dim: usize,
    values: Vec<i8>,
    scales: Vec<f32>,
    /// The slot of each row, [`DEAD`] once replaced.
    owners: Vec<u32>,
    headings: Vec<Box<str>>,
    rows_of: HashMap<u32, Vec<u32>>,
    dead: usize,
}

/// The best sections of one skill for a request.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SectionMatch {
    /// Cosine of the closest section (0 without sections).
    pub best: f32,
    /// Cosine of the second closest (0 with fewer than two).
    pub second: f32,
    /// Row of the closest section.
    pub row: Option<u32>,
}

impl ChunkIndex {
    pub fn new(dim: usize) -> Self {
        ChunkIndex {
            dim,
            values: Vec::new(),
            scales: Vec::new(),
            owners: Vec::new(),
            headings: Vec::new(),
            rows_of: HashMap::new(),
            dead: 0,
        }
    }

    /// Sets the sections of `slot` (replacing what it held) from their unit
    /// vectors. Vectors of the wrong length are skipped.
    pub fn set(&mut self, slot: usize, chunks: &[Chunk], vectors: &[Vec<f32>]) {
        self.remove(slot);
        let owner = u32::try_from(slot).unwrap_or(DEAD);
        let mut rows = Vec::with_capacity(chunks.len());
        for (chunk, vector) in chunks.iter().zip(vectors) {
            if vector.len() != self.dim {
                continue;
            }
            rows.push(u32::try_from(self.owners.len()).unwrap_or(DEAD));
            self.scales.push(quantise(vector, &mut self.values));
            self.owners.push(owner);
            self.headings.push(chunk.heading.clone().into_boxed_str());
        }
        if !rows.is_empty() {
            self.rows_of.insert(owner, rows);
        }
    }

    /// Forgets the sections of `slot`; rows are reclaimed once half are dead.
    pub fn remove(&mut self, slot: usize) {
        let owner = u32::try_from(slot).unwrap_or(DEAD);
        let Some(rows) = self.rows_of.remove(&owner) else {
            return;
        };
        for row in rows {
            self.owners[row as usize] = DEAD;
            self.dead += 1;
        }
        if self.dead * 2 > self.owners.len() {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let dim = self.dim;
        let mut kept = ChunkIndex::new(dim);
        for (row, &owner) in self.owners.iter().enumerate() {
            if owner == DEAD {
                continue;
            }
            let new_row = u32::try_from(kept.owners.len()).unwrap_or(DEAD);
            kept.values
                .extend_from_slice(&self.values[row * dim..(row + 1) * dim]);
            kept.scales.push(self.scales[row]);
            kept.owners.push(owner);
            kept.headings.push(self.headings[row].clone());
            kept.rows_of.entry(owner).or_default().push(new_row);
        }
        *self = kept;
    }

    /// The heading of a row.
    pub fn heading(&self, row: u32) -> &str {
        self.headings.get(row as usize).map_or("", |h| h)
    }

    /// Live rows.
    pub fn len(&self) -> usize {
        self.owners.len() - self.dead
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// For each of `slots` slots, its closest sections to the unit vector
    /// `query`.
    pub fn best(&self, query: &[f32], slots: usize) -> Vec<SectionMatch> {
        let mut found = vec![SectionMatch::default(); slots];
        if query.len() != self.dim {
            return found;
        }
        let mut quantised = Vec::with_capacity(self.dim);
        let query_scale = quantise(query, &mut quantised);
        for (row, (&owner, &scale)) in self.owners.iter().zip(&self.scales).enumerate() {
            let Some(slot) = found.get_mut(owner as usize) else {
                continue;
            };
            let values = &self.values[row * self.dim..(row + 1) * self.dim];
            let cosine = dot_i8(values, &quantised) as f32 * scale * query_scale;
            if slot.row.is_none() || cosine > slot.best {
                if slot.row.is_some() {
                    slot.second = slot.best;
                }
                slot.best = cosine;
                slot.row = u32::try_from(row).ok();
            } else if cosine > slot.second {
                slot.second = cosine;
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(values: &[f32]) -> Vec<f32> {
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        values.iter().map(|v| v / norm).collect()
    }

    fn chunk(heading: &str) -> Chunk {
        Chunk {
            heading: heading.into(),
            text: heading.into(),
        }
    }

    #[test]
    fn the_closest_section_of_each_skill_is_found_through_edits() {
        let mut index = ChunkIndex::new(3);
        index.set(
            0,
            &[chunk("a"), chunk("b")],
            &[unit(&[1.0, 0.0, 0.0]), unit(&[0.0, 1.0, 0.0])],
        );
        index.set(1, &[chunk("c")], &[unit(&[0.0, 0.0, 1.0])]);
        let query = unit(&[0.1, 1.0, 0.0]);
        let found = index.best(&query, 2);
        assert_eq!(index.heading(found[0].row.unwrap()), "b");
        assert!((found[0].best - 0.995).abs() < 0.01);
        assert!((found[0].second - 0.0995).abs() < 0.01);
        assert!(found[1].best.abs() < 0.01);
        // Replacing a skill's sections twice compacts the rows.
        index.set(0, &[chunk("d")], &[unit(&[0.0, 0.0, 1.0])]);
        index.set(0, &[chunk("e")], &[unit(&[0.0, 1.0, 0.0])]);
        assert_eq!(index.len(), 2);
        let found = index.best(&query, 3);
        assert_eq!(index.heading(found[0].row.unwrap()), "e");
        assert_eq!(found[2], SectionMatch::default());
        // A wrong-length query or vector is ignored, not a panic.
        index.set(2, &[chunk("f")], &[vec![1.0]]);
        assert_eq!(index.best(&[1.0], 3)[0], SectionMatch::default());
    }
}
