//! Which skills of a library describe the same requests: the analysis behind
//! the routing-collision rule (`HS502`, reported by
//! `hone_check::rules::collision`) and the edges of the library's map
//! ([`super::map`]).
//!
//! An agent chooses a skill from its routing metadata alone (`name`,
//! `description`, `when_to_use`, `triggers`). When two skills of a library
//! say nearly the same thing there, the agent picks either.
//!
//! Closeness is measured two ways:
//!
//! - **Shared distinctive terms**, always: the routing texts are analysed as
//!   the keyword ranker does (stemmed, stop words dropped) and compared by
//!   the cosine of their IDF-weighted term sets. A word most skills use
//!   weighs little; a word only these two use weighs most. Only terms held
//!   by few skills are enumerated as pair candidates, so the work grows with
//!   the pairs that share something, not with all pairs.
//! - **Semantic similarity**, when the caller has an embedding model: the
//!   cosine of the two routing texts' embeddings, for the pairs that share
//!   at least one distinctive term (a paraphrase with no word in common is
//!   left to the map of the library, which shows every neighbour).
//!
//! [`CollisionIndex`] keeps the analysed terms so that an edit re-analyses one
//! skill and recomputes only its pairs; `hone check` builds it once.
//!
//! It lives with the rankers because it analyses routing texts as the
//! keyword ranker does; the rule that reports it sits above it and is not
//! imported here.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::RoutingDoc;
use super::analysis::Analyzer;

/// The cosine of two term sets from which a pair collides.
pub const TERM_SIMILARITY: f32 = 0.5;
/// The fewest distinctive terms a colliding pair shares: two short names
/// alike in one word are not a collision.
pub const MIN_SHARED_TERMS: usize = 3;
/// The embedding cosine from which a pair sharing a term collides.
pub const SEMANTIC_SIMILARITY: f32 = 0.9;
/// A term held by more than this share of the skills (and more than
/// [`MIN_DISTINCTIVE_CAP`]) proposes no pairs: it says little about any two,
/// and enumerating its pairs would grow with the square of the library.
const DISTINCTIVE_SHARE: f32 = 0.02;
const MIN_DISTINCTIVE_CAP: usize = 8;

/// Two colliding skills, by index in the documents given to the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Collision {
    pub first: usize,
    pub second: usize,
    /// The key (skill folder) of each.
    pub first_key: String,
    pub second_key: String,
    /// Cosine of the IDF-weighted term sets, in `[0, 1]`.
    pub term_similarity: f32,
    /// Cosine of the routing texts' embeddings, when given.
    pub semantic_similarity: Option<f32>,
    /// The shared terms, most distinctive first, as the first skill writes them.
    pub shared: Vec<String>,
}

/// One skill's analysed routing text.
#[derive(Default, Clone)]
struct Terms {
    key: String,
    /// Distinct term ids, sorted.
    ids: Vec<u32>,
    /// Where in `text` the first word written for each term is, in `ids` order.
    words: Vec<Range<u32>>,
    /// The routing text.
    text: Box<str>,
}

/// What analysing one routing text yields, with one allocation for all of
/// its terms instead of one per term: a library's texts repeat their terms,
/// and only the index's first sight of a term needs a `String` of its own.
struct Analysed {
    text: String,
    /// The distinct terms in order of first use, written one after another.
    terms: String,
    /// Per term, where it ends in `terms` and where its first word is in `text`.
    spans: Vec<(u32, Range<u32>)>,
}

/// The analysed routing texts of a library. See the module docs.
#[derive(Clone)]
pub struct CollisionIndex {
    analyzer: Analyzer,
    /// By slot; an empty `key` is a removed skill.
    docs: Vec<Terms>,
    slots: HashMap<String, usize>,
    term_ids: FxHashMap<String, u32>,
    /// Per term id, the slots holding it.
    postings: Vec<Vec<u32>>,
    /// Slots of removed skills, reused by the next new one (an editor adds
    /// and removes an unsaved skill on every keystroke).
    free: Vec<usize>,
    live: usize,
}

impl CollisionIndex {
    /// Analyses `docs` (in parallel); slot `i` is `docs[i]`.
    pub fn new(docs: &[RoutingDoc]) -> Self {
        // Each worker analyses with an analyzer (and word cache) of its own:
        // with one shared cache, a worker learning new words waited for the
        // other to finish reading, and a first check of the corpus spent
        // more time there than stemming every word twice costs. The lock of
        // each is only ever taken by its own worker.
        let per_thread: Vec<Mutex<Analyzer>> = (0..rayon::current_num_threads())
            .map(|_| Mutex::new(Analyzer::default()))
            .collect();
        let analysed: Vec<Analysed> = docs
            .par_iter()
            .map(|doc| {
                let slot = rayon::current_thread_index().unwrap_or(0) % per_thread.len();
                let mut analyzer = per_thread[slot].lock().unwrap_or_else(|e| e.into_inner());
                terms_of(&mut analyzer, doc)
            })
            .collect();
        // Edits re-analyse with the first of them, whose cache knows most words.
        let analyzer = per_thread
            .into_iter()
            .next()
            .map_or_else(Analyzer::default, |first| {
                first.into_inner().unwrap_or_else(|e| e.into_inner())
            });
        let mut index = CollisionIndex {
            analyzer,
            docs: Vec::with_capacity(docs.len()),
            slots: HashMap::with_capacity(docs.len()),
            term_ids: FxHashMap::default(),
            postings: Vec::new(),
            free: Vec::new(),
            live: 0,
        };
        for (doc, terms) in docs.iter().zip(analysed) {
            let slot = index.docs.len();
            index.docs.push(Terms::default());
            index.fill(slot, &doc.key, terms);
        }
        index
    }

    /// Re-analyses one skill (adding it when new): an edit's whole cost.
    pub fn upsert(&mut self, doc: &RoutingDoc) -> usize {
        let terms = terms_of(&mut self.analyzer, doc);
        let slot = match self.slots.get(&doc.key) {
            Some(&slot) => {
                self.clear(slot);
                slot
            }
            None => match self.free.pop() {
                Some(slot) => slot,
                None => {
                    self.docs.push(Terms::default());
                    self.docs.len() - 1
                }
            },
        };
        self.fill(slot, &doc.key, terms);
        slot
    }

    /// Forgets a skill; whether it was there.
    pub fn remove(&mut self, key: &str) -> bool {
        match self.slots.get(key) {
            Some(&slot) => {
                self.clear(slot);
                self.free.push(slot);
                true
            }
            None => false,
        }
    }

    fn fill(&mut self, slot: usize, key: &str, analysed: Analysed) {
        let mut start = 0;
        let mut ids: Vec<(u32, Range<u32>)> = analysed
            .spans
            .into_iter()
            .map(|(end, word)| {
                let term = &analysed.terms[start..end as usize];
                start = end as usize;
                let id = match self.term_ids.get(term) {
                    Some(&id) => id,
                    None => {
                        let id = self.term_ids.len() as u32;
                        self.term_ids.insert(term.to_owned(), id);
                        self.postings.push(Vec::new());
                        id
                    }
                };
                (id, word)
            })
            .collect();
        // The terms are distinct, so are their ids.
        ids.sort_unstable_by_key(|(id, _)| *id);
        for (id, _) in &ids {
            self.postings[*id as usize].push(slot as u32);
        }
        let (ids, words) = ids.into_iter().unzip();
        self.docs[slot] = Terms {
            key: key.to_owned(),
            ids,
            words,
            text: analysed.text.into_boxed_str(),
        };
        self.slots.insert(key.to_owned(), slot);
        self.live += 1;
    }

    fn clear(&mut self, slot: usize) {
        let old = std::mem::take(&mut self.docs[slot]);
        for id in &old.ids {
            self.postings[*id as usize].retain(|&s| s as usize != slot);
        }
        self.slots.remove(&old.key);
        self.live -= 1;
    }

    fn idf(&self, id: u32) -> f32 {
        let df = self.postings[id as usize].len().max(1) as f32;
        ((self.live as f32 + 1.0) / df).ln()
    }

    fn cap(&self) -> usize {
        MIN_DISTINCTIVE_CAP.max((self.live as f32 * DISTINCTIVE_SHARE) as usize)
    }

    fn norm(&self, slot: usize) -> f32 {
        self.docs[slot]
            .ids
            .iter()
            .map(|&id| self.idf(id).powi(2))
            .sum::<f32>()
            .sqrt()
    }

    /// Every colliding pair, by first slot then second. `embeddings` (unit
    /// vectors by key) add the semantic test.
    ///
    /// Each slot sums what it shares with the later slots, in parallel: a
    /// dense row of sums per rayon job (a few per thread), no map of pairs.
    /// Each pair's sum adds its terms in id order, whichever thread makes it.
    pub fn collisions(&self, embeddings: Option<&HashMap<String, Vec<f32>>>) -> Vec<Collision> {
        let cap = self.cap();
        let weights: Vec<f32> = (0..self.postings.len() as u32)
            .map(|id| self.idf(id).powi(2))
            .collect();
        let norms: Vec<f32> = (0..self.docs.len()).map(|s| self.norm(s)).collect();
        let slots = self.docs.len();
        (0..slots)
            .into_par_iter()
            .map_init(
                || (vec![(0.0f32, 0u32); slots], Vec::new()),
                |(shared, touched), a| {
                    for &id in &self.docs[a].ids {
                        let holders = &self.postings[id as usize];
                        if holders.len() < 2 || holders.len() > cap {
                            continue;
                        }
                        for b in holders.iter().map(|&b| b as usize).filter(|&b| b > a) {
                            let entry = &mut shared[b];
                            if entry.1 == 0 {
                                touched.push(b);
                            }
                            entry.0 += weights[id as usize];
                            entry.1 += 1;
                        }
                    }
                    touched.sort_unstable();
                    touched
                        .drain(..)
                        .filter_map(|b| {
                            let (dot, count) = std::mem::take(&mut shared[b]);
                            let similarity = dot / (norms[a] * norms[b]).max(f32::MIN_POSITIVE);
                            self.judge(a, b, similarity, count as usize, embeddings)
                        })
                        .collect::<Vec<_>>()
                },
            )
            .flatten_iter()
            .collect()
    }

    /// The collisions of the skill with `key`: what an edit of it changes.
    pub fn collisions_of(
        &self,
        key: &str,
        embeddings: Option<&HashMap<String, Vec<f32>>>,
    ) -> Vec<Collision> {
        let Some(&slot) = self.slots.get(key) else {
            return Vec::new();
        };
        let cap = self.cap();
        let mut shared: FxHashMap<u32, (f32, u32)> = FxHashMap::default();
        for &id in &self.docs[slot].ids {
            let slots = &self.postings[id as usize];
            if slots.len() < 2 || slots.len() > cap {
                continue;
            }
            let weight = self.idf(id).powi(2);
            for &other in slots.iter().filter(|&&s| s as usize != slot) {
                let entry = shared.entry(other).or_default();
                entry.0 += weight;
                entry.1 += 1;
            }
        }
        let norm = self.norm(slot);
        let mut out: Vec<Collision> = shared
            .into_iter()
            .filter_map(|(other, (dot, count))| {
                let other = other as usize;
                let similarity = dot / (norm * self.norm(other)).max(f32::MIN_POSITIVE);
                let (a, b) = (slot.min(other), slot.max(other));
                self.judge(a, b, similarity, count as usize, embeddings)
            })
            .collect();
        out.sort_by_key(|c| (c.first, c.second));
        out
    }

    /// The collision of slots `a` < `b`, if they are close enough.
    fn judge(
        &self,
        a: usize,
        b: usize,
        term_similarity: f32,
        shared_count: usize,
        embeddings: Option<&HashMap<String, Vec<f32>>>,
    ) -> Option<Collision> {
        let (first, second) = (&self.docs[a], &self.docs[b]);
        let semantic_similarity = embeddings.and_then(|vectors| {
            let (x, y) = (vectors.get(&first.key)?, vectors.get(&second.key)?);
            Some(x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>())
        });
        let by_terms = term_similarity >= TERM_SIMILARITY && shared_count >= MIN_SHARED_TERMS;
        let by_meaning = semantic_similarity.is_some_and(|s| s >= SEMANTIC_SIMILARITY);
        if !by_terms && !by_meaning {
            return None;
        }
        Some(Collision {
            first: a,
            second: b,
            first_key: first.key.clone(),
            second_key: second.key.clone(),
            term_similarity,
            semantic_similarity,
            shared: self.shared_words(a, b),
        })
    }

    /// The terms two slots share, most distinctive first, as `a` writes them.
    fn shared_words(&self, a: usize, b: usize) -> Vec<String> {
        let (first, second) = (&self.docs[a], &self.docs[b]);
        let mut shared: Vec<(f32, &str)> = first
            .ids
            .iter()
            .zip(&first.words)
            .filter(|(id, _)| second.ids.binary_search(id).is_ok())
            .map(|(&id, word)| {
                (
                    self.idf(id),
                    &first.text[word.start as usize..word.end as usize],
                )
            })
            .collect();
        shared.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
        shared.into_iter().map(|(_, w)| w.to_owned()).collect()
    }
}

/// A routing text's distinct terms, in the order they first appear, each
/// with where the first word written for it is.
fn terms_of(analyzer: &mut Analyzer, doc: &RoutingDoc) -> Analysed {
    let text = doc.routing_text();
    let mut terms = String::with_capacity(text.len());
    let spans = analyzer.with_index_terms(&text, |found| {
        let mut seen = FxHashSet::with_capacity_and_hasher(text.len() / 4, Default::default());
        let mut spans = Vec::with_capacity(text.len() / 8);
        for t in found.filter(|t| seen.insert(t.term)) {
            terms.push_str(t.term);
            spans.push((terms.len() as u32, t.word.start as u32..t.word.end as u32));
        }
        spans
    });
    Analysed { text, terms, spans }
}

/// The library the collision analysis is tested on, and the routing-collision
/// rule of `hone-check` with it (through the `test-library` feature).
#[cfg(any(test, feature = "test-library"))]
pub mod test_library {
    /// Five skills, two of them near twins (`pdf-tools`, `pdf-extract`).
    pub const SKILLS: &[(&str, &str)] = &[
        (
            "pdf-tools",
            "Extract text and tables from PDF files. Use when the user asks to pull data out of a PDF.",
        ),
        (
            "pdf-extract",
            "Extracts the text and tables of PDF files. Use when asked to pull data out of a PDF document.",
        ),
        (
            "pdf-forms",
            "Fill and flatten PDF forms. Use when the user has a PDF form to complete and sign.",
        ),
        (
            "spreadsheet",
            "Build and edit spreadsheets with formulas and charts.",
        ),
        (
            "git-commit",
            "Write conventional commit messages for staged changes.",
        ),
    ];
}

#[cfg(test)]
mod tests {
    use super::test_library::SKILLS;
    use super::*;

    #[test]
    fn the_index_follows_edits_and_removals() {
        let docs: Vec<RoutingDoc> = SKILLS
            .iter()
            .map(|(name, description)| RoutingDoc {
                key: format!("/lib/{name}"),
                id: (*name).into(),
                name: (*name).into(),
                description: (*description).into(),
                when_to_use: None,
                triggers: vec![],
            })
            .collect();
        let mut index = CollisionIndex::new(&docs);
        assert_eq!(index.collisions(None).len(), 1);
        assert!(index.remove("/lib/pdf-extract"));
        assert!(index.collisions(None).is_empty());
        let mut forms = docs[2].clone();
        forms.description = docs[0].description.clone();
        index.upsert(&forms);
        let found = index.collisions_of("/lib/pdf-forms", None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].first_key, "/lib/pdf-tools");
        // Embeddings add pairs that are close in meaning.
        let mut vectors = HashMap::new();
        vectors.insert("/lib/spreadsheet".to_owned(), vec![1.0, 0.0]);
        vectors.insert("/lib/git-commit".to_owned(), vec![1.0, 0.0]);
        let mut commit = docs[4].clone();
        commit.description = "Build spreadsheet commit messages.".into();
        index.upsert(&commit);
        assert!(index.collisions_of("/lib/git-commit", None).is_empty());
        assert_eq!(
            index.collisions_of("/lib/git-commit", Some(&vectors)).len(),
            1
        );
    }

    /// The whole library's pairs are each skill's own, found from either
    /// side, with the same figures: after edits too, which reuse slots.
    #[test]
    fn every_pair_is_what_either_skill_finds_alone() {
        let mut rng = fastrand::Rng::with_seed(7);
        // Skills in fours share a topic of six words, and each adds one
        // word from all topics: many pairs share terms, most collide.
        let doc = |rng: &mut fastrand::Rng, i: usize| {
            let topic = i / 4 * 10;
            let description: Vec<String> = (0..9)
                .map(|n| {
                    if n < 8 {
                        topic + rng.usize(..6)
                    } else {
                        rng.usize(..800)
                    }
                })
                .map(|word| format!("w{word}"))
                .collect();
            RoutingDoc {
                key: format!("/lib/s{i}"),
                id: format!("s{i}"),
                name: format!("s{i}"),
                description: description.join(" "),
                when_to_use: None,
                triggers: vec![],
            }
        };
        let docs: Vec<RoutingDoc> = (0..300).map(|i| doc(&mut rng, i)).collect();
        let mut index = CollisionIndex::new(&docs);
        for i in [5, 17, 250] {
            assert!(index.remove(&docs[i].key));
        }
        for i in [300, 301, 17] {
            index.upsert(&doc(&mut rng, i));
        }
        let all = index.collisions(None);
        assert!(all.len() > 50, "{}", all.len());
        let mut alone: Vec<Collision> = index
            .slots
            .keys()
            .flat_map(|key| index.collisions_of(key, None))
            .collect();
        alone.sort_by_key(|c| (c.first, c.second));
        alone.dedup_by_key(|c| (c.first, c.second));
        assert_eq!(all, alone);
    }
}
