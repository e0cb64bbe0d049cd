//! Ranking skills for a request: which skill would an agent pick?
//!
//! Two views of a skill are ranked, and every caller names the one it means
//! ([`RankView`]): the *listing* (this module's rankers: what the agent sees
//! when it picks, for the test-query panel and trigger evals) and
//! *retrieval* ([`retrieval`]: the whole skill, body included, for "which
//! skill of this library does this task need?", the question of a library
//! search and of `hone serve`'s `search_skills`). The rest of these docs
//! describe the listing view.
//!
//! At selection time an agent sees only a skill's routing metadata (its
//! `name`, `description`, `when_to_use` and `triggers`), never the body. A
//! [`RoutingDoc`] is exactly that, and a [`Ranker`] orders routing documents
//! for a request. Several rankers share the one abstraction (keyword BM25,
//! semantic embeddings, a hybrid of both), so the search panel, `hone search`
//! and the eval engine work with any of them through `&dyn Ranker`.
//!
//! Every [`Match`] carries a raw score, which only orders the matches of one
//! query, and a *confidence* in `[0, 1]` that is calibrated to mean the same
//! thing for every query: one threshold then decides for every request whether
//! the top match is "selected" or whether no skill fits. Each ranker documents
//! how it computes its confidence and picks its default threshold on the
//! development benchmark.
//!
//! Rankers are incremental: the app re-indexes one skill when it is edited
//! (even unsaved) with [`Ranker::upsert`], so an index always reflects the
//! library as it is on disk or in the editor.
//!
//! ## Identity and duplicates
//!
//! A routing document is stored under a unique `key` (the skill's directory
//! path for a loaded library) and reports the skill's identity `id` (its
//! `name`, else its directory name) that agents and eval suites use. A library
//! may hold two skills with the same identity; a ranker then returns each
//! identity at most once, with the best-scoring of its documents, because an
//! agent picks a skill by name and a duplicate must not take two of the top
//! slots.

pub mod analysis;
pub mod bm25;
pub mod collision;
pub mod contrast;
pub mod highlight;
pub mod hybrid;
pub mod live;
pub mod map;
pub mod retrieval;
pub mod semantic;

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::clients::Client;
use crate::library::Library;
use crate::skill::Skill;

pub use bm25::Bm25Ranker;

/// The longest request, in bytes, a ranker accepts. Longer text is not a
/// request but a pasted document; rejecting it keeps every query cheap.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;

/// What an agent sees of a skill when choosing one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingDoc {
    /// Unique key of the document in a ranker (a skill's directory path).
    pub key: String,
    /// The skill's identity: its `name`, else its directory name.
    pub id: String,
    /// The `name` field as written (the directory name when absent).
    pub name: String,
    pub description: String,
    pub when_to_use: Option<String>,
    pub triggers: Vec<String>,
}

impl RoutingDoc {
    /// The routing metadata of a loaded (or edited, unsaved) skill.
    pub fn from_skill(skill: &Skill) -> Self {
        let meta = &skill.meta;
        RoutingDoc {
            key: skill.dir.to_string_lossy().into_owned(),
            id: skill.id.clone(),
            name: meta.name.clone().unwrap_or_else(|| skill.dir_name()),
            description: meta.description.clone().unwrap_or_default(),
            when_to_use: meta.when_to_use.clone(),
            triggers: meta.triggers.clone().unwrap_or_default(),
        }
    }

    /// The routing documents of every skill of a library, in library order.
    pub fn from_library(library: &Library) -> Vec<Self> {
        library.skills.iter().map(RoutingDoc::from_skill).collect()
    }

    /// The built-in skills `client` lists beside the library's, as routing
    /// documents that compete with `library_docs` for the same requests. A
    /// built-in whose name a library skill takes is left out: the client
    /// lists the author's skill in its place.
    pub fn builtins(client: Client, library_docs: &[RoutingDoc]) -> Vec<RoutingDoc> {
        crate::clients::builtins(client)
            .into_iter()
            .filter(|(name, _)| !library_docs.iter().any(|d| d.id == *name))
            .map(|(name, description)| RoutingDoc {
                key: builtin_key(client, name),
                id: name.to_owned(),
                name: name.to_owned(),
                description: description.to_owned(),
                when_to_use: None,
                triggers: Vec::new(),
            })
            .collect()
    }

    /// The library's documents with `client`'s built-ins added, or alone
    /// when there is no client.
    pub fn with_builtins(mut docs: Vec<RoutingDoc>, client: Option<Client>) -> Vec<RoutingDoc> {
        if let Some(client) = client {
            let builtins = RoutingDoc::builtins(client, &docs);
            docs.extend(builtins);
        }
        docs
    }

    /// The text of one field. Triggers are joined by newlines; highlight ranges
    /// of [`TermMatch`] are byte offsets into this text.
    pub fn field_text(&self, field: RoutingField) -> Cow<'_, str> {
        match field {
            RoutingField::Name => Cow::Borrowed(&self.name),
            RoutingField::Description => Cow::Borrowed(&self.description),
            RoutingField::WhenToUse => Cow::Borrowed(self.when_to_use.as_deref().unwrap_or("")),
            RoutingField::Triggers => Cow::Owned(self.triggers.join("\n")),
        }
    }

    /// The metadata as one passage, the way a catalog presents a skill:
    /// `name: description`, then `when_to_use` and the triggers.
    pub fn routing_text(&self) -> String {
        let mut text = format!("{}: {}", self.name, self.description.trim());
        if let Some(when) = self.when_to_use.as_deref().filter(|w| !w.trim().is_empty()) {
            text.push_str("\nWhen to use: ");
            text.push_str(when.trim());
        }
        if !self.triggers.is_empty() {
            text.push_str("\nTriggers: ");
            text.push_str(&self.triggers.join("; "));
        }
        text
    }
}

/// The key prefix of a client's built-in skill: `builtin:CLIENT/NAME`.
const BUILTIN_KEY: &str = "builtin:";

/// The document key of `client`'s built-in skill `name`.
pub fn builtin_key(client: Client, name: &str) -> String {
    format!("{BUILTIN_KEY}{}/{name}", client.as_str())
}

/// The client whose built-in skill a document key names, if it names one.
pub fn builtin_client(key: &str) -> Option<Client> {
    let rest = key.strip_prefix(BUILTIN_KEY)?;
    Client::parse(rest.split_once('/')?.0)
}

/// A field of the routing metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RoutingField {
    Name,
    Description,
    WhenToUse,
    Triggers,
}

impl RoutingField {
    pub const ALL: [RoutingField; 4] = [
        RoutingField::Name,
        RoutingField::Description,
        RoutingField::WhenToUse,
        RoutingField::Triggers,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RoutingField::Name => "name",
            RoutingField::Description => "description",
            RoutingField::WhenToUse => "when_to_use",
            RoutingField::Triggers => "triggers",
        }
    }
}

/// The family of a ranker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum RankerKind {
    /// Keyword ranking: BM25 over the routing fields.
    Bm25,
    /// Cosine similarity of sentence embeddings.
    Semantic,
    /// A fusion of keyword and semantic ranking.
    Hybrid,
    /// A language model asked which skill it would load (`hone_agent::agent`).
    Agent,
}

impl RankerKind {
    /// The offline rankers: built from the library alone, free to run.
    pub const ALL: [RankerKind; 3] = [RankerKind::Bm25, RankerKind::Semantic, RankerKind::Hybrid];

    pub fn as_str(self) -> &'static str {
        match self {
            RankerKind::Bm25 => "bm25",
            RankerKind::Semantic => "semantic",
            RankerKind::Hybrid => "hybrid",
            RankerKind::Agent => "agent",
        }
    }
}

impl fmt::Display for RankerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RankerKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RankerKind::ALL
            .into_iter()
            .chain([RankerKind::Agent])
            .find(|kind| kind.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!("unknown ranker `{s}` (expected bm25, semantic, hybrid or agent)")
            })
    }
}

/// What of a skill a ranking reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum RankView {
    /// What the agent sees when it picks a skill: name, description,
    /// `when_to_use`, triggers. "Which would the agent pick?"
    #[default]
    Listing,
    /// The whole skill: body sections, headings, reference-file titles and
    /// script names, the description weighted most. "Which skill of this
    /// library does this task need?"
    Retrieval,
}

impl RankView {
    pub const ALL: [RankView; 2] = [RankView::Listing, RankView::Retrieval];

    pub fn as_str(self) -> &'static str {
        match self {
            RankView::Listing => "listing",
            RankView::Retrieval => "retrieval",
        }
    }
}

impl fmt::Display for RankView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RankView {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RankView::ALL
            .into_iter()
            .find(|view| view.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown view `{s}` (expected listing or retrieval)"))
    }
}

/// One ranked skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// The skill's identity.
    pub id: String,
    /// The key of the routing document that matched (see [`RoutingDoc::key`]).
    pub key: String,
    /// The ranker's raw score: it orders the matches of one query only.
    pub score: f32,
    /// Calibrated confidence in `[0, 1]`, comparable across queries: the match
    /// is selected when it is at least the threshold.
    pub confidence: f32,
    pub explanation: Explanation,
}

/// Why a skill matched, for the search panel to show and highlight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Explanation {
    Keyword(KeywordExplanation),
    Semantic(SemanticExplanation),
    Hybrid(HybridExplanation),
    Agent(AgentExplanation),
    Retrieval(RetrievalExplanation),
}

/// What a model answered over its runs (filled in by the agent ranker).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AgentExplanation {
    /// Runs that answered.
    pub runs: usize,
    /// Runs that picked this skill.
    pub picks: usize,
    /// The model's log-likelihood of naming this skill, for a provider that
    /// scores every skill instead of picking one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_likelihood: Option<f64>,
    /// The name as the model wrote it, when it is not a skill of the library.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_name: Option<String>,
}

/// Keyword evidence: which query terms matched which fields, and how much each
/// contributed to the raw score. Contributions sum to the match's score.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct KeywordExplanation {
    /// Matched (term, field) pairs, largest contribution first.
    pub terms: Vec<TermMatch>,
    /// Words of the request, as written, that matched no field of this
    /// skill (stop words are not listed: they never match).
    pub unmatched: Vec<String>,
    /// The score in units of the best one term can earn (a term found in
    /// this skill only, at saturation); the confidence is derived from it.
    pub evidence: f32,
}

/// One query term matching one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TermMatch {
    /// The word of the query as the user wrote it.
    pub term: String,
    /// Its byte range in the query.
    pub query_range: Range<usize>,
    /// The indexed token it matched (lowercased and stemmed).
    pub token: String,
    pub field: RoutingField,
    /// Occurrences of the token in the field.
    pub term_frequency: u32,
    /// This term's share of the raw score.
    pub contribution: f32,
    /// Byte ranges of the matching words in [`RoutingDoc::field_text`].
    pub highlights: Vec<Range<usize>>,
}

/// Semantic evidence (filled in by the semantic ranker).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SemanticExplanation {
    /// Cosine similarity of the request and the routing text.
    pub similarity: f32,
    /// The parts of the routing text (the name, each sentence of the
    /// description, `when_to_use`, each trigger) by contribution, largest
    /// first. Contributions add up to `similarity` except for the small share
    /// of the model's special tokens.
    #[serde(default)]
    pub parts: Vec<SemanticPart>,
}

/// One part of the routing text and its share of the similarity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SemanticPart {
    pub field: RoutingField,
    /// Byte range of the part in [`RoutingDoc::field_text`].
    pub range: Range<usize>,
    pub contribution: f32,
}

/// Hybrid evidence: the parts fused (filled in by the hybrid ranker).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct HybridExplanation {
    pub keyword: Option<KeywordExplanation>,
    pub semantic: Option<SemanticExplanation>,
    /// The keyword ranker's confidence for this skill (0 when it did not
    /// rank it).
    #[serde(default)]
    pub keyword_confidence: f32,
    /// Late interaction: how closely the request's words are matched, one by
    /// one, by words of the routing text (IDF-weighted best cosines).
    #[serde(default)]
    pub token_match: f32,
    /// How the score was fused from the similarity and the two above.
    #[serde(default)]
    pub formula: String,
}

/// Retrieval-view evidence: how the whole skill matched (filled in by
/// [`retrieval::RetrievalRanker`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RetrievalExplanation {
    /// The listing BM25's evidence, when the skill was among its matches.
    pub keyword: Option<KeywordExplanation>,
    /// Cosine of the request and the listing's routing text (0 without a
    /// model).
    pub description_similarity: f32,
    /// The heading of the body section closest to the request.
    pub section: Option<String>,
    /// Its cosine with the request.
    pub section_similarity: f32,
    /// BM25F over the whole skill, in units of one distinctive word.
    pub body_evidence: f32,
    /// The listing BM25's confidence (0 when it did not rank the skill).
    pub keyword_confidence: f32,
    /// Late interaction with the routing text, for the re-ranked skills.
    pub token_match: f32,
    /// How the score was fused.
    pub formula: String,
}

#[derive(Debug, thiserror::Error)]
pub enum RankError {
    #[error("the request is {len} bytes long; at most {max} bytes are accepted")]
    QueryTooLong { len: usize, max: usize },
    #[error("search index error: {0}")]
    Index(String),
    #[error("embedding model error: {0}")]
    Model(String),
    /// A [`live::LiveRankers`] was asked for a kind it has not been given.
    #[error("the {0} ranker is not ready")]
    NotBuilt(RankerKind),
    #[error("agent: {0}")]
    Agent(String),
}

/// Orders routing documents for a request. Object-safe: the app and the eval
/// engine hold a `Box<dyn Ranker>` / `&dyn Ranker`.
pub trait Ranker: Send + Sync {
    fn kind(&self) -> RankerKind;

    /// The best `k` distinct skills for `query`, best first. Any text is a
    /// valid request (query syntax is never interpreted); an empty request has
    /// no matches; only a request over [`MAX_QUERY_BYTES`] is an error.
    fn rank(&self, query: &str, k: usize) -> Result<Vec<Match>, RankError>;

    /// Adds the document, or replaces the one with the same key. Only this
    /// document is re-indexed.
    fn upsert(&mut self, doc: RoutingDoc) -> Result<(), RankError>;

    /// Adds or replaces a loaded (or edited) skill. The listing view reads
    /// only its routing metadata; the retrieval view re-indexes its body.
    fn upsert_skill(&mut self, skill: &Skill) -> Result<(), RankError> {
        self.upsert(RoutingDoc::from_skill(skill))
    }

    /// Removes the document with `key`; returns whether it was there.
    fn remove(&mut self, key: &str) -> Result<bool, RankError>;

    /// Number of documents indexed.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The confidence threshold chosen on the development benchmark.
    fn default_threshold(&self) -> f32;

    /// The unit embedding of each indexed routing text, by key, for rankers
    /// that embed (the map of the library, semantic collisions); `None` for
    /// keyword ranking.
    fn routing_vectors(&self) -> Option<std::collections::HashMap<String, Vec<f32>>> {
        None
    }

    /// The unit embedding of a request, for rankers that embed.
    fn request_vector(&self, _query: &str) -> Option<Result<Vec<f32>, RankError>> {
        None
    }
}

/// A ranker of `kind` over `docs`. The semantic and hybrid rankers load the
/// embedding model (`model`, else `$HONE_MODEL`, else the installed default)
/// and embed what the disk cache lacks, reporting `progress`; without a model
/// they fail with a message that says how to install one.
pub fn build(
    kind: RankerKind,
    docs: Vec<RoutingDoc>,
    model: Option<&std::path::Path>,
    progress: &mut dyn FnMut(crate::embed::EmbedProgress),
) -> Result<Box<dyn Ranker>, RankError> {
    build_stopping(kind, docs, model, progress, None)
}

/// As [`build`], giving up the embedding when `stop` says so (what was
/// embedded is cached, so the next build goes on from there).
pub fn build_stopping(
    kind: RankerKind,
    docs: Vec<RoutingDoc>,
    model: Option<&std::path::Path>,
    progress: &mut dyn FnMut(crate::embed::EmbedProgress),
    stop: Option<crate::embed::Stop>,
) -> Result<Box<dyn Ranker>, RankError> {
    use std::sync::Arc;
    let embedder = match kind {
        RankerKind::Semantic | RankerKind::Hybrid => Some(
            crate::embed::Embedder::open_default(model)
                .map(|embedder| match stop {
                    Some(stop) => embedder.stopping_when(stop),
                    None => embedder,
                })
                .map(Arc::new)
                .map_err(|e| RankError::Model(e.to_string()))?,
        ),
        _ => None,
    };
    build_with(kind, docs, embedder, progress)
}

/// A ranker of `kind` over `docs` with an embedder already open (needed for
/// semantic and hybrid ranking, unused for BM25), embedding what its cache
/// lacks and reporting `progress`.
pub fn build_with(
    kind: RankerKind,
    docs: Vec<RoutingDoc>,
    embedder: Option<std::sync::Arc<crate::embed::Embedder>>,
    progress: &mut dyn FnMut(crate::embed::EmbedProgress),
) -> Result<Box<dyn Ranker>, RankError> {
    let embedder = || {
        embedder
            .ok_or_else(|| RankError::Model(format!("{kind} ranking needs the embedding model")))
    };
    Ok(match kind {
        RankerKind::Bm25 => Box::new(Bm25Ranker::new(docs)?),
        RankerKind::Semantic => {
            Box::new(semantic::SemanticRanker::new(embedder()?, docs, progress)?)
        }
        RankerKind::Hybrid => Box::new(hybrid::HybridRanker::new(embedder()?, docs, progress)?),
        RankerKind::Agent => {
            return Err(RankError::Agent(
                "the agent ranker needs a provider and a model: build it with hone_core::agent::AgentRanker".into(),
            ));
        }
    })
}

/// A ranker of `kind` over the skills of `library` in `view` (see
/// [`build`] for the model and `progress`). In the listing view, `builtins`
/// names the client whose own skills compete beside the library's, as that
/// client lists them; the retrieval view answers "which skill of this
/// library", so it never holds them.
pub fn build_view(
    view: RankView,
    kind: RankerKind,
    library: &Library,
    builtins: Option<Client>,
    model: Option<&std::path::Path>,
    progress: &mut dyn FnMut(crate::embed::EmbedProgress),
) -> Result<Box<dyn Ranker>, RankError> {
    match view {
        RankView::Listing => {
            let docs = RoutingDoc::with_builtins(RoutingDoc::from_library(library), builtins);
            build(kind, docs, model, progress)
        }
        RankView::Retrieval => Ok(Box::new(retrieval::RetrievalRanker::for_skills(
            kind,
            &library.skills,
            model,
            progress,
        )?)),
    }
}

/// The top match if it is selected at `threshold`.
pub fn selected(matches: &[Match], threshold: f32) -> Option<&Match> {
    matches.first().filter(|m| m.confidence >= threshold)
}

/// Rejects requests too long to be requests.
pub fn check_query(query: &str) -> Result<(), RankError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(RankError::QueryTooLong {
            len: query.len(),
            max: MAX_QUERY_BYTES,
        });
    }
    Ok(())
}

/// Keeps the best match of each identity, in order, up to `k` matches. Input
/// must be sorted best first.
pub fn distinct_ids(matches: Vec<Match>, k: usize) -> Vec<Match> {
    let mut seen = std::collections::HashSet::new();
    matches
        .into_iter()
        .filter(|m| seen.insert(m.id.clone()))
        .take(k)
        .collect()
}
