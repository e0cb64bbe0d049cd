//! A match's routing fields cut into plain and highlighted segments.
//!
//! An explanation names byte ranges (the words a keyword ranker matched, the
//! part of the routing text a semantic ranker found closest); a front end only
//! paints them. Cutting happens here, once, so the CLI and the app agree and
//! neither has to index UTF-8 text by bytes: ranges are sorted, overlaps
//! merged, and a range off a character boundary or past the text is dropped
//! rather than splitting a character.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::{Explanation, RoutingDoc, RoutingField};

/// One routing field of a match, ready to paint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FieldHighlight {
    pub field: RoutingField,
    pub segments: Vec<Segment>,
    /// The part of this field that contributed most to a semantic match.
    pub strongest_part: Option<String>,
}

/// A run of a field's text, matched (`hit`) or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Segment {
    pub text: String,
    pub hit: bool,
}

/// The non-empty routing fields of `doc`, cut at the ranges `explanation`
/// names, in field order.
pub fn field_highlights(doc: &RoutingDoc, explanation: &Explanation) -> Vec<FieldHighlight> {
    let (keyword, semantic) = match explanation {
        Explanation::Keyword(k) => (Some(k), None),
        Explanation::Semantic(s) => (None, Some(s)),
        Explanation::Hybrid(h) => (h.keyword.as_ref(), h.semantic.as_ref()),
        Explanation::Retrieval(r) => (r.keyword.as_ref(), None),
        // A model's pick has no word-level evidence to highlight.
        Explanation::Agent(_) => (None, None),
    };
    let strongest_part = semantic.and_then(|s| s.parts.first());
    RoutingField::ALL
        .into_iter()
        .filter_map(|field| {
            let text = doc.field_text(field);
            if text.is_empty() {
                return None;
            }
            let ranges: Vec<Range<usize>> = keyword
                .into_iter()
                .flat_map(|k| &k.terms)
                .filter(|t| t.field == field)
                .flat_map(|t| t.highlights.iter().cloned())
                .collect();
            let strongest_part = strongest_part
                .filter(|p| p.field == field)
                .and_then(|p| text.get(p.range.clone()))
                .map(str::to_owned);
            Some(FieldHighlight {
                field,
                segments: segments(&text, ranges),
                strongest_part,
            })
        })
        .collect()
}

/// `text` split at `ranges` (in any order; overlaps merged; ranges off a
/// character boundary or past the end ignored).
pub fn segments(text: &str, mut ranges: Vec<Range<usize>>) -> Vec<Segment> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out = Vec::new();
    let mut at = 0;
    for range in ranges {
        let start = range.start.max(at);
        let end = range.end.min(text.len());
        if start >= end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        if start > at {
            out.push(Segment {
                text: text[at..start].to_owned(),
                hit: false,
            });
        }
        match out.last_mut() {
            // Adjacent or overlapping hits read as one highlighted run.
            Some(last) if last.hit && start == at => last.text.push_str(&text[start..end]),
            _ => out.push(Segment {
                text: text[start..end].to_owned(),
                hit: true,
            }),
        }
        at = end;
    }
    if at < text.len() {
        out.push(Segment {
            text: text[at..].to_owned(),
            hit: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, ranges: Vec<Range<usize>>) -> String {
        // Hits in brackets: `Fill [PDF] forms`.
        segments(text, ranges)
            .into_iter()
            .map(|s| {
                if s.hit {
                    format!("[{}]", s.text)
                } else {
                    s.text
                }
            })
            .collect()
    }

    #[test]
    fn splits_at_ranges_in_any_order_and_merges_overlaps() {
        assert_eq!(
            cut("Fill PDF forms", vec![20..30, 6..7, 5..8]),
            "Fill [PDF] forms"
        );
        assert_eq!(cut("abcdef", vec![1..3, 2..5]), "a[bcde]f");
        assert_eq!(cut("abcdef", vec![]), "abcdef");
    }

    #[test]
    fn never_splits_a_character() {
        // "é" is two bytes: a range ending inside it is dropped, not a panic.
        assert_eq!(cut("café au lait", vec![3..4, 6..8]), "café [au] lait");
        assert_eq!(cut("日本語", vec![1..2, 0..100]), "[日本語]");
    }

    #[test]
    fn keyword_matches_are_cut_per_field() {
        use crate::rank::{KeywordExplanation, TermMatch};
        let doc = RoutingDoc {
            key: "pdf".into(),
            id: "pdf".into(),
            name: "pdf".into(),
            description: "Fill PDF forms".into(),
            when_to_use: None,
            triggers: vec![],
        };
        let explanation = Explanation::Keyword(KeywordExplanation {
            terms: vec![TermMatch {
                term: "forms".into(),
                query_range: 0..5,
                token: "form".into(),
                field: RoutingField::Description,
                term_frequency: 1,
                contribution: 1.0,
                highlights: std::iter::once(9..14).collect(),
            }],
            unmatched: vec![],
            evidence: 1.0,
        });
        let fields = field_highlights(&doc, &explanation);
        assert_eq!(fields.len(), 2, "empty fields are left out");
        assert_eq!(fields[0].field, RoutingField::Name);
        assert!(fields[0].segments.iter().all(|s| !s.hit));
        assert_eq!(
            fields[1].segments.last().unwrap(),
            &Segment {
                text: "forms".into(),
                hit: true
            }
        );
    }
}
