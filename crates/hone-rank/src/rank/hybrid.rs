//! Hybrid ranking: keyword and semantic evidence fused into one score.
//!
//! Keyword ranking is sure-footed when a request uses a skill's own words and
//! blind when it paraphrases them; a sentence embedding is the reverse, and
//! also blurs the one distinctive word into the average of a sentence. The
//! hybrid adds, for every skill,
//!
//! ```text
//! score = cosine + 0.25 · keyword confidence + 1.25 · token match
//! ```
//!
//! - *cosine*: the semantic ranker's similarity of request and routing text;
//! - *keyword confidence*: the BM25 ranker's calibrated confidence, in
//!   `[0, 1]` and comparable across requests, unlike raw BM25 scores, so a
//!   fixed weight means the same for every request (0 for skills it does not
//!   rank in its top 50);
//! - *token match*: late interaction over the same model's token vectors
//!   (see [`SemanticRanker::token_matches`]), computed for the 30 best skills
//!   by the first two terms, where it re-orders close calls.
//!
//! ## Why this fusion
//!
//! Measured on the development benchmark (`dev-routing-553`, 150 positive
//! and 30 negative requests), P@1 / MRR over the whole ranking: BM25
//! 0.45 / 0.51, cosine 0.54 / 0.62.
//! Reciprocal-rank fusion does worse than cosine alone (at best 0.51 / 0.62,
//! k = 5, semantic weighted ×2): ranks throw away how *sure* each side is. A
//! blend of max-normalised scores also loses (0.47 / 0.59): a BM25 top score
//! is 1 after normalisation whether the request matched a name or one stray
//! word. Adding the calibrated keyword confidence to the cosine keeps both
//! magnitudes: 0.57 / 0.65. Re-ranking with the token match gives 0.62 / 0.70,
//! winning 8 requests and losing none against the same fusion without it, all
//! paraphrases. (`hone eval`, which scores the top 10: BM25 0.45 / 0.50,
//! semantic 0.54 / 0.61, hybrid 0.62 / 0.69; direct requests 0.97 P@1,
//! paraphrases 0.39, against 0.95 / 0.12 for BM25 and 0.88 / 0.31 for cosine.)
//! Splitting requests into clauses, max-over-sentence similarities,
//! centring the embedding space and pseudo-relevance feedback were tried
//! too and gained nothing; so did a hubness correction (CSLS over each
//! skill's nearest skills), IDF-weighted pooling of the request's tokens,
//! re-ranking the top ten against their own centroid, and a symmetric late
//! interaction (each moved P@1 by at most ±0.02). The weights sit in the middle of a flat optimum (keyword
//! 0.15–0.3, token 1–1.5 all score within 0.01), which is what makes them
//! likely to hold on other libraries.
//!
//! ## Latency
//!
//! The keyword ranking and the embedding of the request are independent, so
//! the keyword side runs on a second thread while the request is embedded:
//! on a 2-core machine a long request (a whole task description, some 200
//! keyword terms) then costs about the slower of the two, the forward pass,
//! rather than their sum.
//!
//! ## Confidence
//!
//! As for the semantic ranker, a logistic function of the fused score and its
//! margin over the best other skill, fitted on the development benchmark to
//! predict that the top match is right; the default threshold is the one
//! with the best accuracy at a false-positive rate of at most 5% there.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::embed::{EmbedProgress, Embedder, resolve_model_dir};

use super::bm25::Bm25Ranker;
use super::semantic::{Calibration, SemanticRanker, competitor_scores, top_indices};
use super::{
    Explanation, HybridExplanation, KeywordExplanation, Match, RankError, Ranker, RankerKind,
    RoutingDoc, check_query, distinct_ids,
};

/// Parameters of the hybrid ranker (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridConfig {
    pub keyword_weight: f32,
    pub token_weight: f32,
    /// Skills re-ranked with the token match.
    pub rerank_depth: usize,
    /// Matches asked of the keyword ranker.
    pub keyword_depth: usize,
    pub calibration: Calibration,
    pub threshold: f32,
}

impl Default for HybridConfig {
    /// Chosen on the development benchmark with all-MiniLM-L6-v2. The
    /// calibration is a logistic regression of "the top match is right" on
    /// the top score and its margin (of the requests given 0.8 or more, 98%
    /// are right). The threshold 0.6 is the most accurate (0.51) that
    /// selects at most 5% of the requests no skill serves (1 of 30).
    fn default() -> Self {
        HybridConfig {
            keyword_weight: 0.25,
            token_weight: 1.25,
            rerank_depth: 30,
            keyword_depth: 50,
            calibration: Calibration {
                bias: -4.30,
                similarity_weight: 4.05,
                margin_weight: 4.09,
            },
            threshold: 0.6,
        }
    }
}

/// The ranker to use when none is asked for: hybrid where an embedding model
/// is installed, keyword ranking otherwise.
pub fn default_kind(model: Option<&Path>) -> RankerKind {
    if resolve_model_dir(model).installed {
        RankerKind::Hybrid
    } else {
        RankerKind::Bm25
    }
}

/// Keyword and semantic ranking fused. See the module docs.
pub struct HybridRanker {
    keyword: Bm25Ranker,
    semantic: SemanticRanker,
    config: HybridConfig,
}

/// The evidence of one candidate.
struct Candidate {
    index: usize,
    similarity: f32,
    keyword: Option<usize>,
    keyword_confidence: f32,
    token_match: f32,
    score: f32,
}

impl HybridRanker {
    /// Indexes `docs` for both rankers (embedding them through the cache).
    pub fn new(
        embedder: Arc<Embedder>,
        docs: Vec<RoutingDoc>,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Self, RankError> {
        let keyword = Bm25Ranker::new(docs.clone())?;
        let semantic = SemanticRanker::new(embedder, docs, progress)?;
        Ok(HybridRanker::from_parts(
            keyword,
            semantic,
            HybridConfig::default(),
        ))
    }

    /// A hybrid of two rankers built over the same documents.
    pub fn from_parts(keyword: Bm25Ranker, semantic: SemanticRanker, config: HybridConfig) -> Self {
        HybridRanker {
            keyword,
            semantic,
            config,
        }
    }

    pub fn config(&self) -> &HybridConfig {
        &self.config
    }

    fn formula(&self) -> String {
        format!(
            "cosine + {} × keyword confidence + {} × token match",
            self.config.keyword_weight, self.config.token_weight
        )
    }
}

impl Ranker for HybridRanker {
    fn kind(&self) -> RankerKind {
        RankerKind::Hybrid
    }

    fn rank(&self, query: &str, k: usize) -> Result<Vec<Match>, RankError> {
        check_query(query)?;
        if query.trim().is_empty() || k == 0 || self.semantic.is_empty() {
            return Ok(Vec::new());
        }
        let config = &self.config;
        // The two sides are independent: the keyword ranking runs on a
        // second thread while the request is embedded, so a long request
        // costs the slower of the two rather than their sum.
        let depth = config.keyword_depth.max(k);
        let (embedded, keyword_matches) = std::thread::scope(|scope| {
            let keyword = scope.spawn(|| self.keyword.rank(query, depth));
            let embedded = self.semantic.embed_query(query);
            let keyword = keyword
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (embedded, keyword)
        });
        let (embedded, keyword_matches) = (embedded?, keyword_matches?);
        // The first two terms for every skill; the keyword side only knows
        // its top matches, the rest count as 0.
        let similarities = self.semantic.similarities(&embedded.vector)?;
        let mut keyword_of: HashMap<usize, usize> = HashMap::new();
        let mut first_stage = similarities.clone();
        for (position, keyword_match) in keyword_matches.iter().enumerate() {
            if let Some(index) = self.semantic.index_of(&keyword_match.key) {
                keyword_of.insert(index, position);
                first_stage[index] += config.keyword_weight * keyword_match.confidence;
            }
        }
        // Only the re-ranked skills are returned, so that every returned
        // score has all three terms.
        let indices = top_indices(&first_stage, config.rerank_depth.max(k + 1));
        let token_matches = self.semantic.token_matches(&embedded, &indices)?;
        let mut candidates: Vec<Candidate> = indices
            .iter()
            .zip(token_matches)
            .map(|(&index, token_match)| {
                let keyword = keyword_of.get(&index).copied();
                Candidate {
                    index,
                    similarity: similarities[index],
                    keyword,
                    keyword_confidence: keyword.map_or(0.0, |i| keyword_matches[i].confidence),
                    token_match,
                    score: first_stage[index] + config.token_weight * token_match,
                }
            })
            .collect();
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));

        let by_key: HashMap<&str, &Candidate> = candidates
            .iter()
            .map(|c| (self.semantic.doc(c.index).key.as_str(), c))
            .collect();
        let ranked: Vec<Match> = candidates
            .iter()
            .map(|c| {
                let doc = self.semantic.doc(c.index);
                Match {
                    id: doc.id.clone(),
                    key: doc.key.clone(),
                    score: c.score,
                    confidence: 0.0,
                    explanation: Explanation::Hybrid(HybridExplanation::default()),
                }
            })
            .collect();
        let mut matches = distinct_ids(ranked, k.max(2));
        let scores: Vec<f32> = matches.iter().map(|m| m.score).collect();
        for (m, other) in matches.iter_mut().zip(competitor_scores(&scores)) {
            let candidate = by_key[m.key.as_str()];
            m.confidence = config.calibration.confidence(m.score, m.score - other);
            let keyword = candidate
                .keyword
                .map(|i| match &keyword_matches[i].explanation {
                    Explanation::Keyword(explanation) => explanation.clone(),
                    _ => KeywordExplanation::default(),
                });
            let semantic =
                self.semantic
                    .explain(candidate.index, &embedded.vector, candidate.similarity);
            m.explanation = Explanation::Hybrid(HybridExplanation {
                keyword,
                semantic: Some(semantic),
                keyword_confidence: candidate.keyword_confidence,
                token_match: candidate.token_match,
                formula: self.formula(),
            });
        }
        matches.truncate(k);
        Ok(matches)
    }

    fn upsert(&mut self, doc: RoutingDoc) -> Result<(), RankError> {
        // The semantic side can fail (the model); it goes first so that a
        // failure leaves both sides as they were.
        self.semantic.upsert(doc.clone())?;
        self.keyword.upsert(doc)
    }

    fn remove(&mut self, key: &str) -> Result<bool, RankError> {
        let removed = self.semantic.remove(key)?;
        Ok(self.keyword.remove(key)? || removed)
    }

    fn len(&self) -> usize {
        self.semantic.len()
    }

    fn default_threshold(&self) -> f32 {
        self.config.threshold
    }

    fn routing_vectors(&self) -> Option<HashMap<String, Vec<f32>>> {
        self.semantic.routing_vectors()
    }

    fn request_vector(&self, query: &str) -> Option<Result<Vec<f32>, RankError>> {
        self.semantic.request_vector(query)
    }
}
