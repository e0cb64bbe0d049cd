//! Keyword ranking: BM25F over the routing fields, on a tantivy index in RAM.
//!
//! Tantivy holds the inverted index (postings with term frequencies, and the
//! length of every field of every document); this module walks the postings
//! of the request's terms and scores them itself, for three reasons:
//!
//! - **BM25F, not a sum of per-field BM25.** A skill's fields describe one
//!   thing, so a term's occurrences are first combined across fields, each
//!   weighted and normalised by its own length, and saturated once. A word in
//!   both the name and the description then counts more than in one, but not
//!   twice as much, and rare words keep one IDF over the whole library.
//! - **Exact statistics after edits.** Tantivy counts deleted documents in its
//!   document frequencies until segments merge, in the background. Counting
//!   live postings instead makes the scores of an edited index identical to a
//!   fresh one, at every moment.
//! - **Explanations for free.** Each (term, field) contribution is known, so
//!   the search panel can show and highlight why a skill matched without
//!   tantivy's slower `explain`.
//!
//! ## Edits
//!
//! An edited skill is re-indexed alone: its old document is deleted and the
//! new one added. Tantivy makes changes visible by committing a new segment,
//! which costs milliseconds (it sets up a fresh 15 MB indexing arena), too
//! much for an editor that re-ranks on every keystroke. So edits are visible
//! at once and committed in batches: documents added since the last commit
//! are scored from the ranker's own copy of their terms, and documents
//! removed since are skipped; the scores are the same either way.
//!
//! A request's unknown words (in no skill) are matched by prefix, at half
//! weight, to the indexed terms they abbreviate or extend (`auth` and
//! `authentication`, `postgres` and `postgresql`): users shorten words that
//! descriptions spell out, and the other way round.
//!
//! Requests are never parsed as query syntax: they go through the same text
//! analysis as the skills ([`super::analysis`]), so quotes, colons, `AND` or
//! unbalanced parentheses are just text.
//!
//! ## Confidence
//!
//! BM25 scores grow with the number of matched terms and with the size of the
//! library (through IDF), so a raw score means nothing across queries. The
//! *evidence* of a match divides its score by the most a single request term
//! can contribute, `(k1 + 1) * idf` of a term found in no other skill: an
//! evidence of 2 is "as strong as two distinctive words matched". The
//! confidence is a logistic function of log-evidence, `e^s / (e^s + m^s)`,
//! whose midpoint `m` and steepness `s` were fitted on the development
//! benchmark to the probability that the top match is right (see
//! [`Calibration`]); the default threshold was then chosen on the same
//! benchmark to keep false positives rare.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Bound;
use std::ops::Range;
use std::sync::Arc;

use tantivy::fieldnorm::FieldNormReader;
use tantivy::index::InvertedIndexReader;
use tantivy::postings::Postings;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    DocAddress, DocId, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher,
    SegmentReader, TERMINATED, TantivyDocument, Term,
};

use super::analysis::Analyzer;
use super::{
    Explanation, KeywordExplanation, Match, RankError, Ranker, RankerKind, RoutingDoc,
    RoutingField, TermMatch,
};

/// Tantivy's minimum indexing memory per writer thread; one thread is plenty
/// for a library of skills.
const WRITER_HEAP_BYTES: usize = 15_000_000;
const SLOT_FIELD: &str = "slot";
const TOKENIZER: &str = "hone";
/// Shortest term that prefix expansion relates to another.
const MIN_EXPANSION_CHARS: usize = 4;
/// Most indexed terms one unknown request term expands to.
const MAX_EXPANSIONS: usize = 3;
/// Edits (added or removed documents) kept out of the index before a commit.
const MAX_UNCOMMITTED: usize = 64;
/// Candidates explained per requested match, before duplicates of an
/// identity are dropped; more are fetched when duplicates take too many.
const CANDIDATES_PER_MATCH: usize = 2;

/// How one field takes part in the score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldParams {
    /// Weight of an occurrence in this field relative to the description.
    pub weight: f32,
    /// Length normalisation in `[0, 1]`: 0 ignores the field's length.
    pub b: f32,
}

/// The parameters of the keyword ranker.
#[derive(Debug, Clone, PartialEq)]
pub struct Bm25Config {
    /// Term-frequency saturation.
    pub k1: f32,
    /// Per field, in [`RoutingField::ALL`] order.
    pub fields: [FieldParams; 4],
    /// Share of the score a request term earns through prefix expansion.
    pub expansion_weight: f32,
    /// How evidence becomes confidence.
    pub calibration: Calibration,
    /// The confidence at which a match is selected. The default, 0.5, is
    /// the calibration's midpoint: a match is selected when its evidence is
    /// at least that of one distinctive word. On the development benchmark
    /// it selects nothing for every negative request; 0.4 would right
    /// about 2% more decisions but select something for 7% of negatives.
    pub threshold: f32,
}

/// The mapping from evidence to confidence: `e^s / (e^s + m^s)` for evidence
/// `e`, midpoint `m` (the evidence of confidence 0.5) and steepness `s`.
///
/// The defaults (`m` = 1, `s` = 4) come from a logistic regression of "the
/// top match is right" on log-evidence over the development benchmark's 180
/// requests (fit: `m` = 1.0, `s` = 7.7), with the steepness rounded down so
/// that confidence degrades gently on libraries unlike that one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub midpoint: f32,
    pub steepness: f32,
}

impl Default for Bm25Config {
    /// A name is the most deliberate summary of a skill and is short, so its
    /// words weigh most and its length barely matters; triggers are phrases an
    /// author expects users to type.
    fn default() -> Self {
        Bm25Config {
            k1: 1.2,
            fields: [
                FieldParams {
                    weight: 3.0,
                    b: 0.3,
                },
                FieldParams {
                    weight: 1.0,
                    b: 0.75,
                },
                FieldParams {
                    weight: 1.0,
                    b: 0.75,
                },
                FieldParams {
                    weight: 2.0,
                    b: 0.5,
                },
            ],
            expansion_weight: 0.5,
            calibration: Calibration {
                midpoint: 1.0,
                steepness: 4.0,
            },
            threshold: 0.5,
        }
    }
}

/// One indexed routing document.
struct Entry {
    doc: RoutingDoc,
    /// Its analysed terms per field, kept to explain matches without
    /// analysing the text again.
    tokens: [Vec<IndexedToken>; 4],
}

/// A term of a field and where its word is in the field's text.
struct IndexedToken {
    term: u32,
    start: u32,
    end: u32,
}

/// Every term ever indexed, with an id, and the number of live documents
/// holding it. Ids are never reused, so the few terms of deleted documents
/// stay (with a count of zero) until the ranker is rebuilt.
#[derive(Default)]
struct Vocabulary {
    ids: HashMap<String, u32>,
    /// The terms in order, for prefix expansion.
    sorted: BTreeSet<String>,
    texts: Vec<String>,
    doc_counts: Vec<u32>,
}

impl Vocabulary {
    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.ids.insert(term.to_owned(), id);
        self.sorted.insert(term.to_owned());
        self.texts.push(term.to_owned());
        self.doc_counts.push(0);
        id
    }

    /// The id of a term some live document holds.
    fn live(&self, term: &str) -> Option<u32> {
        self.ids
            .get(term)
            .copied()
            .filter(|&id| self.doc_counts[id as usize] > 0)
    }
}

struct IndexFields {
    slot: Field,
    text: [Field; 4],
}

/// Keyword ranker over the routing fields. See the module documentation.
pub struct Bm25Ranker {
    config: Bm25Config,
    analyzer: Analyzer,
    fields: IndexFields,
    writer: IndexWriter,
    reader: IndexReader,
    /// Documents by slot, the number stored with each tantivy document.
    entries: HashMap<u64, Entry>,
    slots: HashMap<String, u64>,
    next_slot: u64,
    /// Total number of terms per field over the live documents.
    total_lengths: [u64; 4],
    vocabulary: Vocabulary,
    /// Slots added since the last commit, scored from their entries.
    pending: Vec<u64>,
    /// Slots removed since the last commit that the index still holds.
    stale: HashSet<u64>,
}

/// A term of the request, once.
struct QueryTerm {
    token: String,
    /// The ids of the indexed terms it matches: itself, or for a term no
    /// skill uses, the terms it abbreviates or extends (see
    /// [`Bm25Ranker::expand`]).
    forms: Vec<u32>,
    /// Share of the score it earns: less for an expansion than for the word itself.
    weight: f32,
    /// The first word of the request that produced it.
    word: String,
    range: Range<usize>,
}

/// A scored document, before explanation.
#[derive(Clone, Copy)]
struct Candidate {
    score: f32,
    location: Location,
}

/// Where a document is: committed to the index, or pending (by its index in
/// `pending`).
#[derive(Clone, Copy)]
enum Location {
    Indexed(DocAddress),
    Pending(usize),
}

/// The best `n` candidates and every one tying with the last of them, in no
/// particular order, and whether that is all of them.
fn shortlist_by_score(candidates: &mut [Candidate], n: usize) -> (Vec<Candidate>, bool) {
    if candidates.len() <= n {
        return (candidates.to_vec(), true);
    }
    let by_score = |a: &Candidate, b: &Candidate| b.score.total_cmp(&a.score);
    candidates.select_nth_unstable_by(n - 1, by_score);
    let cutoff = candidates[n - 1].score;
    let shortlisted: Vec<Candidate> = candidates
        .iter()
        .copied()
        .filter(|c| c.score >= cutoff)
        .collect();
    let complete = shortlisted.len() == candidates.len();
    (shortlisted, complete)
}

fn index_error(err: impl std::fmt::Display) -> RankError {
    RankError::Index(err.to_string())
}

impl Bm25Ranker {
    /// Indexes `docs` with the default parameters.
    pub fn new(docs: Vec<RoutingDoc>) -> Result<Self, RankError> {
        Bm25Ranker::with_config(docs, Bm25Config::default())
    }

    pub fn with_config(docs: Vec<RoutingDoc>, config: Bm25Config) -> Result<Self, RankError> {
        let mut schema = Schema::builder();
        let slot = schema.add_u64_field(SLOT_FIELD, INDEXED | FAST);
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs);
        let options = TextOptions::default().set_indexing_options(indexing);
        let text =
            RoutingField::ALL.map(|field| schema.add_text_field(field.as_str(), options.clone()));
        let index = Index::create_in_ram(schema.build());
        let analyzer = Analyzer::default();
        // The index tokenizes with a clone sharing the word cache: the words
        // of each document are analysed (and cached) here before it is added.
        index
            .tokenizers()
            .register(TOKENIZER, TextAnalyzer::from(analyzer.clone()));
        let writer = index
            .writer_with_num_threads(1, WRITER_HEAP_BYTES)
            .map_err(index_error)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(index_error)?;
        let mut ranker = Bm25Ranker {
            config,
            analyzer,
            fields: IndexFields { slot, text },
            writer,
            reader,
            entries: HashMap::new(),
            slots: HashMap::new(),
            next_slot: 0,
            total_lengths: [0; 4],
            vocabulary: Vocabulary::default(),
            pending: Vec::new(),
            stale: HashSet::new(),
        };
        for doc in docs {
            ranker.stage(doc)?;
        }
        ranker.commit()?;
        Ok(ranker)
    }

    pub fn config(&self) -> &Bm25Config {
        &self.config
    }

    /// Queues `doc` for indexing, replacing the document with the same key.
    fn stage(&mut self, doc: RoutingDoc) -> Result<(), RankError> {
        self.unstage(&doc.key);
        let slot = self.next_slot;
        self.next_slot += 1;
        let mut document = TantivyDocument::new();
        document.add_u64(self.fields.slot, slot);
        let mut indexed: [Vec<IndexedToken>; 4] = Default::default();
        for field in RoutingField::ALL {
            let text = doc.field_text(field).into_owned();
            let tokens = self.analyzer.index_tokens(&text);
            self.total_lengths[field as usize] += tokens.len() as u64;
            indexed[field as usize] = tokens
                .iter()
                .map(|t| IndexedToken {
                    term: self.vocabulary.intern(&t.text),
                    start: t.offset_from as u32,
                    end: t.offset_to as u32,
                })
                .collect();
            document.add_text(self.fields.text[field as usize], text);
        }
        for term in distinct_terms(&indexed) {
            self.vocabulary.doc_counts[term as usize] += 1;
        }
        self.writer.add_document(document).map_err(index_error)?;
        self.pending.push(slot);
        self.slots.insert(doc.key.clone(), slot);
        self.entries.insert(
            slot,
            Entry {
                doc,
                tokens: indexed,
            },
        );
        Ok(())
    }

    /// Queues the deletion of the document with `key`; whether it existed.
    fn unstage(&mut self, key: &str) -> bool {
        let Some(slot) = self.slots.remove(key) else {
            return false;
        };
        if let Some(entry) = self.entries.remove(&slot) {
            for (total, tokens) in self.total_lengths.iter_mut().zip(&entry.tokens) {
                *total -= tokens.len() as u64;
            }
            for term in distinct_terms(&entry.tokens) {
                self.vocabulary.doc_counts[term as usize] -= 1;
            }
        }
        match self.pending.iter().position(|&p| p == slot) {
            Some(index) => {
                self.pending.remove(index);
            }
            None => {
                self.stale.insert(slot);
            }
        }
        self.writer
            .delete_term(Term::from_field_u64(self.fields.slot, slot));
        true
    }

    /// Commits when enough edits are waiting, so that one edit costs
    /// microseconds and the commit (a new segment, and tantivy's 15 MB
    /// indexing arena allocated afresh) is shared by many.
    fn commit_if_due(&mut self) -> Result<(), RankError> {
        if self.pending.len() + self.stale.len() >= MAX_UNCOMMITTED {
            self.commit()?;
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), RankError> {
        self.writer.commit().map_err(index_error)?;
        self.reader.reload().map_err(index_error)?;
        self.pending.clear();
        self.stale.clear();
        Ok(())
    }

    fn query_terms(&self, query: &str) -> Vec<QueryTerm> {
        let mut terms: Vec<QueryTerm> = Vec::new();
        for token in self.analyzer.clone().tokens(query) {
            if terms.iter().all(|t| t.token != token.text) {
                let range = token.offset_from..token.offset_to;
                let (forms, weight) = match self.vocabulary.live(&token.text) {
                    Some(id) => (vec![id], 1.0),
                    None => (self.expand(&token.text), self.config.expansion_weight),
                };
                terms.push(QueryTerm {
                    word: query[range.clone()].to_owned(),
                    token: token.text,
                    forms,
                    weight,
                    range,
                });
            }
        }
        terms
    }

    /// The indexed terms an unknown request term may stand for: those it is a
    /// prefix of (`auth` for `authentication`, `vuln` for `vulnerability`)
    /// and those that are a prefix of it (`postgres` for `postgresql`), when
    /// the shorter has at least [`MIN_EXPANSION_CHARS`] characters and half
    /// the longer one's. At most [`MAX_EXPANSIONS`], closest in length first.
    fn expand(&self, token: &str) -> Vec<u32> {
        let length = token.chars().count();
        if length < MIN_EXPANSION_CHARS {
            return Vec::new();
        }
        let close =
            |a: usize, b: usize| a.min(b) >= MIN_EXPANSION_CHARS && 2 * a.min(b) >= a.max(b);
        let longer = self
            .vocabulary
            .sorted
            .range::<str, _>((Bound::Excluded(token), Bound::Unbounded))
            .map(String::as_str)
            .take_while(|term| term.starts_with(token));
        let shorter = token.char_indices().map(|(i, _)| &token[..i]);
        let mut forms: Vec<(usize, &str, u32)> = longer
            .chain(shorter)
            .filter_map(|term| {
                let chars = term.chars().count();
                let id = self.vocabulary.live(term)?;
                close(chars, length).then_some((chars.abs_diff(length), term, id))
            })
            .collect();
        forms.sort_unstable();
        forms.truncate(MAX_EXPANSIONS);
        forms.into_iter().map(|(_, _, id)| id).collect()
    }

    /// IDF of a term found in `doc_freq` of the live documents.
    fn idf(&self, doc_freq: usize) -> f32 {
        let n = self.entries.len() as f32;
        let df = doc_freq as f32;
        ((n - df + 0.5) / (df + 0.5)).ln_1p()
    }

    /// The saturated score of a term with combined frequency `tf`.
    fn saturate(&self, idf: f32, tf: f32) -> f32 {
        let k1 = self.config.k1;
        idf * tf * (k1 + 1.0) / (k1 + tf)
    }

    /// A field's share of a term's combined frequency, for one occurrence count.
    fn field_frequency(&self, field: RoutingField, tf: u32, length: u32) -> f32 {
        let params = self.config.fields[field as usize];
        let average = self.total_lengths[field as usize] as f32 / self.entries.len().max(1) as f32;
        let norm = 1.0 - params.b + params.b * length as f32 / average.max(1.0);
        params.weight * tf as f32 / norm
    }

    /// The evidence of a score: the score divided by the most one request
    /// term can contribute, `(k1 + 1) * idf` of a term no other skill has.
    /// Dividing by that unit removes the scale of the library's size from
    /// BM25's scores.
    fn evidence(&self, score: f32) -> f32 {
        score / ((self.config.k1 + 1.0) * self.idf(0))
    }

    /// The confidence of a match with `evidence`, in `[0, 1]`. A logistic
    /// function of the evidence's logarithm, fitted on the development
    /// benchmark to the probability that the top match is right; see
    /// [`Calibration`].
    pub fn confidence(&self, evidence: f32) -> f32 {
        let Calibration {
            midpoint,
            steepness,
        } = self.config.calibration;
        if evidence <= 0.0 || !evidence.is_finite() {
            return 0.0;
        }
        let ratio = (evidence / midpoint).powf(steepness);
        if ratio.is_finite() {
            ratio / (1.0 + ratio)
        } else {
            1.0
        }
    }

    fn segment_fields(
        &self,
        segment: &SegmentReader,
    ) -> Result<Vec<(RoutingField, Arc<InvertedIndexReader>, FieldNormReader)>, RankError> {
        let mut out = Vec::with_capacity(4);
        for field in RoutingField::ALL {
            if self.config.fields[field as usize].weight <= 0.0 {
                continue;
            }
            let tantivy_field = self.fields.text[field as usize];
            let inverted = segment.inverted_index(tantivy_field).map_err(index_error)?;
            let norms = segment
                .get_fieldnorms_reader(tantivy_field)
                .map_err(index_error)?;
            out.push((field, inverted, norms));
        }
        Ok(out)
    }

    /// Explains the match of one document: per (term, field) contributions
    /// and highlights, from its analysed terms and indexed lengths.
    fn explain(
        &self,
        entry: &Entry,
        lengths: [u32; 4],
        terms: &[QueryTerm],
        idfs: &[f32],
    ) -> KeywordExplanation {
        // (field, matched term, tf, field frequency, highlights) per query term.
        type FieldMatch = (RoutingField, u32, u32, f32, Vec<Range<usize>>);
        let mut per_term: Vec<Vec<FieldMatch>> = terms.iter().map(|_| Vec::new()).collect();
        for field in RoutingField::ALL {
            let tokens = &entry.tokens[field as usize];
            if tokens.is_empty() || self.config.fields[field as usize].weight <= 0.0 {
                continue;
            }
            let length = lengths[field as usize];
            for (term, found) in terms.iter().zip(per_term.iter_mut()) {
                let mut matching = tokens
                    .iter()
                    .filter(|t| term.forms.contains(&t.term))
                    .peekable();
                let Some(first) = matching.peek().map(|t| t.term) else {
                    continue;
                };
                let highlights: Vec<_> =
                    matching.map(|t| t.start as usize..t.end as usize).collect();
                let tf = highlights.len() as u32;
                let frequency = self.field_frequency(field, tf, length);
                found.push((field, first, tf, frequency, highlights));
            }
        }
        let mut explanation = KeywordExplanation::default();
        for ((term, idf), found) in terms.iter().zip(idfs).zip(per_term) {
            if found.is_empty() {
                explanation.unmatched.push(term.word.clone());
                continue;
            }
            let combined: f32 = found.iter().map(|(_, _, _, f, _)| f).sum();
            let term_score = term.weight * self.saturate(*idf, combined);
            for (field, token, tf, frequency, highlights) in found {
                explanation.terms.push(TermMatch {
                    term: term.word.clone(),
                    query_range: term.range.clone(),
                    token: self.vocabulary.texts[token as usize].clone(),
                    field,
                    term_frequency: tf,
                    contribution: term_score * frequency / combined,
                    highlights,
                });
            }
        }
        explanation
            .terms
            .sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
        explanation
    }

    /// The entry of a candidate and its field lengths as the index holds them.
    fn resolve(
        &self,
        searcher: &Searcher,
        location: Location,
    ) -> Result<(&Entry, [u32; 4]), RankError> {
        match location {
            Location::Pending(index) => {
                let entry = &self.entries[&self.pending[index]];
                Ok((
                    entry,
                    entry.tokens.each_ref().map(|t| indexed_length(t.len())),
                ))
            }
            Location::Indexed(address) => {
                let segment = searcher.segment_reader(address.segment_ord);
                let slots = segment.fast_fields().u64(SLOT_FIELD).map_err(index_error)?;
                let entry = slots
                    .first(address.doc_id)
                    .and_then(|slot| self.entries.get(&slot))
                    .ok_or_else(|| RankError::Index(format!("{address:?} has no entry")))?;
                let mut lengths = [0; 4];
                for field in RoutingField::ALL {
                    let tantivy_field = self.fields.text[field as usize];
                    let norms = segment
                        .get_fieldnorms_reader(tantivy_field)
                        .map_err(index_error)?;
                    lengths[field as usize] = norms.fieldnorm(address.doc_id);
                }
                Ok((entry, lengths))
            }
        }
    }

    /// A pending document's combined frequency of `term`.
    fn pending_frequency(&self, entry: &Entry, term: &QueryTerm) -> f32 {
        let mut frequency = 0.0;
        for field in RoutingField::ALL {
            let tokens = &entry.tokens[field as usize];
            let tf = tokens
                .iter()
                .filter(|t| term.forms.contains(&t.term))
                .count();
            if tf > 0 && self.config.fields[field as usize].weight > 0.0 {
                frequency += self.field_frequency(field, tf as u32, indexed_length(tokens.len()));
            }
        }
        frequency
    }
}

/// A field length as the index stores it (tantivy keeps lengths in one byte,
/// exactly up to 40 and approximately beyond), so that a document scores the
/// same before and after it is committed.
fn indexed_length(tokens: usize) -> u32 {
    let tokens = u32::try_from(tokens).unwrap_or(u32::MAX);
    FieldNormReader::id_to_fieldnorm(FieldNormReader::fieldnorm_to_id(tokens))
}

/// The distinct term ids of a document's fields.
fn distinct_terms(tokens: &[Vec<IndexedToken>; 4]) -> Vec<u32> {
    let mut terms: Vec<u32> = tokens.iter().flatten().map(|t| t.term).collect();
    terms.sort_unstable();
    terms.dedup();
    terms
}

impl Ranker for Bm25Ranker {
    fn kind(&self) -> RankerKind {
        RankerKind::Bm25
    }

    fn rank(&self, query: &str, k: usize) -> Result<Vec<Match>, RankError> {
        super::check_query(query)?;
        let terms = self.query_terms(query);
        if terms.is_empty() || k == 0 || self.entries.is_empty() {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let segments = searcher.segment_readers();
        let readers: Vec<_> = segments
            .iter()
            .map(|s| self.segment_fields(s))
            .collect::<Result<_, _>>()?;
        // Documents removed since the last commit are still in the index.
        let stale_slots = if self.stale.is_empty() {
            None
        } else {
            let columns = segments
                .iter()
                .map(|s| s.fast_fields().u64(SLOT_FIELD))
                .collect::<Result<Vec<_>, _>>()
                .map_err(index_error)?;
            Some(columns)
        };
        let is_live = |ord: usize, segment: &SegmentReader, doc: DocId| {
            !segment.is_deleted(doc)
                && stale_slots.as_ref().is_none_or(|columns| {
                    columns[ord]
                        .first(doc)
                        .is_none_or(|slot| !self.stale.contains(&slot))
                })
        };
        // One score per document of each segment, then one per pending document.
        let mut scores: Vec<Vec<f32>> = segments
            .iter()
            .map(|s| vec![0.0; s.max_doc() as usize])
            .chain([vec![0.0; self.pending.len()]])
            .collect();
        let mut combined: Vec<Vec<f32>> = scores.clone();
        let mut hits: Vec<(usize, DocId, f32)> = Vec::new();
        let mut idfs = Vec::with_capacity(terms.len());
        for term in &terms {
            hits.clear();
            for (ord, segment) in segments.iter().enumerate() {
                let frequencies = &mut combined[ord];
                let first_hit = hits.len();
                for (field, inverted, norms) in &readers[ord] {
                    for &form in &term.forms {
                        let text = &self.vocabulary.texts[form as usize];
                        let key = Term::from_field_text(self.fields.text[*field as usize], text);
                        let postings = inverted.read_postings(&key, IndexRecordOption::WithFreqs);
                        let Some(mut postings) = postings.map_err(index_error)? else {
                            continue;
                        };
                        let mut doc = postings.doc();
                        while doc != TERMINATED {
                            if is_live(ord, segment, doc) {
                                let length = norms.fieldnorm(doc);
                                let frequency =
                                    self.field_frequency(*field, postings.term_freq(), length);
                                let slot = &mut frequencies[doc as usize];
                                if *slot == 0.0 {
                                    hits.push((ord, doc, 0.0));
                                }
                                *slot += frequency;
                            }
                            doc = postings.advance();
                        }
                    }
                }
                for hit in &mut hits[first_hit..] {
                    hit.2 = std::mem::take(&mut frequencies[hit.1 as usize]);
                }
            }
            for (index, slot) in self.pending.iter().enumerate() {
                let frequency = self.pending_frequency(&self.entries[slot], term);
                if frequency > 0.0 {
                    hits.push((segments.len(), index as DocId, frequency));
                }
            }
            let idf = self.idf(hits.len());
            idfs.push(idf);
            for &(ord, doc, frequency) in &hits {
                scores[ord][doc as usize] += term.weight * self.saturate(idf, frequency);
            }
        }

        let mut candidates = Vec::new();
        for (ord, scores) in scores.iter().enumerate() {
            for (doc, &score) in scores.iter().enumerate() {
                if score > 0.0 {
                    let location = if ord == segments.len() {
                        Location::Pending(doc)
                    } else {
                        Location::Indexed(DocAddress::new(ord as u32, doc as DocId))
                    };
                    candidates.push(Candidate { score, location });
                }
            }
        }
        let mut shortlist = CANDIDATES_PER_MATCH.saturating_mul(k);
        loop {
            let (shortlisted, complete) = shortlist_by_score(&mut candidates, shortlist);
            let mut ranked = Vec::with_capacity(shortlisted.len());
            for candidate in shortlisted {
                let (entry, lengths) = self.resolve(&searcher, candidate.location)?;
                ranked.push((candidate.score, entry, lengths));
            }
            // Equal scores are ordered by key, so that an index built in any
            // order or edited any number of times ranks the same.
            ranked.sort_by(|(a, x, _), (b, y, _)| {
                b.total_cmp(a).then_with(|| x.doc.key.cmp(&y.doc.key))
            });
            let mut seen = HashSet::new();
            ranked.retain(|(_, entry, _)| seen.insert(entry.doc.id.as_str()));
            if ranked.len() < k && !complete {
                // Duplicate identities took too many places: look further.
                shortlist = shortlist.saturating_mul(4);
                continue;
            }
            ranked.truncate(k);
            let matches = ranked
                .into_iter()
                .map(|(score, entry, lengths)| {
                    let mut explanation = self.explain(entry, lengths, &terms, &idfs);
                    explanation.evidence = self.evidence(score);
                    Match {
                        id: entry.doc.id.clone(),
                        key: entry.doc.key.clone(),
                        score,
                        confidence: self.confidence(explanation.evidence),
                        explanation: Explanation::Keyword(explanation),
                    }
                })
                .collect();
            return Ok(matches);
        }
    }

    fn upsert(&mut self, doc: RoutingDoc) -> Result<(), RankError> {
        self.stage(doc)?;
        self.commit_if_due()
    }

    fn remove(&mut self, key: &str) -> Result<bool, RankError> {
        let removed = self.unstage(key);
        self.commit_if_due()?;
        Ok(removed)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn default_threshold(&self) -> f32 {
        self.config.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{MAX_QUERY_BYTES, selected};

    fn doc(key: &str, name: &str, description: &str) -> RoutingDoc {
        RoutingDoc {
            key: format!("/lib/{key}"),
            id: name.to_owned(),
            name: name.to_owned(),
            description: description.to_owned(),
            when_to_use: None,
            triggers: Vec::new(),
        }
    }

    fn library() -> Vec<RoutingDoc> {
        vec![
            doc(
                "deploy",
                "deploy-app",
                "Deploys web applications to Kubernetes clusters with rollouts.",
            ),
            doc(
                "rollback",
                "rollback",
                "Rolls a failed deployment back to the previous release.",
            ),
            doc(
                "pdf",
                "pdf-tools",
                "Extracts text and tables from PDF files; fills PDF forms.",
            ),
            doc(
                "commit",
                "git-commit-messages",
                "Writes conventional commit messages for staged changes.",
            ),
            RoutingDoc {
                when_to_use: Some("When a spreadsheet has broken encodings or dates".into()),
                triggers: vec!["clean this csv".into(), "fix the columns".into()],
                ..doc("csv", "csv-cleaning", "Cleans CSV files.")
            },
        ]
    }

    fn ids(matches: &[Match]) -> Vec<&str> {
        matches.iter().map(|m| m.id.as_str()).collect()
    }

    fn keyword(m: &Match) -> &KeywordExplanation {
        match &m.explanation {
            Explanation::Keyword(k) => k,
            other => panic!("not a keyword explanation: {other:?}"),
        }
    }

    #[test]
    fn ranks_by_routing_fields() {
        let ranker = Bm25Ranker::new(library()).unwrap();
        assert_eq!(
            ids(&ranker.rank("deploy my app to kubernetes", 2).unwrap())[0],
            "deploy-app"
        );
        assert_eq!(
            ids(&ranker.rank("extract the tables of a pdf", 1).unwrap()),
            ["pdf-tools"]
        );
        let csv = ranker.rank("my spreadsheet dates are broken", 1).unwrap();
        assert_eq!(ids(&csv), ["csv-cleaning"]);
        assert_eq!(keyword(&csv[0]).terms[0].field, RoutingField::WhenToUse);
        assert_eq!(
            ids(&ranker.rank("clean this csv", 1).unwrap()),
            ["csv-cleaning"]
        );
    }

    #[test]
    fn explanations_sum_to_the_score_and_highlight_the_fields() {
        let ranker = Bm25Ranker::new(library()).unwrap();
        let query = "Deploying apps to Kubernetes";
        let top = &ranker.rank(query, 1).unwrap()[0];
        let explanation = keyword(top);
        let sum: f32 = explanation.terms.iter().map(|t| t.contribution).sum();
        assert!(
            (sum - top.score).abs() < 1e-3 * top.score,
            "{sum} vs {}",
            top.score
        );
        let docs = library();
        for term in &explanation.terms {
            assert_eq!(&query[term.query_range.clone()], term.term);
            let text = docs[0].field_text(term.field);
            for range in &term.highlights {
                let word = text[range.clone()].to_lowercase();
                assert!(
                    word.starts_with(&term.token[..3]),
                    "{word} vs {}",
                    term.token
                );
            }
        }
        let deploy = explanation
            .terms
            .iter()
            .find(|t| t.token == "deploy")
            .unwrap();
        assert_eq!(deploy.term, "Deploying");
        assert!(explanation.evidence > 0.0);
    }

    #[test]
    fn confidence_is_bounded_and_selects_strong_matches_only() {
        let ranker = Bm25Ranker::new(library()).unwrap();
        let strong = ranker
            .rank(
                "write a conventional commit message for my staged changes",
                3,
            )
            .unwrap();
        let weak = ranker
            .rank("plan a holiday to Lisbon with a day of web browsing", 3)
            .unwrap();
        for m in strong.iter().chain(&weak) {
            assert!((0.0..=1.0).contains(&m.confidence), "{m:?}");
        }
        let threshold = ranker.default_threshold();
        assert_eq!(
            selected(&strong, threshold).map(|m| m.id.as_str()),
            Some("git-commit-messages")
        );
        assert!(selected(&weak, threshold).is_none(), "{weak:?}");
    }

    #[test]
    fn edits_reindex_one_skill_and_match_a_fresh_index() {
        let mut ranker = Bm25Ranker::new(library()).unwrap();
        let edited = doc(
            "pdf",
            "pdf-tools",
            "Merges and splits PDF files, and signs them.",
        );
        ranker.upsert(edited.clone()).unwrap();
        assert!(ranker.remove("/lib/rollback").unwrap());
        assert!(!ranker.remove("/lib/rollback").unwrap());
        ranker
            .upsert(doc(
                "new",
                "changelog",
                "Writes release notes from merged pull requests.",
            ))
            .unwrap();
        assert_eq!(ranker.len(), 5);

        let mut docs = library();
        docs.retain(|d| d.key != "/lib/rollback" && d.key != "/lib/pdf");
        docs.push(edited);
        docs.push(doc(
            "new",
            "changelog",
            "Writes release notes from merged pull requests.",
        ));
        let fresh = Bm25Ranker::new(docs).unwrap();
        for query in [
            "split a pdf",
            "extract pdf tables",
            "release notes for merged requests",
            "roll back",
        ] {
            let a = ranker.rank(query, 5).unwrap();
            let b = fresh.rank(query, 5).unwrap();
            assert_eq!(ids(&a), ids(&b), "{query}");
            for (x, y) in a.iter().zip(&b) {
                assert!(
                    (x.score - y.score).abs() < 1e-4,
                    "{query}: {} vs {}",
                    x.score,
                    y.score
                );
            }
        }
        assert!(
            ranker
                .rank("extract tables", 5)
                .unwrap()
                .iter()
                .all(|m| m.id != "pdf-tools")
        );
    }

    #[test]
    fn duplicate_identities_are_ranked_once() {
        let mut docs = library();
        docs.push(doc(
            "deploy-copy",
            "deploy-app",
            "Deploys to Kubernetes, Kubernetes and more Kubernetes.",
        ));
        let ranker = Bm25Ranker::new(docs).unwrap();
        let matches = ranker.rank("kubernetes deploy", 5).unwrap();
        assert_eq!(matches.iter().filter(|m| m.id == "deploy-app").count(), 1);
        assert_eq!(ranker.len(), 6);
    }

    #[test]
    fn unknown_words_match_by_prefix() {
        let ranker = Bm25Ranker::new(vec![
            doc("auth", "login", "Adds authentication and sessions."),
            doc("db", "database", "Tunes PostgreSQL queries."),
        ])
        .unwrap();
        assert_eq!(ids(&ranker.rank("auth", 1).unwrap()), ["login"]);
        let postgres = ranker.rank("slow postgres", 1).unwrap();
        assert_eq!(keyword(&postgres[0]).terms[0].token, "postgresql");
    }

    #[test]
    fn any_request_gets_an_answer_or_a_clear_error() {
        let ranker = Bm25Ranker::new(library()).unwrap();
        for query in [
            "",
            "   ",
            "\"deploy\" AND (app OR",
            "title:pdf -commit +csv ~2 ^3 * ? \\ / [ ] { }",
            "部署应用到集群",
            "развернуть приложение",
            "نشر التطبيق",
            "🚀🚀 deploy 🚀",
            "\u{0}\u{1}\u{7}\u{1b}[31mdeploy\u{7f}",
            "\u{feff}\u{200b}pdf\u{202e}",
        ] {
            let matches = ranker.rank(query, 10).unwrap();
            assert!(matches.len() <= 5, "{query:?}");
        }
        assert!(ranker.rank("", 5).unwrap().is_empty());
        assert!(ranker.rank("deploy", 0).unwrap().is_empty());
        let long = "deploy ".repeat(MAX_QUERY_BYTES / 7);
        assert!(!ranker.rank(&long, 3).unwrap().is_empty());
        let too_long = "x".repeat(100 * 1024);
        let err = ranker.rank(&too_long, 3).unwrap_err();
        assert!(err.to_string().contains("at most"), "{err}");
        let empty = Bm25Ranker::new(Vec::new()).unwrap();
        assert!(empty.rank("deploy", 3).unwrap().is_empty());
        assert!(empty.is_empty());
    }
}
