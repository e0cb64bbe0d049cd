//! Semantic ranking: cosine similarity of sentence embeddings.
//!
//! Each skill's routing text (`name: description`, then `when_to_use` and the
//! triggers, exactly [`RoutingDoc::routing_text`]) is embedded once, through
//! the [`Embedder`]'s disk cache, into a row of one dense matrix; a request is
//! embedded and compared with every row (a dot product of unit vectors). At
//! 5,000 skills that scan, one matrix-vector product in candle's kernels,
//! costs about a millisecond next to the 10–15 ms of embedding the request,
//! so no approximate index is needed.
//!
//! The ranker keeps only the sentence vectors (the matrix), the document
//! frequencies of the routing texts' tokens and each text's cache key. The
//! part and token vectors, most of the memory (some 20 KB a skill), stay in
//! the embedding cache's file and are read for the few skills a request
//! explains or re-ranks by late interaction
//! ([`SemanticRanker::token_matches`]): some 30 reads of a file the page
//! cache holds, a fraction of a millisecond.
//!
//! ## Explanations
//!
//! The routing text is split into parts (the name, each sentence of the
//! description, `when_to_use`, each trigger). The embedding of the whole text
//! yields, from the same forward pass, one vector per part whose dot product
//! with the request is that part's exact share of the similarity (see
//! [`crate::embed::model`]), so a match says which sentence carried it.
//!
//! ## Long requests
//!
//! A request that is a whole task description (up to 2,000 characters, some
//! 450 tokens) would cost a forward pass over the model's full window, and
//! the window (256 tokens) would still cut off its end, where the ask often
//! is. A request longer than [`LONG_REQUEST_TOKENS`] is therefore reduced
//! before it is embedded, as verbose-query reduction does in retrieval: it is
//! cut into sentences (and long sentences into runs of words), each scored by
//! the mean IDF of its tokens over the library's routing texts (the weights
//! of the late interaction below; 0 for a token no routing text holds), and
//! the best-scoring pieces are kept in
//! their original order up to the budget. Context that any skill could share
//! ("we are a small team, the release is in two weeks") scores low; the
//! sentence that names the task scores high wherever it sits. Shorter
//! requests, nearly all of them, are embedded exactly as written. The keyword
//! ranker always sees the whole request.
//!
//! Tried on three long suites (the `long_requests` bench's and two of
//! hand-written task descriptions for other libraries) and not kept, as none
//! helped on all three: scoring a piece by how much of its IDF one skill
//! holds (generic context scatters; but an ask in a dense family of skills
//! scatters more than filler does), keeping only the pieces near the best
//! (realistic requests gain from the whole budget), runs of even length cut
//! between words, 16-token runs, and giving the keyword side the reduced
//! text. The figures are in the README's git history (before the book).
//!
//! ## Confidence
//!
//! Cosine similarities of one model sit in a narrow band whose position varies
//! with the request, so a raw similarity is a poor threshold. The confidence
//! is a logistic function of the similarity and of its *margin* over the best
//! other skill (a request that fits one skill clearly stands out from the
//! rest; one that fits none scores several skills alike). Its three weights
//! were fitted on the development benchmark to predict whether the top match
//! is right, so a confidence reads as a probability.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use candle_core::{DType, Device, Tensor};

use crate::embed::cache::{EntryKey, entry_key};
use crate::embed::model::{QUANTISATION_OFFSET, QueryEmbedding};
use crate::embed::{EmbedError, EmbedProgress, Embedder, SegmentedEmbedding};

use super::{
    Explanation, Match, RankError, Ranker, RankerKind, RoutingDoc, RoutingField,
    SemanticExplanation, SemanticPart, check_query, distinct_ids,
};

/// Description sentences beyond this many are merged into the last: a long
/// description's tail is one part rather than dozens of tiny ones.
const MAX_SENTENCES: usize = 16;

/// Requests of more tokens than this are reduced to this many before they
/// are embedded (see the module docs): the forward pass costs about linearly
/// in tokens, and this keeps a long request within a short one's budget.
pub const LONG_REQUEST_TOKENS: usize = 128;

/// Pieces of a reduced request are at most this many tokens: a run-on
/// sentence is split into runs of words this long.
const PIECE_TOKENS: usize = 32;

/// The calibration of the semantic confidence: `σ(bias + similarity_weight ·
/// s + margin_weight · (s − s_other))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub bias: f32,
    pub similarity_weight: f32,
    pub margin_weight: f32,
}

impl Calibration {
    pub fn confidence(&self, similarity: f32, margin: f32) -> f32 {
        let z = self.bias + self.similarity_weight * similarity + self.margin_weight * margin;
        1.0 / (1.0 + (-z).exp())
    }
}

/// Parameters of the semantic ranker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticConfig {
    pub calibration: Calibration,
    /// The confidence at which the top match is selected.
    pub threshold: f32,
}

impl Default for SemanticConfig {
    /// Fitted on the development benchmark with all-MiniLM-L6-v2: a logistic
    /// regression of "the top match is right" on the top similarity and its
    /// margin (of the requests given confidence 0.8 or more, 91% are right;
    /// below 0.2, 4%). The threshold is the most accurate one that selects at
    /// most 5% of the requests no skill serves: 0.42 selects none of them,
    /// with accuracy 0.50.
    fn default() -> Self {
        SemanticConfig {
            calibration: Calibration {
                bias: -3.46,
                similarity_weight: 6.96,
                margin_weight: 5.41,
            },
            threshold: 0.42,
        }
    }
}

/// A part of the routing text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingPart {
    pub field: RoutingField,
    /// Byte range in [`RoutingDoc::field_text`].
    pub field_range: Range<usize>,
    /// Byte range in the routing text.
    pub text_range: Range<usize>,
}

/// The routing text of `doc` (equal to [`RoutingDoc::routing_text`]) and its
/// parts.
pub fn routing_parts(doc: &RoutingDoc) -> (String, Vec<RoutingPart>) {
    let mut text = String::new();
    let mut parts = Vec::new();
    let push_part =
        |parts: &mut Vec<RoutingPart>, field, field_range: Range<usize>, text_start: usize| {
            if field_range.is_empty() {
                return;
            }
            let text_range = text_start..text_start + field_range.len();
            parts.push(RoutingPart {
                field,
                field_range,
                text_range,
            });
        };
    text.push_str(&doc.name);
    push_part(&mut parts, RoutingField::Name, 0..doc.name.len(), 0);
    text.push_str(": ");
    let description = doc.description.trim();
    let description_start = doc.description.len() - doc.description.trim_start().len();
    let base = text.len();
    text.push_str(description);
    let mut sentences = sentences(description);
    if sentences.len() > MAX_SENTENCES {
        let end = sentences[sentences.len() - 1].end;
        sentences.truncate(MAX_SENTENCES);
        sentences[MAX_SENTENCES - 1].end = end;
    }
    for sentence in sentences {
        let field_range = description_start + sentence.start..description_start + sentence.end;
        push_part(
            &mut parts,
            RoutingField::Description,
            field_range,
            base + sentence.start,
        );
    }
    if let Some(when) = doc.when_to_use.as_deref().filter(|w| !w.trim().is_empty()) {
        text.push_str("\nWhen to use: ");
        let start = when.len() - when.trim_start().len();
        let field_range = start..start + when.trim().len();
        push_part(&mut parts, RoutingField::WhenToUse, field_range, text.len());
        text.push_str(when.trim());
    }
    if !doc.triggers.is_empty() {
        text.push_str("\nTriggers: ");
        let mut field_offset = 0;
        for (i, trigger) in doc.triggers.iter().enumerate() {
            if i > 0 {
                text.push_str("; ");
            }
            push_part(
                &mut parts,
                RoutingField::Triggers,
                field_offset..field_offset + trigger.len(),
                text.len(),
            );
            text.push_str(trigger);
            field_offset += trigger.len() + 1;
        }
    }
    (text, parts)
}

/// Sentence ranges of `text`: split after `.`, `!` or `?` followed by
/// whitespace, and at line breaks; trimmed, never empty.
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let ends_sentence = matches!(b, b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace);
        if b == b'\n' || ends_sentence {
            let end = if b == b'\n' { i } else { i + 1 };
            push_trimmed(text, start..end, &mut ranges);
            start = end;
        }
    }
    push_trimmed(text, start..text.len(), &mut ranges);
    ranges
}

fn push_trimmed(text: &str, range: Range<usize>, ranges: &mut Vec<Range<usize>>) {
    let slice = &text[range.clone()];
    let start = range.start + (slice.len() - slice.trim_start().len());
    let end = range.start + slice.trim_end().len();
    if start < end {
        ranges.push(start..end);
    }
}

/// A document and the key of its embedding. The part and token vectors,
/// most of a library's embeddings, stay in the cache (on disk once written)
/// and are fetched for the few skills a request re-ranks or explains.
struct Entry {
    doc: RoutingDoc,
    parts: Vec<RoutingPart>,
    key: EntryKey,
    /// Distinct vocabulary ids of the routing text, for document frequencies.
    token_ids: Box<[u32]>,
}

/// What the ranker keeps of an embedding: the key, the sentence vector and
/// the distinct token ids.
type Kept = (EntryKey, Vec<f32>, Box<[u32]>);

fn keep(key: EntryKey, embedding: &SegmentedEmbedding) -> Kept {
    let distinct: HashSet<u32> = embedding.tokens.ids.iter().copied().collect();
    (
        key,
        embedding.vector.clone(),
        distinct.into_iter().collect(),
    )
}

/// Semantic ranker over a library's routing texts. See the module docs.
pub struct SemanticRanker {
    embedder: Arc<Embedder>,
    config: SemanticConfig,
    entries: Vec<Entry>,
    /// Row `i` is the unit vector of `entries[i]`.
    matrix: Vec<f32>,
    /// `matrix` as a tensor, made on first use after a change: the products
    /// run in candle's optimised kernels.
    matrix_tensor: OnceLock<Tensor>,
    by_key: HashMap<String, usize>,
    /// For each vocabulary id, the number of documents whose routing text
    /// holds it: the IDF weights of [`SemanticRanker::token_matches`].
    document_frequency: HashMap<u32, u32>,
}

/// The texts and part ranges the embedder takes.
fn embed_inputs(texts: &[(String, Vec<RoutingPart>)]) -> Vec<(String, Vec<Range<usize>>)> {
    texts
        .iter()
        .map(|(text, parts)| {
            (
                text.clone(),
                parts.iter().map(|p| p.text_range.clone()).collect(),
            )
        })
        .collect()
}

fn model_error(err: EmbedError) -> RankError {
    RankError::Model(err.to_string())
}

fn tensor_error(err: candle_core::Error) -> RankError {
    RankError::Model(err.to_string())
}

/// Indices of the `count` largest scores, best first (ties by index).
pub fn top_indices(scores: &[f32], count: usize) -> Vec<usize> {
    let order = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b));
    let mut indices: Vec<usize> = (0..scores.len()).collect();
    let count = count.min(indices.len());
    if count < indices.len() && count > 0 {
        indices.select_nth_unstable_by(count - 1, order);
        indices.truncate(count);
    }
    indices.truncate(count);
    indices.sort_by(order);
    indices
}

impl SemanticRanker {
    /// Embeds `docs` (from the cache where possible; `progress` reports the
    /// texts that need the model).
    pub fn new(
        embedder: Arc<Embedder>,
        docs: Vec<RoutingDoc>,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Self, RankError> {
        SemanticRanker::with_config(embedder, docs, SemanticConfig::default(), progress)
    }

    pub fn with_config(
        embedder: Arc<Embedder>,
        docs: Vec<RoutingDoc>,
        config: SemanticConfig,
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Self, RankError> {
        let mut ranker = SemanticRanker {
            embedder,
            config,
            entries: Vec::new(),
            matrix: Vec::new(),
            matrix_tensor: OnceLock::new(),
            by_key: HashMap::new(),
            document_frequency: HashMap::new(),
        };
        // One document per key, the last one winning, as upserts would.
        let mut unique: Vec<RoutingDoc> = Vec::with_capacity(docs.len());
        let mut position: HashMap<String, usize> = HashMap::new();
        for doc in docs {
            match position.get(&doc.key) {
                Some(&i) => unique[i] = doc,
                None => {
                    position.insert(doc.key.clone(), unique.len());
                    unique.push(doc);
                }
            }
        }
        let texts: Vec<(String, Vec<RoutingPart>)> = unique.iter().map(routing_parts).collect();
        let inputs = embed_inputs(&texts);
        let mut kept: Vec<Option<Kept>> = vec![None; texts.len()];
        ranker
            .embedder
            .embed_each(&inputs, progress, &mut |i, embedding| {
                kept[i] = Some(keep(entry_key(&inputs[i].0, &inputs[i].1), &embedding));
            })
            .map_err(model_error)?;
        for ((doc, (_, parts)), kept) in unique.into_iter().zip(texts).zip(kept) {
            ranker.push(doc, parts, kept.unwrap_or_default());
        }
        Ok(ranker)
    }

    pub fn config(&self) -> &SemanticConfig {
        &self.config
    }

    pub fn embedder(&self) -> &Arc<Embedder> {
        &self.embedder
    }

    fn embed(
        &self,
        texts: &[(String, Vec<RoutingPart>)],
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Vec<(EntryKey, Arc<SegmentedEmbedding>)>, RankError> {
        let inputs = embed_inputs(texts);
        let embedded = self
            .embedder
            .embed_segmented(&inputs, progress)
            .map_err(model_error)?;
        Ok(inputs
            .iter()
            .map(|(text, ranges)| entry_key(text, ranges))
            .zip(embedded)
            .collect())
    }

    /// The embedding of the document at `index`: from the cache, or embedded
    /// again if the cache has lost it (evicted by another library's entries).
    fn embedding(&self, index: usize) -> Result<Arc<SegmentedEmbedding>, RankError> {
        let entry = &self.entries[index];
        if let Some(embedding) = self.embedder.cached(&entry.key) {
            return Ok(embedding);
        }
        let (text, parts) = routing_parts(&entry.doc);
        Ok(self
            .embed(&[(text, parts)], &mut |_| {})?
            .pop()
            .map(|(_, embedding)| embedding)
            .unwrap_or_default())
    }

    fn push(&mut self, doc: RoutingDoc, parts: Vec<RoutingPart>, kept: Kept) {
        let (key, vector, token_ids) = kept;
        self.by_key.insert(doc.key.clone(), self.entries.len());
        self.matrix.extend_from_slice(&vector);
        self.matrix_tensor = OnceLock::new();
        let entry = Entry {
            doc,
            parts,
            key,
            token_ids,
        };
        self.count_tokens(&entry, 1);
        self.entries.push(entry);
    }

    fn count_tokens(&mut self, entry: &Entry, change: i32) {
        for &id in &entry.token_ids {
            let count = self.document_frequency.entry(id).or_default();
            *count = count.saturating_add_signed(change);
            if *count == 0 {
                self.document_frequency.remove(&id);
            }
        }
    }

    /// The routing document at `index` (documents are in insertion order,
    /// a removal moving the last one into the gap).
    pub fn doc(&self, index: usize) -> &RoutingDoc {
        &self.entries[index].doc
    }

    /// The index of the document with `key`.
    pub fn index_of(&self, key: &str) -> Option<usize> {
        self.by_key.get(key).copied()
    }

    /// The embedding of a request, with its token vectors; a long request
    /// is reduced first (see the module docs).
    pub fn embed_query(&self, query: &str) -> Result<QueryEmbedding, RankError> {
        let reduced = self.reduce_request(query)?;
        self.embedder
            .model()
            .embed_query(&reduced)
            .map_err(model_error)
    }

    /// The IDF weight of a vocabulary id over the routing texts.
    fn token_weight(&self, id: u32) -> f32 {
        let documents = self.entries.len() as f32;
        let frequency = self.document_frequency.get(&id).copied().unwrap_or(0) as f32;
        ((documents + 1.0) / (frequency + 0.5)).ln().max(0.0)
    }

    /// The weight of a token when choosing what of a long request to keep:
    /// its IDF, or 0 for a token no routing text holds, which ties the
    /// request to no skill (a typo or a word of the surrounding context
    /// would otherwise weigh the most).
    fn reduction_weight(&self, id: u32) -> f32 {
        if self.document_frequency.contains_key(&id) {
            self.token_weight(id)
        } else {
            0.0
        }
    }

    /// `query` itself when it fits [`LONG_REQUEST_TOKENS`], else its most
    /// distinctive sentences (or runs of words) in their order, up to that
    /// many tokens.
    pub fn reduce_request<'q>(&self, query: &'q str) -> Result<Cow<'q, str>, RankError> {
        let model = self.embedder.model();
        // Two special tokens frame every input.
        let budget = LONG_REQUEST_TOKENS
            .min(model.max_tokens())
            .saturating_sub(2);
        // A token spans at least one byte: short texts need no tokenizing.
        if query.len() <= budget {
            return Ok(Cow::Borrowed(query));
        }
        let mut pieces: Vec<(Range<usize>, usize, f32)> = Vec::new();
        let mut total = 0;
        for sentence in sentences(query) {
            let tokens = model
                .tokens(&query[sentence.clone()])
                .map_err(model_error)?;
            total += tokens.len();
            for run in tokens.chunks(PIECE_TOKENS) {
                let (Some(first), Some(last)) = (run.first(), run.last()) else {
                    continue;
                };
                let range = sentence.start + first.1.start..sentence.start + last.1.end;
                let score = run
                    .iter()
                    .map(|(id, _)| self.reduction_weight(*id))
                    .sum::<f32>()
                    / run.len() as f32;
                pieces.push((range, run.len(), score));
            }
        }
        if total <= budget {
            return Ok(Cow::Borrowed(query));
        }
        let mut order: Vec<usize> = (0..pieces.len()).collect();
        order.sort_by(|&a, &b| pieces[b].2.total_cmp(&pieces[a].2).then(a.cmp(&b)));
        let mut kept = vec![false; pieces.len()];
        let mut used = 0;
        for i in order {
            if used + pieces[i].1 <= budget {
                kept[i] = true;
                used += pieces[i].1;
            }
        }
        let reduced: Vec<&str> = pieces
            .iter()
            .zip(kept)
            .filter(|(_, kept)| *kept)
            .map(|((range, _, _), _)| &query[range.clone()])
            .collect();
        Ok(Cow::Owned(reduced.join(" ")))
    }

    /// Late interaction, for the documents at `indices`: how closely each
    /// word (token) of the request is matched by some token of the routing
    /// text, as the mean of their best cosines weighted by the IDF of the
    /// request's tokens over the library, so that rare words count and filler
    /// does not. In `[-1, 1]`, usually `[0.2, 0.8]`.
    pub fn token_matches(
        &self,
        query: &QueryEmbedding,
        indices: &[usize],
    ) -> Result<Vec<f32>, RankError> {
        let dim = self.embedder.model().dim();
        let weights: Vec<f32> = query
            .token_ids
            .iter()
            .map(|&id| self.token_weight(id))
            .collect();
        let total_weight: f32 = weights.iter().sum();
        let mut values = Vec::new();
        let mut scales = Vec::new();
        let mut ends = Vec::with_capacity(indices.len());
        for &index in indices {
            let embedding = self.embedding(index)?;
            let tokens = &embedding.tokens;
            values.extend_from_slice(&tokens.values);
            scales.extend_from_slice(&tokens.scales);
            ends.push(scales.len());
        }
        if total_weight <= 0.0 || scales.is_empty() {
            return Ok(vec![0.0; indices.len()]);
        }
        // One product of all request tokens with all candidate tokens, on
        // the stored bytes as they are: with `b` the bytes of a candidate
        // token and `s` its scale, its vector is `s · (b − 128)`, so its
        // cosine with a request token `q` is `s · (q · b − 128 · Σq)`. The
        // correction costs one pass over the products instead of two passes
        // (shift, scale) over every candidate component.
        let cpu = &Device::Cpu;
        let token_count = scales.len();
        let candidates = Tensor::from_vec(values, (token_count, dim), cpu)
            .and_then(|t| t.to_dtype(DType::F32))
            .map_err(tensor_error)?;
        let request =
            Tensor::from_slice(&query.tokens, (weights.len(), dim), cpu).map_err(tensor_error)?;
        let products: Vec<f32> = request
            .matmul(&candidates.t().map_err(tensor_error)?)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1())
            .map_err(tensor_error)?;
        let offsets: Vec<f32> = query
            .tokens
            .chunks_exact(dim)
            .map(|q| QUANTISATION_OFFSET * q.iter().sum::<f32>())
            .collect();
        let mut start = 0;
        let mut matches = Vec::with_capacity(indices.len());
        for end in ends {
            let score = if end == start {
                0.0
            } else {
                let weighted: f32 = products
                    .chunks_exact(token_count)
                    .zip(&offsets)
                    .zip(&weights)
                    .map(|((row, offset), weight)| {
                        let best = row[start..end]
                            .iter()
                            .zip(&scales[start..end])
                            .map(|(product, scale)| scale * (product - offset))
                            .fold(f32::NEG_INFINITY, f32::max);
                        weight * best
                    })
                    .sum();
                weighted / total_weight
            };
            matches.push(score);
            start = end;
        }
        Ok(matches)
    }

    /// Cosine similarity of every document to the request vector, in
    /// document order.
    pub fn similarities(&self, query_vector: &[f32]) -> Result<Vec<f32>, RankError> {
        let (count, dim) = (self.entries.len(), self.embedder.model().dim());
        if count == 0 {
            return Ok(Vec::new());
        }
        let made;
        let matrix = match self.matrix_tensor.get() {
            Some(matrix) => matrix,
            None => {
                made = Tensor::from_slice(&self.matrix, (count, dim), &Device::Cpu)
                    .map_err(tensor_error)?;
                let _ = self.matrix_tensor.set(made.clone());
                &made
            }
        };
        let query =
            Tensor::from_slice(query_vector, (dim, 1), &Device::Cpu).map_err(tensor_error)?;
        matrix
            .matmul(&query)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1())
            .map_err(tensor_error)
    }

    /// The explanation of a document's similarity: its parts by contribution.
    pub fn explain(
        &self,
        index: usize,
        query_vector: &[f32],
        similarity: f32,
    ) -> SemanticExplanation {
        let entry = &self.entries[index];
        // Without its embedding (the model failing to re-embed a lost
        // entry) a match is explained by its similarity alone.
        let vectors = self.embedding(index).map(|e| e.parts.clone());
        let mut parts: Vec<SemanticPart> = entry
            .parts
            .iter()
            .zip(vectors.iter().flatten())
            .map(|(part, vector)| SemanticPart {
                field: part.field,
                range: part.field_range.clone(),
                contribution: dot(vector, query_vector),
            })
            .collect();
        parts.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
        SemanticExplanation { similarity, parts }
    }

    /// The confidence of a match with `similarity` whose best competitor (the
    /// best other skill, or the top one for a lower match) scores `other`.
    pub fn confidence(&self, similarity: f32, other: f32) -> f32 {
        self.config
            .calibration
            .confidence(similarity, similarity - other)
    }
}

/// For each match of a distinct, best-first list, the best score of another
/// identity: the runner-up for the first, the first for the others.
pub(crate) fn competitor_scores(scores: &[f32]) -> Vec<f32> {
    let Some(&top) = scores.first() else {
        return Vec::new();
    };
    let runner_up = scores.get(1).copied().unwrap_or(top);
    scores
        .iter()
        .enumerate()
        .map(|(i, _)| if i == 0 { runner_up } else { top })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight independent sums let the compiler vectorise the loop.
    let mut sums = [0f32; 8];
    let chunks_a = a.chunks_exact(8);
    let chunks_b = b.chunks_exact(8);
    let tail: f32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for i in 0..8 {
            sums[i] += x[i] * y[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

impl Ranker for SemanticRanker {
    fn kind(&self) -> RankerKind {
        RankerKind::Semantic
    }

    fn rank(&self, query: &str, k: usize) -> Result<Vec<Match>, RankError> {
        check_query(query)?;
        if query.trim().is_empty() || k == 0 || self.entries.is_empty() {
            return Ok(Vec::new());
        }
        let query_vector = self.embed_query(query)?.vector;
        let similarities = self.similarities(&query_vector)?;
        // The competitor of a match is a different identity, so confidence
        // needs the distinct list; one more than asked gives the runner-up.
        // Duplicate identities are rare: twice as many candidates nearly
        // always hold enough distinct ones, else all are taken.
        let wanted = k.max(2);
        let mut candidates = top_indices(&similarities, wanted * 2 + 8);
        let distinct: HashSet<&str> = candidates
            .iter()
            .map(|&i| self.entries[i].doc.id.as_str())
            .collect();
        if distinct.len() < wanted && candidates.len() < similarities.len() {
            candidates = top_indices(&similarities, similarities.len());
        }
        let candidates: Vec<Match> = candidates
            .into_iter()
            .map(|index| Match {
                id: self.entries[index].doc.id.clone(),
                key: self.entries[index].doc.key.clone(),
                score: similarities[index],
                confidence: 0.0,
                explanation: Explanation::Semantic(SemanticExplanation::default()),
            })
            .collect();
        let mut matches = distinct_ids(candidates, wanted);
        let scores: Vec<f32> = matches.iter().map(|m| m.score).collect();
        for (m, other) in matches.iter_mut().zip(competitor_scores(&scores)) {
            m.confidence = self.confidence(m.score, other);
            let index = self.by_key[&m.key];
            m.explanation = Explanation::Semantic(self.explain(index, &query_vector, m.score));
        }
        matches.truncate(k);
        Ok(matches)
    }

    fn upsert(&mut self, doc: RoutingDoc) -> Result<(), RankError> {
        let (text, parts) = routing_parts(&doc);
        let texts = [(text, parts)];
        let (key, embedding) = self.embed(&texts, &mut |_| {})?.pop().unwrap_or_default();
        let [(_, parts)] = texts;
        match self.by_key.get(&doc.key) {
            Some(&index) => {
                let dim = self.embedder.model().dim();
                self.matrix[index * dim..(index + 1) * dim].copy_from_slice(&embedding.vector);
                self.matrix_tensor = OnceLock::new();
                let (key, _, token_ids) = keep(key, &embedding);
                let entry = Entry {
                    doc,
                    parts,
                    key,
                    token_ids,
                };
                self.count_tokens(&entry, 1);
                let old = std::mem::replace(&mut self.entries[index], entry);
                self.count_tokens(&old, -1);
            }
            None => self.push(doc, parts, keep(key, &embedding)),
        }
        Ok(())
    }

    fn remove(&mut self, key: &str) -> Result<bool, RankError> {
        let Some(index) = self.by_key.remove(key) else {
            return Ok(false);
        };
        let dim = self.embedder.model().dim();
        let last = self.entries.len() - 1;
        if index != last {
            let (head, tail) = self.matrix.split_at_mut(last * dim);
            head[index * dim..(index + 1) * dim].copy_from_slice(&tail[..dim]);
            self.by_key
                .insert(self.entries[last].doc.key.clone(), index);
        }
        let removed = self.entries.swap_remove(index);
        self.count_tokens(&removed, -1);
        self.matrix.truncate(last * dim);
        self.matrix_tensor = OnceLock::new();
        Ok(true)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn default_threshold(&self) -> f32 {
        self.config.threshold
    }

    fn routing_vectors(&self) -> Option<HashMap<String, Vec<f32>>> {
        let dim = self.embedder.model().dim();
        Some(
            self.entries
                .iter()
                .zip(self.matrix.chunks_exact(dim.max(1)))
                .map(|(entry, row)| (entry.doc.key.clone(), row.to_vec()))
                .collect(),
        )
    }

    fn request_vector(&self, query: &str) -> Option<Result<Vec<f32>, RankError>> {
        Some(check_query(query).and_then(|()| Ok(self.embed_query(query)?.vector)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, description: &str, when: Option<&str>, triggers: &[&str]) -> RoutingDoc {
        RoutingDoc {
            key: name.into(),
            id: name.into(),
            name: name.into(),
            description: description.into(),
            when_to_use: when.map(Into::into),
            triggers: triggers.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn parts_cover_the_routing_text_and_point_into_fields() {
        let d = doc(
            "pdf",
            "  Reads PDFs. Fills forms!\nUse when asked. ",
            Some(" scanning "),
            &["merge pdf", "ocr"],
        );
        let (text, parts) = routing_parts(&d);
        assert_eq!(text, d.routing_text());
        for part in &parts {
            let field = d.field_text(part.field);
            assert_eq!(
                &text[part.text_range.clone()],
                &field[part.field_range.clone()]
            );
        }
        let shown: Vec<&str> = parts.iter().map(|p| &text[p.text_range.clone()]).collect();
        assert_eq!(
            shown,
            [
                "pdf",
                "Reads PDFs.",
                "Fills forms!",
                "Use when asked.",
                "scanning",
                "merge pdf",
                "ocr"
            ]
        );
    }

    #[test]
    fn decimals_and_versions_do_not_split_sentences() {
        let ranges = sentences("Supports v2.1 and 3.5x. Next one");
        let text = "Supports v2.1 and 3.5x. Next one";
        let parts: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(parts, ["Supports v2.1 and 3.5x.", "Next one"]);
    }

    #[test]
    fn long_descriptions_merge_their_tail() {
        let description: String = (0..40).map(|i| format!("Sentence {i}. ")).collect();
        let d = doc("x", &description, None, &[]);
        let (text, parts) = routing_parts(&d);
        assert_eq!(parts.len(), 1 + MAX_SENTENCES);
        assert!(text[parts.last().unwrap().text_range.clone()].ends_with("Sentence 39."));
    }

    #[test]
    fn the_runner_up_is_the_top_match_competitor() {
        assert_eq!(competitor_scores(&[0.9, 0.5, 0.4]), [0.5, 0.9, 0.9]);
        assert_eq!(competitor_scores(&[0.7]), [0.7]);
    }

    #[test]
    fn dot_handles_any_length() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let expected: f32 = a.iter().map(|x| x * x).sum();
        assert_eq!(dot(&a, &a), expected);
    }
}
