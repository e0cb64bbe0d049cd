//! The retrieval view: which skill of this library does a task need?
//!
//! The listing view ([`crate::rank`]'s rankers) answers "which skill would
//! the agent pick from its listing?" and so sees what the agent sees: name,
//! description, `when_to_use`, triggers. A library search (`hone serve`'s
//! `search_skills`, a team's library in the app, an author looking for
//! overlap) asks something else, and there hiding a skill's body costs dearly
//! (SkillRouter, arXiv 2603.22455: 31–44 points of Hit@1). This view reads
//! the whole skill ([`doc::RetrievalDoc`]): the body cut into sections at its
//! headings, the headings, reference-file titles and script names, with the
//! description weighted most.
//!
//! Every skill gets, for a request:
//!
//! - *description*: the listing's cosine of request and routing text (the
//!   same embeddings, cached as the listing caches them);
//! - *section*: the cosine of its closest body section ([`chunks`]), max-sim
//!   over the sections' own embeddings (cached beside the descriptions');
//! - *body evidence*: BM25F over all fields, body included ([`keyword`]);
//!
//! and the score is their sum at equal weights ([`RetrievalConfig::for_kind`]),
//!
//! ```text
//! score = description + section + evidence / (1 + evidence)
//! ```
//!
//! With `--ranker bm25` (no model) the score is the listing BM25 confidence
//! plus half the body evidence term; semantic and hybrid ranking order
//! alike and differ in how they select. The listing's own keyword confidence
//! and late-interaction token match, which the listing hybrid adds to the
//! description, are left out of the score: with a skill's sections beside
//! its description they pull the ranking back toward the listing (fitted on
//! the tuning library, their best weights are 0 and 0–0.25). They still give
//! a match its confidence (below). The alternatives measured (max over
//! description and sections, reciprocal-rank fusion, the second-best
//! section, the listing's terms at other weights) and the figures are in the
//! benchmarks page (`docs/benchmarks/index.md`).
//!
//! ## Confidence and selection
//!
//! The view orders by the whole skill but selects through the listing: a
//! match's confidence is the one the listing ranker of the same kind would
//! give that skill (its listing score and margin over the best other
//! candidate's, through the listing's calibration), and the threshold is
//! the listing's. The body finds the right skill more often than the
//! listing does; the listing's calibration says more reliably whether the
//! top match is the request's at all. Both were fitted on the development
//! benchmark's library alone and carry to others: a rule on the retrieval
//! score itself (its standing among the request's candidates plus its
//! margin) selected 3 or 4 of 10 unrelated requests on libraries it was
//! not fitted on, this one none (figures in the benchmarks page). See
//! [`Selection`].

pub mod chunks;
pub mod doc;
pub mod keyword;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::embed::{EmbedProgress, Embedder, install};
use crate::skill::Skill;

use super::bm25::{Bm25Config, Bm25Ranker};
use super::hybrid::HybridConfig;
use super::semantic::{Calibration, SemanticConfig, SemanticRanker, top_indices};
use super::{
    Explanation, KeywordExplanation, Match, RankError, Ranker, RankerKind, RetrievalExplanation,
    RoutingDoc, check_query, distinct_ids,
};
use chunks::{ChunkCache, ChunkIndex, SectionMatch};
use doc::RetrievalDoc;
use keyword::BodyIndex;

/// Per slot evidence and the request's embedding (when a model is loaded),
/// as `features` computes them.
type Evidence = (Vec<Features>, Option<crate::embed::model::QueryEmbedding>);

/// How a match is selected: the listing's confidence in it (see the module
/// docs), from the listing ranker of the same kind, at the listing's
/// threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
    pub listing: ListingConfidence,
    pub threshold: f32,
}

/// How the listing ranker of a kind turns a skill's evidence into its
/// confidence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ListingConfidence {
    /// BM25: the keyword confidence is the listing's confidence already.
    Keyword,
    /// Semantic and hybrid: a score (the description cosine plus the
    /// weighted keyword confidence and token match) and its margin over the
    /// best other skill's, through the listing's calibration.
    Calibrated {
        keyword_weight: f32,
        token_weight: f32,
        calibration: Calibration,
    },
}

impl Selection {
    /// The listing's selection for ranker `kind`.
    pub fn of_listing(kind: RankerKind) -> Self {
        match kind {
            RankerKind::Semantic => {
                let listing = SemanticConfig::default();
                Selection {
                    listing: ListingConfidence::Calibrated {
                        keyword_weight: 0.0,
                        token_weight: 0.0,
                        calibration: listing.calibration,
                    },
                    threshold: listing.threshold,
                }
            }
            RankerKind::Hybrid => {
                let listing = HybridConfig::default();
                Selection {
                    listing: ListingConfidence::Calibrated {
                        keyword_weight: listing.keyword_weight,
                        token_weight: listing.token_weight,
                        calibration: listing.calibration,
                    },
                    threshold: listing.threshold,
                }
            }
            RankerKind::Bm25 | RankerKind::Agent => Selection {
                listing: ListingConfidence::Keyword,
                threshold: Bm25Config::default().threshold,
            },
        }
    }

    /// The listing's score of a skill with evidence `f`.
    fn listing_score(&self, f: &Features) -> f32 {
        match self.listing {
            ListingConfidence::Keyword => f.keyword_confidence,
            ListingConfidence::Calibrated {
                keyword_weight,
                token_weight,
                ..
            } => {
                f.description + keyword_weight * f.keyword_confidence + token_weight * f.token_match
            }
        }
    }

    /// The confidence of a skill of listing score `score` whose best
    /// competitor scores `other`.
    pub fn confidence(&self, score: f32, other: f32) -> f32 {
        match self.listing {
            ListingConfidence::Keyword => score,
            ListingConfidence::Calibrated { calibration, .. } => {
                calibration.confidence(score, score - other)
            }
        }
    }
}

/// Parameters of the retrieval view (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrievalConfig {
    pub section_weight: f32,
    pub body_weight: f32,
    /// Skills given the listing hybrid's token match, which its confidence
    /// needs (hybrid only).
    pub token_depth: usize,
    /// Matches asked of the listing BM25.
    pub keyword_depth: usize,
    /// Candidates scored in full (among them a match's listing competitor
    /// is found).
    pub pool: usize,
    pub selection: Selection,
}

impl RetrievalConfig {
    /// The view's parameters for ranker `kind`.
    pub fn for_kind(kind: RankerKind) -> Self {
        RetrievalConfig {
            section_weight: 1.0,
            // BM25's keyword confidence is on another scale than a cosine.
            body_weight: if kind == RankerKind::Bm25 { 0.5 } else { 1.0 },
            token_depth: 30,
            keyword_depth: 50,
            pool: 50,
            selection: Selection::of_listing(kind),
        }
    }
}

/// What the view knows of one skill besides its indexes.
struct Slot {
    key: String,
    id: String,
}

/// The evidence of one skill for one request.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Features {
    pub description: f32,
    pub section: SectionMatch,
    pub body_evidence: f32,
    pub keyword_confidence: f32,
    pub token_match: f32,
}

/// Whether building a [`RetrievalRanker`] embeds the body sections its
/// cache lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionEmbedding {
    /// Embed them as the ranker is built: minutes for a large library's
    /// first build (some 23,000 sections at 10,000 skills).
    Embed,
    /// Use the sections when the cache holds every one, and otherwise rank
    /// without the section term (descriptions, body keywords), so that a
    /// server answers at once; [`embed_sections`] fills the cache beside it.
    CachedOnly,
}

/// Ranks whole skills. See the module docs.
pub struct RetrievalRanker {
    kind: RankerKind,
    config: RetrievalConfig,
    keyword: Bm25Ranker,
    /// The listing's embeddings, for semantic and hybrid ranking.
    semantic: Option<SemanticRanker>,
    sections: Option<(ChunkCache, ChunkIndex)>,
    body: BodyIndex,
    slots: Vec<Option<Slot>>,
    /// The free slots, the last freed last (a search for one would make
    /// building an index quadratic).
    free_slots: Vec<usize>,
    by_key: HashMap<String, usize>,
    /// The slot of each of the semantic ranker's documents, by its index.
    semantic_slots: Vec<usize>,
}

impl RetrievalRanker {
    /// Indexes `docs` for `kind` (embedding descriptions and sections with
    /// `embedder` through their caches, reporting `progress`). `embedder` is
    /// needed for semantic and hybrid ranking and unused for BM25.
    pub fn new(
        kind: RankerKind,
        docs: Vec<RetrievalDoc>,
        embedder: Option<Arc<Embedder>>,
        chunk_cache_dir: Option<&Path>,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Self, RankError> {
        Self::with_sections(
            kind,
            docs,
            embedder,
            chunk_cache_dir,
            SectionEmbedding::Embed,
            progress,
        )
    }

    /// [`RetrievalRanker::new`], embedding the sections the cache lacks or
    /// not (`policy`).
    pub fn with_sections(
        kind: RankerKind,
        docs: Vec<RetrievalDoc>,
        embedder: Option<Arc<Embedder>>,
        chunk_cache_dir: Option<&Path>,
        policy: SectionEmbedding,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Self, RankError> {
        let routing: Vec<RoutingDoc> = docs.iter().map(|d| d.routing.clone()).collect();
        // One document per key, the last one winning, as upserts would.
        let mut unique: Vec<RetrievalDoc> = Vec::with_capacity(docs.len());
        let mut position: HashMap<String, usize> = HashMap::new();
        for doc in docs {
            match position.get(&doc.routing.key) {
                Some(&i) => unique[i] = doc,
                None => {
                    position.insert(doc.routing.key.clone(), unique.len());
                    unique.push(doc);
                }
            }
        }
        // The body index (the longest part at 10,000 skills) is
        // built on a second thread while the listing's indexes load and the
        // sections are embedded or read from their cache. A fresh ranker
        // gives the documents slots in order, so the body index can number
        // them before the slots are taken.
        let (ranker, body) = std::thread::scope(|scope| {
            let body = scope.spawn(|| {
                let mut body = BodyIndex::default();
                for (slot, doc) in unique.iter().enumerate() {
                    body.insert(slot, doc);
                }
                body
            });
            let ranker = Self::without_body(
                kind,
                routing,
                &unique,
                embedder,
                chunk_cache_dir,
                policy,
                progress,
            );
            let body = body
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (ranker, body)
        });
        let mut ranker = ranker?;
        debug_assert!(
            unique
                .iter()
                .enumerate()
                .all(|(slot, doc)| ranker.by_key.get(&doc.routing.key) == Some(&slot)),
            "a fresh ranker's slots follow its documents"
        );
        ranker.body = body;
        Ok(ranker)
    }

    /// The ranker of `unique` (one document per key) with every index but
    /// the body's.
    fn without_body(
        kind: RankerKind,
        routing: Vec<RoutingDoc>,
        unique: &[RetrievalDoc],
        embedder: Option<Arc<Embedder>>,
        chunk_cache_dir: Option<&Path>,
        policy: SectionEmbedding,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Self, RankError> {
        let keyword = Bm25Ranker::new(routing.clone())?;
        let (semantic, sections) = match (kind, embedder) {
            (RankerKind::Bm25, _) => (None, None),
            (RankerKind::Semantic | RankerKind::Hybrid, Some(embedder)) => {
                let cache = ChunkCache::open(&embedder, chunk_cache_dir);
                let index = ChunkIndex::new(embedder.model().dim());
                let semantic = SemanticRanker::new(Arc::clone(&embedder), routing, progress)?;
                (Some(semantic), Some((cache, index)))
            }
            (RankerKind::Semantic | RankerKind::Hybrid, None) => {
                return Err(RankError::Model(
                    "the retrieval view's semantic ranking needs the embedding model".into(),
                ));
            }
            (RankerKind::Agent, _) => {
                return Err(RankError::Agent(
                    "the agent ranker has no retrieval view: it answers from the listing".into(),
                ));
            }
        };
        let mut ranker = RetrievalRanker {
            kind,
            config: RetrievalConfig::for_kind(kind),
            keyword,
            semantic,
            sections,
            body: BodyIndex::default(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            by_key: HashMap::new(),
            semantic_slots: Vec::new(),
        };
        ranker.index_sections(unique, policy, progress)?;
        ranker.map_semantic_slots();
        Ok(ranker)
    }

    /// The retrieval view of `skills` with the model found the usual way
    /// (`model`, else `$HONE_MODEL`, else the installed default) and the
    /// user's caches.
    pub fn for_skills<'a>(
        kind: RankerKind,
        skills: impl IntoIterator<Item = &'a Skill>,
        model: Option<&Path>,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Self, RankError> {
        let docs = skills.into_iter().map(RetrievalDoc::from_skill).collect();
        let embedder = match kind {
            RankerKind::Semantic | RankerKind::Hybrid => Some(Arc::new(
                Embedder::open_default(model).map_err(|e| RankError::Model(e.to_string()))?,
            )),
            _ => None,
        };
        let cache_dir = install::embeddings_cache_dir();
        RetrievalRanker::new(kind, docs, embedder, cache_dir.as_deref(), progress)
    }

    /// Whether the body sections' embeddings take part: always for BM25
    /// (which has none to take), and for semantic and hybrid ranking unless
    /// a [`SectionEmbedding::CachedOnly`] build found some missing.
    pub fn has_sections(&self) -> bool {
        self.kind == RankerKind::Bm25 || self.sections.is_some()
    }

    pub fn config(&self) -> &RetrievalConfig {
        &self.config
    }

    pub fn set_config(&mut self, config: RetrievalConfig) {
        self.config = config;
    }

    /// The slot of `doc`'s key, taken anew if the key is new.
    fn slot_for(&mut self, doc: &RoutingDoc) -> usize {
        let slot = match self.by_key.get(&doc.key) {
            Some(&slot) => slot,
            None => {
                let slot = self.free_slots.pop().unwrap_or_else(|| {
                    self.slots.push(None);
                    self.slots.len() - 1
                });
                self.by_key.insert(doc.key.clone(), slot);
                slot
            }
        };
        self.slots[slot] = Some(Slot {
            key: doc.key.clone(),
            id: doc.id.clone(),
        });
        slot
    }

    /// Embeds the sections of `docs` (through the chunk cache) and stores
    /// them at their documents' slots.
    fn index_sections(
        &mut self,
        docs: &[RetrievalDoc],
        policy: SectionEmbedding,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<(), RankError> {
        let texts = chunk_texts(docs);
        let vectors = match (&self.semantic, &self.sections, policy) {
            (Some(semantic), Some((cache, _)), SectionEmbedding::Embed) => {
                cache.vectors(semantic.embedder(), &texts, progress)?
            }
            (Some(_), Some((cache, _)), SectionEmbedding::CachedOnly) => {
                match cache.cached_vectors(&texts) {
                    Some(vectors) => vectors,
                    None => {
                        self.sections = None;
                        Vec::new()
                    }
                }
            }
            _ => Vec::new(),
        };
        let mut vectors = vectors.into_iter();
        for doc in docs {
            let slot = self.slot_for(&doc.routing);
            let of_doc: Vec<Vec<f32>> = vectors.by_ref().take(doc.chunks.len()).collect();
            if let Some((_, index)) = &mut self.sections {
                index.set(slot, &doc.chunks, &of_doc);
            }
        }
        Ok(())
    }

    fn map_semantic_slots(&mut self) {
        self.semantic_slots = match &self.semantic {
            Some(semantic) => (0..semantic.len())
                .map(|i| {
                    self.by_key
                        .get(&semantic.doc(i).key)
                        .copied()
                        .unwrap_or(usize::MAX)
                })
                .collect(),
            None => Vec::new(),
        };
    }

    /// Adds or replaces a whole skill: its listing, body and sections.
    pub fn upsert_doc(&mut self, doc: RetrievalDoc) -> Result<(), RankError> {
        // The model can fail; it goes first so that a failure leaves the
        // indexes as they were.
        if let Some(semantic) = &mut self.semantic {
            semantic.upsert(doc.routing.clone())?;
        }
        self.index_sections(
            std::slice::from_ref(&doc),
            SectionEmbedding::Embed,
            &mut |_| {},
        )?;
        let slot = self.slot_for(&doc.routing);
        self.body.insert(slot, &doc);
        self.keyword.upsert(doc.routing)?;
        self.map_semantic_slots();
        Ok(())
    }

    /// The evidence of every slot for `query`, and the request's embedding.
    fn features(&self, query: &str) -> Result<Evidence, RankError> {
        let depth = self.config.keyword_depth;
        // The keyword side runs on a second thread while the request is
        // embedded (as in the listing hybrid).
        let (keyword, embedded) = std::thread::scope(|scope| {
            let keyword = scope.spawn(|| {
                self.keyword
                    .rank(query, depth)
                    .map(|matches| (matches, self.body.evidence(query)))
            });
            let embedded = self
                .semantic
                .as_ref()
                .map(|semantic| semantic.embed_query(query))
                .transpose();
            let keyword = keyword
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (keyword, embedded)
        });
        let ((keyword_matches, evidence), embedded) = (keyword?, embedded?);
        let mut features: Vec<Features> = evidence
            .into_iter()
            .map(|body_evidence| Features {
                body_evidence,
                ..Features::default()
            })
            .collect();
        features.resize(self.slots.len(), Features::default());
        for m in &keyword_matches {
            if let Some(&slot) = self.by_key.get(&m.key) {
                features[slot].keyword_confidence = m.confidence;
            }
        }
        if let (Some(semantic), Some(embedded)) = (&self.semantic, &embedded) {
            let similarities = semantic.similarities(&embedded.vector)?;
            for (&slot, similarity) in self.semantic_slots.iter().zip(similarities) {
                if let Some(f) = features.get_mut(slot) {
                    f.description = similarity;
                }
            }
            if let Some((_, index)) = &self.sections {
                for (f, section) in features
                    .iter_mut()
                    .zip(index.best(&embedded.vector, self.slots.len()))
                {
                    f.section = section;
                }
            }
        }
        Ok((features, embedded))
    }

    fn score(&self, f: &Features) -> f32 {
        let c = &self.config;
        let evidence = c.body_weight * f.body_evidence / (1.0 + f.body_evidence);
        match self.kind {
            RankerKind::Bm25 => f.keyword_confidence + evidence,
            _ => f.description + c.section_weight * f.section.best + evidence,
        }
    }

    /// Every live slot's evidence and score, best first: what
    /// [`Ranker::rank`] orders, for benchmarks that try other fusions on the
    /// same evidence.
    pub fn scored(&self, query: &str) -> Result<Vec<(usize, Features, f32)>, RankError> {
        check_query(query)?;
        if query.trim().is_empty() || self.by_key.is_empty() {
            return Ok(Vec::new());
        }
        let (mut features, embedded) = self.features(query)?;
        let mut scores: Vec<f32> = features.iter().map(|f| self.score(f)).collect();
        for (slot, score) in scores.iter_mut().enumerate() {
            if self.slots[slot].is_none() {
                *score = f32::NEG_INFINITY;
            }
        }
        let live = self.by_key.len();
        let depth = self.config.pool.min(live);
        let top = top_indices(&scores, depth);
        if let (Some(semantic), Some(embedded)) = (&self.semantic, &embedded)
            && self.kind == RankerKind::Hybrid
        {
            let best: Vec<usize> = top.iter().take(self.config.token_depth).copied().collect();
            let semantic_indices: Vec<usize> = best
                .iter()
                .filter_map(|&slot| {
                    let key = &self.slots[slot].as_ref()?.key;
                    semantic.index_of(key)
                })
                .collect();
            if semantic_indices.len() == best.len() {
                let matches = semantic.token_matches(embedded, &semantic_indices)?;
                for (&slot, token_match) in best.iter().zip(matches) {
                    features[slot].token_match = token_match;
                }
            }
        }
        let scored: Vec<(usize, Features, f32)> = top
            .into_iter()
            // Keyword ranking matches a skill only where some word matched.
            .filter(|&slot| self.kind != RankerKind::Bm25 || scores[slot] > 0.0)
            .map(|slot| (slot, features[slot], scores[slot]))
            .collect();
        Ok(scored)
    }

    /// The identity of the skill at `slot` (as [`RetrievalRanker::scored`]
    /// reports slots).
    pub fn slot_id(&self, slot: usize) -> Option<&str> {
        Some(self.slots.get(slot)?.as_ref()?.id.as_str())
    }

    /// The heading of the section a match's evidence came from.
    fn section_heading(&self, section: &SectionMatch) -> Option<String> {
        let (_, index) = self.sections.as_ref()?;
        let heading = index.heading(section.row?);
        Some(if heading.is_empty() {
            "(before the first heading)".to_owned()
        } else {
            heading.to_owned()
        })
    }

    fn formula(&self) -> String {
        let c = &self.config;
        match self.kind {
            RankerKind::Bm25 => format!(
                "keyword confidence + {} × body evidence / (1 + body evidence)",
                c.body_weight
            ),
            _ => format!(
                "description cosine + {} × best section cosine + {} × body evidence / (1 + body evidence)",
                c.section_weight, c.body_weight,
            ),
        }
    }
}

/// Embeds the body sections of `skills` that the chunk cache in `cache_dir`
/// lacks (none: nothing is kept), reporting `progress`, so that the next
/// [`SectionEmbedding::CachedOnly`] build of them has its sections; how many
/// were embedded.
pub fn embed_sections<'a>(
    embedder: &Embedder,
    skills: impl IntoIterator<Item = &'a Skill>,
    cache_dir: Option<&Path>,
    progress: &mut dyn FnMut(EmbedProgress),
) -> Result<usize, RankError> {
    let docs: Vec<RetrievalDoc> = skills.into_iter().map(RetrievalDoc::from_skill).collect();
    ChunkCache::open(embedder, cache_dir).embed_missing(embedder, &chunk_texts(&docs), progress)
}

/// What is embedded of `docs`' sections, in order.
fn chunk_texts(docs: &[RetrievalDoc]) -> Vec<&str> {
    docs.iter()
        .flat_map(|d| d.chunks.iter().map(|c| c.text.as_str()))
        .collect()
}

impl Ranker for RetrievalRanker {
    fn kind(&self) -> RankerKind {
        self.kind
    }

    fn rank(&self, query: &str, k: usize) -> Result<Vec<Match>, RankError> {
        if k == 0 {
            check_query(query)?;
            return Ok(Vec::new());
        }
        let scored = self.scored(query)?;
        let selection = &self.config.selection;
        // The listing's competitor of a skill: the best listing score among
        // the other skills scored (the listing's runner-up is nearly always
        // among the view's best candidates).
        let mut listing_best: Vec<(&str, f32)> = Vec::new();
        for (slot, f, _) in &scored {
            let Some(held) = self.slots[*slot].as_ref() else {
                continue;
            };
            listing_best.push((held.id.as_str(), selection.listing_score(f)));
        }
        listing_best.sort_by(|a, b| b.1.total_cmp(&a.1));
        let ranked: Vec<Match> = scored
            .iter()
            .filter_map(|(slot, _, score)| {
                let held = self.slots[*slot].as_ref()?;
                Some(Match {
                    id: held.id.clone(),
                    key: held.key.clone(),
                    score: *score,
                    confidence: 0.0,
                    explanation: Explanation::Retrieval(RetrievalExplanation::default()),
                })
            })
            .collect();
        let features: HashMap<&str, &Features> = scored
            .iter()
            .filter_map(|(slot, f, _)| Some((self.slots[*slot].as_ref()?.key.as_str(), f)))
            .collect();
        let mut matches = distinct_ids(ranked, k);
        let listing_keyword: HashMap<String, KeywordExplanation> = self
            .keyword
            .rank(query, k)?
            .into_iter()
            .filter_map(|m| match m.explanation {
                Explanation::Keyword(e) => Some((m.key, e)),
                _ => None,
            })
            .collect();
        let formula = self.formula();
        for m in matches.iter_mut() {
            let f = features
                .get(m.key.as_str())
                .copied()
                .copied()
                .unwrap_or_default();
            let score = selection.listing_score(&f);
            // Alone, a match has no margin (as in the listing).
            let other = listing_best
                .iter()
                .find(|(id, _)| *id != m.id)
                .map_or(score, |(_, score)| *score);
            m.confidence = selection.confidence(score, other);
            m.explanation = Explanation::Retrieval(RetrievalExplanation {
                keyword: listing_keyword.get(&m.key).cloned(),
                description_similarity: f.description,
                section: self.section_heading(&f.section),
                section_similarity: f.section.best,
                body_evidence: f.body_evidence,
                keyword_confidence: f.keyword_confidence,
                token_match: f.token_match,
                formula: formula.clone(),
            });
        }
        Ok(matches)
    }

    fn upsert(&mut self, doc: RoutingDoc) -> Result<(), RankError> {
        // Only the listing is at hand: the body and sections stay as they
        // were indexed (a frontmatter edit), or empty for a new skill.
        if let Some(semantic) = &mut self.semantic {
            semantic.upsert(doc.clone())?;
        }
        match self.by_key.get(&doc.key) {
            Some(&slot) => {
                self.body.replace_routing(slot, &doc);
                self.slot_for(&doc);
            }
            None => {
                let slot = self.slot_for(&doc);
                self.body
                    .insert(slot, &RetrievalDoc::listing_only(doc.clone()));
            }
        }
        self.keyword.upsert(doc)?;
        self.map_semantic_slots();
        Ok(())
    }

    fn upsert_skill(&mut self, skill: &Skill) -> Result<(), RankError> {
        self.upsert_doc(RetrievalDoc::from_skill(skill))
    }

    fn remove(&mut self, key: &str) -> Result<bool, RankError> {
        let Some(slot) = self.by_key.remove(key) else {
            return Ok(false);
        };
        if let Some(semantic) = &mut self.semantic {
            semantic.remove(key)?;
        }
        self.keyword.remove(key)?;
        self.body.remove(slot);
        if let Some((_, index)) = &mut self.sections {
            index.remove(slot);
        }
        self.slots[slot] = None;
        self.free_slots.push(slot);
        self.map_semantic_slots();
        Ok(true)
    }

    fn len(&self) -> usize {
        self.by_key.len()
    }

    fn default_threshold(&self) -> f32 {
        self.config.selection.threshold
    }

    fn routing_vectors(&self) -> Option<HashMap<String, Vec<f32>>> {
        self.semantic.as_ref()?.routing_vectors()
    }

    fn request_vector(&self, query: &str) -> Option<Result<Vec<f32>, RankError>> {
        self.semantic.as_ref()?.request_vector(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, description: &str, headings: &[&str], body: &str) -> RetrievalDoc {
        RetrievalDoc {
            routing: RoutingDoc {
                key: format!("/lib/{name}"),
                id: name.into(),
                name: name.into(),
                description: description.into(),
                when_to_use: None,
                triggers: Vec::new(),
            },
            headings: headings.iter().map(|h| h.to_string()).collect(),
            body: body.into(),
            ..RetrievalDoc::default()
        }
    }

    fn library() -> Vec<RetrievalDoc> {
        vec![
            doc(
                "docs-helper",
                "Helps with documents.",
                &["Extracting tables"],
                "Use pdfplumber to pull tables out of PDF files.",
            ),
            doc(
                "sheets",
                "Edit spreadsheets and documents.",
                &["Formulas"],
                "Write Excel formulas.",
            ),
            doc("notes", "Take notes.", &[], ""),
        ]
    }

    fn bm25() -> RetrievalRanker {
        RetrievalRanker::new(RankerKind::Bm25, library(), None, None, &mut |_| {}).unwrap()
    }

    #[test]
    fn the_body_finds_the_skill_its_listing_hides() {
        let ranker = bm25();
        let query = "pull the tables out of this pdf with pdfplumber";
        let matches = ranker.rank(query, 3).unwrap();
        assert_eq!(matches[0].id, "docs-helper");
        assert!(matches.iter().all(|m| (0.0..=1.0).contains(&m.confidence)));
        let Explanation::Retrieval(explanation) = &matches[0].explanation else {
            panic!("a retrieval explanation");
        };
        assert!(explanation.body_evidence > 0.0);
        // The listing view does not see the body.
        let listing = Bm25Ranker::new(library().into_iter().map(|d| d.routing).collect()).unwrap();
        assert!(
            listing
                .rank(query, 3)
                .unwrap()
                .iter()
                .all(|m| m.id != "docs-helper")
        );
    }

    #[test]
    fn edits_of_the_listing_keep_the_body_and_removals_forget_it() {
        let mut ranker = bm25();
        let mut edited = library()[0].routing.clone();
        edited.description = "Reads invoices.".into();
        ranker.upsert(edited).unwrap();
        let matches = ranker.rank("pdfplumber tables", 1).unwrap();
        assert_eq!(matches[0].id, "docs-helper");
        assert!(ranker.rank("invoices", 1).unwrap()[0].id == "docs-helper");
        assert!(ranker.remove("/lib/docs-helper").unwrap());
        assert!(!ranker.remove("/lib/docs-helper").unwrap());
        assert_eq!(ranker.len(), 2);
        assert!(
            ranker
                .rank("pdfplumber tables", 3)
                .unwrap()
                .iter()
                .all(|m| m.id != "docs-helper")
        );
        // A new skill takes the free slot, body and all.
        ranker
            .upsert_doc(doc("pdf", "PDF tools.", &[], "pdfplumber tables"))
            .unwrap();
        assert_eq!(ranker.rank("pdfplumber tables", 1).unwrap()[0].id, "pdf");
    }

    #[test]
    fn any_request_is_answered_without_panicking() {
        let ranker = bm25();
        for query in ["", "   ", "the of and", "((\"unbalanced", "ünïcödé ✓"] {
            let _ = ranker.rank(query, 5).unwrap();
        }
        assert!(
            ranker
                .rank(&"x".repeat(super::super::MAX_QUERY_BYTES + 1), 5)
                .is_err()
        );
        assert!(ranker.rank("pdf", 0).unwrap().is_empty());
        let empty =
            RetrievalRanker::new(RankerKind::Bm25, Vec::new(), None, None, &mut |_| {}).unwrap();
        assert!(empty.rank("pdf", 5).unwrap().is_empty());
    }

    #[test]
    fn a_match_is_selected_as_the_listing_would_select_it() {
        let hybrid = Selection::of_listing(RankerKind::Hybrid);
        let listing = HybridConfig::default();
        assert_eq!(hybrid.threshold, listing.threshold);
        let standing_out = hybrid.confidence(0.8, 0.5);
        assert_eq!(standing_out, listing.calibration.confidence(0.8, 0.3));
        assert!(standing_out > hybrid.confidence(0.8, 0.79));
        // BM25's keyword confidence is its listing confidence as it stands.
        let bm25 = Selection::of_listing(RankerKind::Bm25);
        let f = Features {
            keyword_confidence: 0.7,
            body_evidence: 3.0,
            ..Features::default()
        };
        assert_eq!(bm25.confidence(bm25.listing_score(&f), 0.9), 0.7);
    }

    #[test]
    fn a_body_match_alone_is_found_but_not_selected() {
        let ranker = bm25();
        // Only the body of docs-helper names pdfplumber: the view finds it,
        // the listing would not pick it, so it is not selected.
        let matches = ranker.rank("pdfplumber", 3).unwrap();
        assert_eq!(matches[0].id, "docs-helper");
        assert!(matches[0].confidence < ranker.default_threshold());
        // Its listing's own words select it.
        let matches = ranker.rank("helps with documents", 3).unwrap();
        assert_eq!(matches[0].id, "docs-helper");
    }
}
