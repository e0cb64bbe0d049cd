//! Keyword evidence over the whole skill: BM25F over the listing's fields and
//! the body's (headings, prose, reference-file titles, script names).
//!
//! The listing view's BM25 ([`crate::rank::bm25`]) indexes four short fields
//! on tantivy. Bodies are some 50 times longer than descriptions, and the
//! retrieval view asks for only a score per skill, never a highlight, so this
//! index is a plain in-memory inverted index: a term's postings hold, per
//! skill and field, the term frequency. Field lengths are kept per skill and
//! their averages as sums, so scores after an edit equal a fresh index's.
//!
//! BM25F: a term's frequencies are weighted per field and normalised by each
//! field's length, then saturated once, so a word in the description and the
//! body counts more than in one of them, but not twice; the description and
//! name weigh most (the author's own summary), the prose least.
//!
//! The score is reported as *evidence*, as the listing's BM25 does: divided
//! by the most one request term can earn (`(k1 + 1) · idf` of a term found in
//! one skill only), so "2" reads "as strong as two distinctive words matched"
//! in a library of any size.

use std::collections::HashMap;

use super::super::RoutingDoc;
use super::super::analysis::Analyzer;
use super::doc::RetrievalDoc;

/// The fields of the index, ordered as declared (postings go in by term,
/// then field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
enum Field {
    Name,
    Description,
    /// `when_to_use` and the triggers.
    Routing,
    Headings,
    References,
    Scripts,
    Body,
}

const FIELDS: usize = 7;

fn is_routing(field: Field) -> bool {
    matches!(field, Field::Name | Field::Description | Field::Routing)
}

/// Per field: weight and length normalisation `b`. The body's `b` is low: a
/// long manual is long because it covers more, not because it repeats words.
const FIELD_PARAMS: [(f32, f32); FIELDS] = [
    (3.0, 0.5),
    (2.0, 0.75),
    (1.5, 0.75),
    (1.5, 0.5),
    (1.0, 0.5),
    (1.0, 0.5),
    (1.0, 0.3),
];

const K1: f32 = 1.2;

/// One skill's occurrences of one term in one field.
#[derive(Debug, Clone, Copy)]
struct Posting {
    slot: u32,
    field: Field,
    frequency: u16,
}

/// BM25F over the retrieval fields. Slots are the retrieval ranker's.
#[derive(Default)]
pub struct BodyIndex {
    analyzer: Analyzer,
    terms: HashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    /// Skills holding each term (any field).
    document_frequency: Vec<u32>,
    /// Per slot: the field lengths (in terms) and its distinct term ids, to
    /// remove its postings; `None` for a free slot.
    slots: Vec<Option<SlotTerms>>,
    live: u32,
    length_sums: [u64; FIELDS],
}

struct SlotTerms {
    lengths: [u32; FIELDS],
    term_ids: Box<[u32]>,
}

impl BodyIndex {
    /// Indexes `doc` at `slot`, replacing what the slot held.
    pub fn insert(&mut self, slot: usize, doc: &RetrievalDoc) {
        self.remove(slot);
        let routing = &doc.routing;
        let routing_text = {
            let mut text = routing.when_to_use.clone().unwrap_or_default();
            for trigger in &routing.triggers {
                text.push('\n');
                text.push_str(trigger);
            }
            text
        };
        let texts: [(Field, String); FIELDS] = [
            (Field::Name, routing.name.replace(['-', '_'], " ")),
            (Field::Description, routing.description.clone()),
            (Field::Routing, routing_text),
            (Field::Headings, doc.headings.join("\n")),
            (Field::References, doc.references.join("\n")),
            (Field::Scripts, doc.scripts.join("\n")),
            (Field::Body, doc.body.clone()),
        ];
        // Every (term, field) occurrence, then counted in runs once sorted:
        // cheaper than a map per skill, and the postings go in by term and
        // field, not in a map's order (which differs from one map to the
        // next): a skill's evidence is summed in posting order, so any other
        // order changes a score's last bits from one run, or one edit, to
        // the next.
        let mut occurrences: Vec<(u32, Field)> = Vec::new();
        let mut lengths = [0u32; FIELDS];
        let (terms, postings, document_frequency) = (
            &mut self.terms,
            &mut self.postings,
            &mut self.document_frequency,
        );
        for (field, text) in &texts {
            let before = occurrences.len();
            self.analyzer.with_index_terms(text, |found| {
                for found in found {
                    // A known term costs a lookup, not an allocation.
                    let id = match terms.get(found.term) {
                        Some(&id) => id,
                        None => {
                            let id = u32::try_from(postings.len()).unwrap_or(u32::MAX);
                            terms.insert(found.term.to_owned(), id);
                            postings.push(Vec::new());
                            document_frequency.push(0);
                            id
                        }
                    };
                    occurrences.push((id, *field));
                }
            });
            lengths[*field as usize] = (occurrences.len() - before).try_into().unwrap_or(u32::MAX);
        }
        occurrences.sort_unstable();
        let slot_u32 = u32::try_from(slot).unwrap_or(u32::MAX);
        let mut term_ids: Vec<u32> = Vec::new();
        for run in occurrences.chunk_by(|a, b| a == b) {
            let (id, field) = run[0];
            postings[id as usize].push(Posting {
                slot: slot_u32,
                field,
                frequency: run.len().try_into().unwrap_or(u16::MAX),
            });
            if term_ids.last() != Some(&id) {
                term_ids.push(id);
            }
        }
        for &id in &term_ids {
            self.document_frequency[id as usize] += 1;
        }
        for (sum, &length) in self.length_sums.iter_mut().zip(&lengths) {
            *sum += u64::from(length);
        }
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, || None);
        }
        self.slots[slot] = Some(SlotTerms {
            lengths,
            term_ids: term_ids.into_boxed_slice(),
        });
        self.live += 1;
    }

    /// Removes what `slot` holds, if anything.
    pub fn remove(&mut self, slot: usize) {
        let Some(held) = self.slots.get_mut(slot).and_then(Option::take) else {
            return;
        };
        let slot_u32 = u32::try_from(slot).unwrap_or(u32::MAX);
        for &id in held.term_ids.iter() {
            self.postings[id as usize].retain(|p| p.slot != slot_u32);
            self.document_frequency[id as usize] -= 1;
        }
        for (sum, &length) in self.length_sums.iter_mut().zip(&held.lengths) {
            *sum -= u64::from(length);
        }
        self.live -= 1;
    }

    /// Re-indexes the listing fields of `slot` (name, description,
    /// `when_to_use`, triggers) from `routing`, keeping its body fields: an
    /// edit of the frontmatter alone, when the body is not at hand.
    pub fn replace_routing(&mut self, slot: usize, routing: &RoutingDoc) {
        let Some(held) = self.slots.get(slot).and_then(Option::as_ref) else {
            return;
        };
        let body_only = RetrievalDoc::listing_only(RoutingDoc {
            name: String::new(),
            description: String::new(),
            when_to_use: None,
            triggers: Vec::new(),
            ..routing.clone()
        });
        let slot_u32 = u32::try_from(slot).unwrap_or(u32::MAX);
        // The body fields' counts, read back from the postings.
        let mut kept: Vec<(u32, Posting)> = Vec::new();
        for &id in held.term_ids.iter() {
            for posting in &self.postings[id as usize] {
                if posting.slot == slot_u32 && !is_routing(posting.field) {
                    kept.push((id, *posting));
                }
            }
        }
        let lengths = held.lengths;
        self.remove(slot);
        self.insert(
            slot,
            &RetrievalDoc {
                routing: routing.clone(),
                ..body_only
            },
        );
        let Some(held) = self.slots[slot].as_mut() else {
            return;
        };
        for field in [
            Field::Headings,
            Field::References,
            Field::Scripts,
            Field::Body,
        ] {
            let i = field as usize;
            held.lengths[i] = lengths[i];
            self.length_sums[i] += u64::from(lengths[i]);
        }
        let mut term_ids: Vec<u32> = held.term_ids.to_vec();
        for (id, posting) in kept {
            self.postings[id as usize].push(posting);
            if let Err(at) = term_ids.binary_search(&id) {
                term_ids.insert(at, id);
                self.document_frequency[id as usize] += 1;
            }
        }
        held.term_ids = term_ids.into_boxed_slice();
    }

    /// The evidence of every slot for `query` (0 for free slots and skills
    /// matching no term), indexed by slot.
    pub fn evidence(&self, query: &str) -> Vec<f32> {
        let mut scores = vec![0f32; self.slots.len()];
        if self.live == 0 {
            return scores;
        }
        let n = self.live as f32;
        let averages: Vec<f32> = self
            .length_sums
            .iter()
            .map(|&sum| (sum as f32 / n).max(1.0))
            .collect();
        let mut analyzer = self.analyzer.clone();
        let mut query_terms: Vec<String> =
            analyzer.tokens(query).into_iter().map(|t| t.text).collect();
        // A request's repeated word is one piece of evidence.
        query_terms.sort_unstable();
        query_terms.dedup();
        let mut weighted: HashMap<u32, f32> = HashMap::new();
        for term in &query_terms {
            let Some(&id) = self.terms.get(term) else {
                continue;
            };
            let df = self.document_frequency[id as usize] as f32;
            if df == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            weighted.clear();
            for posting in &self.postings[id as usize] {
                let slot = posting.slot as usize;
                let Some(held) = self.slots.get(slot).and_then(Option::as_ref) else {
                    continue;
                };
                let field = posting.field as usize;
                let (weight, b) = FIELD_PARAMS[field];
                let norm = 1.0 - b + b * held.lengths[field] as f32 / averages[field];
                *weighted.entry(posting.slot).or_default() +=
                    weight * f32::from(posting.frequency) / norm;
            }
            for (&slot, &tf) in &weighted {
                scores[slot as usize] += idf * tf / (K1 + tf);
            }
        }
        let best_term = (K1 + 1.0) * (1.0 + (n - 0.5) / 1.5).ln();
        for score in &mut scores {
            *score /= best_term;
        }
        scores
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, description: &str, body: &str) -> RetrievalDoc {
        RetrievalDoc {
            routing: RoutingDoc {
                key: name.into(),
                id: name.into(),
                name: name.into(),
                description: description.into(),
                when_to_use: None,
                triggers: Vec::new(),
            },
            body: body.into(),
            ..RetrievalDoc::default()
        }
    }

    #[test]
    fn body_words_find_a_skill_its_description_does_not_name() {
        let mut index = BodyIndex::default();
        index.insert(
            0,
            &doc(
                "pdf",
                "Work with documents.",
                "Use pdfplumber to extract tables.",
            ),
        );
        index.insert(1, &doc("csv", "Work with spreadsheets.", "Parse rows."));
        let scores = index.evidence("extract tables with pdfplumber");
        assert!(scores[0] > 0.0);
        assert_eq!(scores[1], 0.0);
    }

    /// Each build of an index hashes with keys of its own, so two builds
    /// would list a term's fields in different orders if the map's order
    /// leaked into the postings.
    #[test]
    fn the_same_skills_score_the_same_to_the_last_bit() {
        let skills = [
            doc(
                "deploy",
                "Deploy the app to kubernetes.",
                "# Deploy\nhelm charts for the deploy\n",
            ),
            doc(
                "release",
                "Cut a release.",
                "# Release\ndeploy the release with helm\n",
            ),
        ];
        let query = "deploy with helm";
        let build = || {
            let mut index = BodyIndex::default();
            for (slot, skill) in skills.iter().enumerate() {
                index.insert(slot, skill);
            }
            index.evidence(query)
        };
        let first = build();
        for _ in 0..20 {
            assert_eq!(build(), first);
        }
    }

    #[test]
    fn an_edited_index_scores_as_a_fresh_one() {
        let a = doc("a", "deploy the app", "kubernetes helm charts");
        let b = doc("b", "roll back a release", "helm rollback");
        let b2 = doc("b", "roll back a deploy", "git revert");
        let mut edited = BodyIndex::default();
        edited.insert(0, &a);
        edited.insert(1, &b);
        edited.insert(1, &b2);
        let mut fresh = BodyIndex::default();
        fresh.insert(0, &a);
        fresh.insert(1, &b2);
        let query = "helm deploy rollback";
        assert_eq!(edited.evidence(query), fresh.evidence(query));
        // A frontmatter edit alone keeps the body's terms.
        let renamed = RoutingDoc {
            description: "roll back a release".into(),
            ..b2.routing.clone()
        };
        edited.replace_routing(1, &renamed);
        let mut reference = BodyIndex::default();
        reference.insert(0, &a);
        reference.insert(
            1,
            &RetrievalDoc {
                routing: renamed.clone(),
                ..b2.clone()
            },
        );
        assert_eq!(edited.evidence(query), reference.evidence(query));
        edited.remove(1);
        edited.remove(1);
        assert_eq!(edited.evidence(query)[1], 0.0);
    }
}
