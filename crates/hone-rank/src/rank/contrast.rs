//! Why a skill lost: one request, two skills, side by side.
//!
//! An author whose skill was not picked needs to see, for the skill they
//! expected and the one that won, what each matched of the request and how
//! far apart they ended. A [`Contrast`] is built from the ranker's own
//! explanations (the keyword terms with their fields and highlights, the
//! semantic closeness of each part of the routing text), so it says exactly
//! what the ranking used, whatever the ranker. Both skills are explained even
//! when one ranks far down: the whole library is ranked once.
//!
//! The request's words that *neither* skill matched are the ones an author
//! would add to the expected skill's description; words only the winner
//! matched show what pulls the request away.

use std::collections::BTreeSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::analysis::Analyzer;
use super::highlight::{FieldHighlight, field_highlights};
use super::{
    Explanation, KeywordExplanation, Match, RankError, Ranker, RoutingDoc, RoutingField,
    SemanticExplanation, TermMatch,
};

/// The contrast of two skills for one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Contrast {
    pub request: String,
    /// The skill the author expected (or the open skill).
    pub expected: SkillSide,
    /// The skill it is compared with: the winner, or the runner-up when the
    /// expected skill is first.
    pub other: SkillSide,
    /// `other`'s confidence minus `expected`'s: what the expected skill must
    /// gain to overtake (negative when it already leads).
    pub margin: f32,
    /// The same in raw score.
    pub score_margin: f32,
    /// The request's words each skill matched and the other did not, and
    /// the words both matched, as written in the request.
    pub only_expected: Vec<String>,
    pub only_other: Vec<String>,
    pub both: Vec<String>,
    /// The request's words (stop words aside) found in neither skill.
    pub neither: Vec<String>,
}

/// One skill's side of a [`Contrast`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SkillSide {
    pub id: String,
    pub key: String,
    /// 1-based rank in the library for the request; `None` when the ranker
    /// did not rank it at all (no evidence).
    pub rank: Option<usize>,
    pub score: f32,
    pub confidence: f32,
    /// The request's words this skill matched, per field, largest
    /// contribution first.
    pub words: Vec<WordMatch>,
    /// The routing fields cut at the matched words.
    pub fields: Vec<FieldHighlight>,
    /// Cosine similarity of the request and the routing text, when the
    /// ranker is semantic or hybrid.
    pub similarity: Option<f32>,
    /// The closeness of the request to each sentence of the routing text, in
    /// the text's order (empty without a semantic ranker).
    pub sentences: Vec<SentenceCloseness>,
}

/// A word of the request matched in one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct WordMatch {
    /// As written in the request.
    pub word: String,
    pub field: RoutingField,
    /// Its share of the keyword score (0 when not scored by a keyword ranker).
    pub contribution: f32,
}

/// One part of the routing text and its share of the semantic similarity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SentenceCloseness {
    pub field: RoutingField,
    pub text: String,
    pub closeness: f32,
}

#[derive(Debug, thiserror::Error)]
pub enum ContrastError {
    #[error("no skill `{0}` in the library")]
    UnknownSkill(String),
    #[error("the library has no other skill to compare `{0}` with")]
    NothingToCompare(String),
    #[error(transparent)]
    Rank(#[from] RankError),
}

/// Contrasts `expected` with `other` (by identity) for `request`; without
/// `other`, with the top match, or the runner-up when `expected` is first.
/// `docs` are the routing documents the ranker indexes.
pub fn contrast(
    ranker: &dyn Ranker,
    docs: &[RoutingDoc],
    request: &str,
    expected: &str,
    other: Option<&str>,
) -> Result<Contrast, ContrastError> {
    let find_doc = |id: &str| {
        docs.iter()
            .find(|d| d.id == id)
            .ok_or_else(|| ContrastError::UnknownSkill(id.to_owned()))
    };
    let expected_doc = find_doc(expected)?;
    let matches = ranker.rank(request, ranker.len())?;
    let other_doc = match other {
        Some(id) => find_doc(id)?,
        None => {
            let id = matches
                .iter()
                .map(|m| m.id.as_str())
                .chain(docs.iter().map(|d| d.id.as_str()))
                .find(|id| *id != expected)
                .ok_or_else(|| ContrastError::NothingToCompare(expected.to_owned()))?;
            find_doc(id)?
        }
    };
    let words = request_words(request);
    let expected_side = side(expected_doc, &matches, request);
    let other_side = side(other_doc, &matches, request);
    let matched = |side: &SkillSide| -> BTreeSet<String> {
        side.words.iter().map(|w| w.word.to_lowercase()).collect()
    };
    let (in_expected, in_other) = (matched(&expected_side), matched(&other_side));
    let mut only_expected = Vec::new();
    let mut only_other = Vec::new();
    let mut both = Vec::new();
    let mut neither = Vec::new();
    for word in words {
        let key = word.to_lowercase();
        match (in_expected.contains(&key), in_other.contains(&key)) {
            (true, true) => both.push(word),
            (true, false) => only_expected.push(word),
            (false, true) => only_other.push(word),
            (false, false) => neither.push(word),
        }
    }
    Ok(Contrast {
        request: request.to_owned(),
        margin: other_side.confidence - expected_side.confidence,
        score_margin: other_side.score - expected_side.score,
        expected: expected_side,
        other: other_side,
        only_expected,
        only_other,
        both,
        neither,
    })
}

/// The distinct words of the request that carry meaning (stop words
/// dropped), as written, in order.
fn request_words(request: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    Analyzer::default()
        .tokens(request)
        .into_iter()
        .filter(|t| seen.insert(t.text.clone()))
        .map(|t| request[t.offset_from..t.offset_to].to_owned())
        .collect()
}

/// One skill's side: its match when ranked, else evidence found directly.
fn side(doc: &RoutingDoc, matches: &[Match], request: &str) -> SkillSide {
    let position = matches.iter().position(|m| m.id == doc.id);
    let found = position.map(|p| &matches[p]);
    let (keyword, semantic) = match found.map(|m| &m.explanation) {
        Some(Explanation::Keyword(k)) => (Some(k.clone()), None),
        Some(Explanation::Semantic(s)) => (None, Some(s)),
        Some(Explanation::Hybrid(h)) => (h.keyword.clone(), h.semantic.as_ref()),
        // The retrieval view's sentence evidence is of body sections, not
        // of the routing text this contrast shows.
        Some(Explanation::Retrieval(r)) => (r.keyword.clone(), None),
        // The model gives no word-level evidence: the words are found directly.
        Some(Explanation::Agent(_)) | None => (None, None),
    };
    // A skill the keyword side did not rank, or a semantic-only ranking,
    // still shows which words its fields contain.
    let keyword = keyword.unwrap_or_else(|| literal_matches(doc, request));
    let mut words: Vec<WordMatch> = keyword
        .terms
        .iter()
        .map(|t| WordMatch {
            word: t.term.clone(),
            field: t.field,
            contribution: t.contribution,
        })
        .collect();
    words.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
    let explanation = Explanation::Hybrid(super::HybridExplanation {
        keyword: Some(keyword),
        semantic: semantic.cloned(),
        ..Default::default()
    });
    SkillSide {
        id: doc.id.clone(),
        key: doc.key.clone(),
        rank: position.map(|p| p + 1),
        score: found.map_or(0.0, |m| m.score),
        confidence: found.map_or(0.0, |m| m.confidence),
        words,
        fields: field_highlights(doc, &explanation),
        similarity: semantic.map(|s| s.similarity),
        sentences: semantic.map_or_else(Vec::new, |s| sentences(doc, s)),
    }
}

/// The parts of a semantic explanation in the routing text's order.
fn sentences(doc: &RoutingDoc, semantic: &SemanticExplanation) -> Vec<SentenceCloseness> {
    let mut parts: Vec<_> = semantic.parts.iter().collect();
    parts.sort_by_key(|p| (p.field, p.range.start));
    parts
        .into_iter()
        .filter_map(|p| {
            let text = doc.field_text(p.field);
            Some(SentenceCloseness {
                field: p.field,
                text: text.get(p.range.clone())?.trim().to_owned(),
                closeness: p.contribution,
            })
        })
        .collect()
}

/// The request's words found literally (after analysis) in `doc`'s fields,
/// unscored: the evidence when no keyword ranker explained this skill.
fn literal_matches(doc: &RoutingDoc, request: &str) -> KeywordExplanation {
    let mut analyzer = Analyzer::default();
    let request_tokens = analyzer.tokens(request);
    let mut explanation = KeywordExplanation::default();
    let mut matched = BTreeSet::new();
    for field in RoutingField::ALL {
        let text = doc.field_text(field);
        let field_tokens = analyzer.tokens(&text);
        let mut seen = BTreeSet::new();
        for token in &request_tokens {
            if !seen.insert(token.text.clone()) {
                continue;
            }
            let highlights: Vec<Range<usize>> = field_tokens
                .iter()
                .filter(|t| t.text == token.text)
                .map(|t| t.offset_from..t.offset_to)
                .collect();
            if highlights.is_empty() {
                continue;
            }
            matched.insert(token.text.clone());
            explanation.terms.push(TermMatch {
                term: request[token.offset_from..token.offset_to].to_owned(),
                query_range: token.offset_from..token.offset_to,
                token: token.text.clone(),
                field,
                term_frequency: highlights.len() as u32,
                contribution: 0.0,
                highlights,
            });
        }
    }
    let mut seen = BTreeSet::new();
    explanation.unmatched = request_tokens
        .iter()
        .filter(|t| !matched.contains(&t.text) && seen.insert(t.text.clone()))
        .map(|t| request[t.offset_from..t.offset_to].to_owned())
        .collect();
    explanation
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::Bm25Ranker;

    pub(crate) fn doc(id: &str, description: &str) -> RoutingDoc {
        RoutingDoc {
            key: format!("/lib/{id}"),
            id: id.into(),
            name: id.into(),
            description: description.into(),
            when_to_use: None,
            triggers: vec![],
        }
    }

    fn library() -> Vec<RoutingDoc> {
        vec![
            doc(
                "pdf-forms",
                "Fill and flatten PDF forms. Use when the user has a PDF form to complete.",
            ),
            doc(
                "pdf-extract",
                "Extract text and tables from PDF files. Use when asked to pull text out of a PDF.",
            ),
            doc(
                "spreadsheet",
                "Build and edit spreadsheets, formulas and charts.",
            ),
        ]
    }

    #[test]
    fn names_the_words_each_skill_matched_and_those_neither_did() {
        let docs = library();
        let ranker = Bm25Ranker::new(docs.clone()).unwrap();
        let request = "extract the tables from this PDF invoice";
        let contrast = contrast(&ranker, &docs, request, "pdf-forms", None).unwrap();
        assert_eq!(contrast.other.id, "pdf-extract", "the winner");
        assert_eq!(contrast.other.rank, Some(1));
        assert!(contrast.margin > 0.0, "the winner leads");
        assert_eq!(contrast.both, vec!["PDF"]);
        assert_eq!(contrast.only_other, vec!["extract", "tables"]);
        assert!(contrast.only_expected.is_empty());
        assert_eq!(contrast.neither, vec!["invoice"]);
        let pdf = contrast.expected.words.iter().find(|w| w.word == "PDF");
        assert_eq!(pdf.map(|w| w.field), Some(RoutingField::Name));
        // The winner's description is cut at the matched words.
        let description = contrast
            .other
            .fields
            .iter()
            .find(|f| f.field == RoutingField::Description)
            .unwrap();
        let hits: Vec<&str> = description
            .segments
            .iter()
            .filter(|s| s.hit)
            .map(|s| s.text.as_str())
            .collect();
        assert!(
            hits.contains(&"Extract") && hits.contains(&"tables"),
            "{hits:?}"
        );
    }

    #[test]
    fn an_unranked_skill_still_shows_its_side_and_the_runner_up_is_the_default_other() {
        let docs = library();
        let ranker = Bm25Ranker::new(docs.clone()).unwrap();
        // The spreadsheet skill matches none of these words.
        let lost = contrast(&ranker, &docs, "flatten a PDF", "spreadsheet", None).unwrap();
        assert_eq!(lost.expected.rank, None);
        assert_eq!(lost.expected.confidence, 0.0);
        assert_eq!(lost.other.id, "pdf-forms");
        assert_eq!(lost.only_other, vec!["flatten", "PDF"]);
        // When the expected skill wins, it is compared with the runner-up.
        let won = contrast(&ranker, &docs, "flatten a PDF", "pdf-forms", None).unwrap();
        assert_eq!(won.other.id, "pdf-extract");
        assert!(won.margin < 0.0);
    }

    #[test]
    fn unknown_skills_are_errors() {
        let docs = library();
        let ranker = Bm25Ranker::new(docs.clone()).unwrap();
        let err = contrast(&ranker, &docs, "pdf", "nope", None).unwrap_err();
        assert!(err.to_string().contains("`nope`"));
    }
}
