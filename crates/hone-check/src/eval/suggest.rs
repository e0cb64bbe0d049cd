//! Description edits for a skill that fails cases, each measured.
//!
//! Rewriting a description by feel and re-running the suite is the loop
//! that costs authors hours. Here the candidates are mined from evidence and
//! scored the way skill-creator scores description edits: the suites' cases
//! are split 60/40 into a training and a held-out part, candidates are
//! mined from the training part only, and each candidate is applied to the
//! ranker (as an unsaved edit would be), both parts re-run, and the edit
//! undone. The held-out delta, on requests the mining never saw, is the
//! prediction shown; candidates are ranked by it, then by the training
//! delta.
//!
//! Candidates:
//! - words and two-word phrases of the skill's training requests (those it
//!   failed count double) that its routing text lacks, appended as a clause;
//! - the body's section headings, which name what the skill covers;
//! - for a skill that takes other skills' requests, each description sentence
//!   holding words of those requests, proposed for removal.
//!
//! An edit that makes any frontmatter rule report something the original
//! did not (the length limits, the listing cap, YAML that no longer
//! parses) is never proposed; the count of such edits is reported.
//!
//! The split is by a fixed hash of each request, so it is the same on every
//! run and machine.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::{Case, Suite, run};
use crate::diagnostic::Severity;
use crate::edit::{FieldValue, set_field};
use crate::library::Library;
use crate::rank::analysis::Analyzer;
use crate::rank::{RankError, Ranker, RoutingDoc};
use crate::rules::{Target, check_frontmatter};
use crate::skill::Skill;

/// Share of the cases, in fifths, in the training part.
const TRAINING_FIFTHS: u64 = 3;
/// Words, phrases and headings tried, each at most.
const MAX_WORDS: usize = 5;
const MAX_PHRASES: usize = 3;
const MAX_HEADINGS: usize = 4;

/// Measured suggestions for one skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Suggestions {
    pub skill: String,
    pub training_cases: usize,
    pub held_out_cases: usize,
    /// Routing accuracy of each part before any edit.
    pub training_accuracy: f64,
    pub held_out_accuracy: f64,
    /// Best predicted held-out delta first.
    pub candidates: Vec<Suggestion>,
    /// Candidates dropped because they would break a validation rule.
    pub rejected: usize,
    /// The agent's account, when the first candidates were confirmed by it
    /// (see [`super::confirm`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentConfirmation>,
}

/// What the agent made of the suggestions, beside [`Suggestions`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AgentConfirmation {
    pub provider: String,
    pub model: String,
    pub runs: usize,
    /// The agent's routing accuracy on the held-out cases before any edit.
    pub held_out_accuracy: Option<f64>,
    /// Candidates asked about (the first ones of the list).
    pub confirmed: usize,
    /// Calls made, and answers taken from the cache.
    pub calls: usize,
    pub answers_from_cache: usize,
    pub spent_usd: Option<f64>,
    /// Why the confirmation stopped early (cancelled, cost limit), if it did;
    /// the candidates it did not reach have no agent delta.
    pub stopped: Option<String>,
}

/// One description edit and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Suggestion {
    pub change: Change,
    /// Where the candidate comes from, for the author.
    pub reason: String,
    pub before: String,
    pub after: String,
    pub training_delta: f64,
    pub held_out_delta: f64,
    /// The held-out delta with the agent ranker, for a confirmed candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_held_out_delta: Option<f64>,
}

/// The edit, as a diff of the description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", content = "text", rename_all = "lowercase")]
pub enum Change {
    /// A clause appended to the description.
    Add(String),
    /// A sentence of the description removed.
    Remove(String),
}

#[derive(Debug, thiserror::Error)]
pub enum SuggestError {
    #[error("no skill `{0}` in the library")]
    UnknownSkill(String),
    #[error("`{0}` has no case in the training part of the suites to learn from")]
    NoCases(String),
    #[error(transparent)]
    Rank(#[from] RankError),
}

/// Mines and scores description edits for the skill `id` of `library`,
/// whose routing documents `ranker` indexes, on resolved `suites`. The
/// ranker is left as it was.
pub fn suggest(
    ranker: &mut dyn Ranker,
    library: &Library,
    suites: &[Suite],
    id: &str,
    threshold: f32,
    listing_cap: usize,
) -> Result<Suggestions, SuggestError> {
    let skill = library
        .skills
        .iter()
        .find(|s| s.id == id)
        .ok_or_else(|| SuggestError::UnknownSkill(id.to_owned()))?;
    let original = RoutingDoc::from_skill(skill);
    let (training, held_out) = split(suites);
    let options = super::RunOptions {
        threshold,
        library: String::new(),
    };
    let accuracy = |ranker: &dyn Ranker, suites: &[Suite]| {
        run(ranker, suites, &options, &mut |_, _| {})
            .metrics
            .overall
            .accuracy
            .unwrap_or(0.0)
    };
    let training_report = run(&*ranker, &training, &options, &mut |_, _| {});
    let training_accuracy = training_report.metrics.overall.accuracy.unwrap_or(0.0);
    let held_out_accuracy = accuracy(&*ranker, &held_out);

    // The skill's own training requests (failed ones twice) and the
    // requests it took from other skills.
    let mut own: Vec<(&str, usize)> = Vec::new();
    let mut taken: Vec<&str> = Vec::new();
    for case in &training_report.cases {
        let expected = case.expect.iter().flatten().any(|e| e == id);
        if expected {
            own.push((&case.query, if case.passed { 1 } else { 2 }));
        } else if !case.passed && case.selected.first().is_some_and(|s| s == id) {
            taken.push(&case.query);
        }
    }
    if own.is_empty() && taken.is_empty() {
        return Err(SuggestError::NoCases(id.to_owned()));
    }

    let description = original.description.trim().to_owned();
    let mut analyzer = Analyzer::default();
    let known: BTreeSet<String> = analyzer
        .tokens(&original.routing_text())
        .into_iter()
        .map(|t| t.text)
        .collect();
    let mut edits: Vec<(Change, String)> = Vec::new();
    let (words, phrases) = mine_requests(&mut analyzer, &own, &known);
    let top_words: Vec<&String> = words.iter().take(MAX_WORDS).collect();
    for word in &top_words {
        edits.push((
            Change::Add(format!("Also for {word}.")),
            format!("`{word}` is in the skill's requests but not its routing text"),
        ));
    }
    if top_words.len() > 1 {
        let listed = list(&top_words[..top_words.len().min(3)]);
        edits.push((
            Change::Add(format!("Also for {listed}.")),
            "the words its requests use most that its routing text lacks".into(),
        ));
    }
    for phrase in phrases.iter().take(MAX_PHRASES) {
        edits.push((
            Change::Add(format!("Use when asked about {phrase}.")),
            format!("\"{phrase}\" recurs in the skill's requests"),
        ));
    }
    for heading in headings(skill, &mut analyzer, &known)
        .into_iter()
        .take(MAX_HEADINGS)
    {
        edits.push((
            Change::Add(format!("Covers {heading}.")),
            format!("the body has a section \"{heading}\""),
        ));
    }
    for sentence in attracting_sentences(&mut analyzer, &description, &taken, &own) {
        edits.push((
            Change::Remove(sentence),
            "this sentence shares words with requests meant for other skills".into(),
        ));
    }

    let baseline = error_codes(skill, listing_cap);
    let mut candidates = Vec::new();
    let mut rejected = 0;
    let mut seen = BTreeSet::new();
    for (change, reason) in edits {
        let after = apply(&description, &change);
        if after.trim().is_empty() || !seen.insert(after.clone()) {
            continue;
        }
        if !keeps_rules(skill, &after, &baseline, listing_cap) {
            rejected += 1;
            continue;
        }
        let mut edited = original.clone();
        edited.description = after.clone();
        ranker.upsert(edited)?;
        let scored = (accuracy(&*ranker, &training), accuracy(&*ranker, &held_out));
        ranker.upsert(original.clone())?;
        candidates.push(Suggestion {
            change,
            reason,
            before: description.clone(),
            after,
            training_delta: scored.0 - training_accuracy,
            held_out_delta: scored.1 - held_out_accuracy,
            agent_held_out_delta: None,
        });
    }
    candidates.sort_by(|a, b| {
        b.held_out_delta
            .total_cmp(&a.held_out_delta)
            .then(b.training_delta.total_cmp(&a.training_delta))
    });
    Ok(Suggestions {
        skill: id.to_owned(),
        training_cases: training.iter().map(|s| s.cases.len()).sum(),
        held_out_cases: held_out.iter().map(|s| s.cases.len()).sum(),
        training_accuracy,
        held_out_accuracy,
        candidates,
        rejected,
        agent: None,
    })
}

/// The training (3 in 5) and held-out parts of the suites, by a fixed hash
/// of each request.
pub fn split(suites: &[Suite]) -> (Vec<Suite>, Vec<Suite>) {
    let part = |training: bool| -> Vec<Suite> {
        suites
            .iter()
            .map(|suite| Suite {
                name: suite.name.clone(),
                cases: suite
                    .cases
                    .iter()
                    .filter(|c| is_training(c) == training)
                    .cloned()
                    .collect(),
            })
            .collect()
    };
    (part(true), part(false))
}

fn is_training(case: &Case) -> bool {
    let hash = case.query.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % 5 < TRAINING_FIFTHS
}

/// Words and adjacent word pairs of the weighted requests that the routing
/// text lacks, most frequent first, as written.
fn mine_requests(
    analyzer: &mut Analyzer,
    requests: &[(&str, usize)],
    known: &BTreeSet<String>,
) -> (Vec<String>, Vec<String>) {
    let mut words: HashMap<String, (usize, String)> = HashMap::new();
    let mut phrases: HashMap<(String, String), (usize, String)> = HashMap::new();
    for (request, weight) in requests {
        let tokens = analyzer.tokens(request);
        let mut counted = BTreeSet::new();
        for token in &tokens {
            if !known.contains(&token.text) && counted.insert(token.text.clone()) {
                let written = request[token.offset_from..token.offset_to].to_lowercase();
                words.entry(token.text.clone()).or_insert((0, written)).0 += weight;
            }
        }
        for pair in tokens.windows(2) {
            let adjacent = pair[1].position == pair[0].position + 1;
            let new = !known.contains(&pair[0].text) || !known.contains(&pair[1].text);
            if adjacent && new {
                let written = request[pair[0].offset_from..pair[1].offset_to].to_lowercase();
                let key = (pair[0].text.clone(), pair[1].text.clone());
                phrases.entry(key).or_insert((0, written)).0 += weight;
            }
        }
    }
    let ranked = |map: Vec<(usize, String)>, min: usize| -> Vec<String> {
        let mut entries: Vec<(usize, String)> =
            map.into_iter().filter(|(count, _)| *count >= min).collect();
        entries.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        entries.into_iter().map(|(_, written)| written).collect()
    };
    // A phrase is worth proposing when more than one request (or one failed
    // request) uses it.
    (
        ranked(words.into_values().collect(), 1),
        ranked(phrases.into_values().collect(), 2),
    )
}

/// The body's section headings (below the title) that name something the
/// routing text does not, lowercased at the start.
fn headings(skill: &Skill, analyzer: &mut Analyzer, known: &BTreeSet<String>) -> Vec<String> {
    skill
        .body()
        .lines()
        .filter_map(|line| {
            let trimmed = line.trim_start();
            let level = trimmed.chars().take_while(|&c| c == '#').count();
            let title = trimmed[level..].trim();
            ((2..=3).contains(&level) && !title.is_empty()).then_some(title)
        })
        .filter(|title| {
            analyzer
                .tokens(title)
                .iter()
                .any(|t| !known.contains(&t.text))
        })
        .map(|title| {
            let mut chars = title.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_lowercase().chain(chars).collect::<String>()
            })
        })
        .collect()
}

/// Sentences of the description that share a word with requests the skill
/// took from others and none with its own requests.
fn attracting_sentences(
    analyzer: &mut Analyzer,
    description: &str,
    taken: &[&str],
    own: &[(&str, usize)],
) -> Vec<String> {
    let sentences = crate::rank::semantic::sentences(description);
    if taken.is_empty() || sentences.len() < 2 {
        return Vec::new();
    }
    let mut terms = |texts: &mut dyn Iterator<Item = &str>| -> BTreeSet<String> {
        texts
            .flat_map(|t| analyzer.tokens(t))
            .map(|t| t.text)
            .collect()
    };
    let taken_terms = terms(&mut taken.iter().copied());
    let own_terms = terms(&mut own.iter().map(|(r, _)| *r));
    sentences
        .into_iter()
        .map(|range| description[range].to_owned())
        .filter(|sentence| {
            let words: BTreeSet<String> = analyzer
                .tokens(sentence)
                .into_iter()
                .map(|t| t.text)
                .collect();
            words.iter().any(|w| taken_terms.contains(w)) && words.is_disjoint(&own_terms)
        })
        .collect()
}

fn list(words: &[&String]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).clone(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(|w| w.as_str()).collect();
            format!("{} and {last}", init.join(", "))
        }
    }
}

/// The description after `change`.
fn apply(description: &str, change: &Change) -> String {
    match change {
        Change::Add(clause) => {
            let base = description.trim_end();
            if base.is_empty() {
                clause.clone()
            } else if base.ends_with(['.', '!', '?']) {
                format!("{base} {clause}")
            } else {
                format!("{base}. {clause}")
            }
        }
        Change::Remove(sentence) => description
            .replacen(sentence.as_str(), "", 1)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The codes of the frontmatter findings (warnings and errors) of `skill`.
fn error_codes(skill: &Skill, listing_cap: usize) -> BTreeSet<String> {
    check_frontmatter(skill, Target::All, listing_cap)
        .into_iter()
        .filter(|d| d.severity >= Severity::Warning)
        .map(|d| d.code)
        .collect()
}

/// Whether `skill` with `description` reports nothing new.
fn keeps_rules(
    skill: &Skill,
    description: &str,
    baseline: &BTreeSet<String>,
    listing_cap: usize,
) -> bool {
    let Ok(text) = set_field(
        skill.text(),
        "description",
        &FieldValue::Text(description.into()),
    ) else {
        return false;
    };
    let edited = skill.with_text(text);
    error_codes(&edited, listing_cap).is_subset(baseline)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::eval::{Identities, resolve_suites};
    use crate::library::Filters;
    use crate::rank::Bm25Ranker;

    fn library() -> (tempfile::TempDir, Library) {
        let tmp = tempfile::tempdir().unwrap();
        let skills = [
            (
                "pdf-forms",
                "Fill and flatten PDF forms.",
                "# PDF forms\n\n## Flattening layers\n\nSteps.\n",
            ),
            ("pdf-extract", "Extract text and tables from PDF files.", ""),
            (
                "spreadsheet",
                "Build spreadsheets with formulas and charts.",
                "",
            ),
        ];
        // Unrelated skills, so that the library's IDFs are those of a real
        // one: in three skills no word is distinctive enough to select.
        let topics = [
            "kubernetes",
            "docker",
            "calendar",
            "weather",
            "music",
            "recipes",
            "travel",
            "fitness",
            "chess",
            "poetry",
            "photos",
            "maps",
            "budget",
            "garden",
            "astronomy",
            "biology",
        ];
        let fillers: Vec<(String, String)> = topics
            .iter()
            .map(|t| (format!("{t}-helper"), format!("Plan and review {t} work.")))
            .collect();
        let skills = skills
            .into_iter()
            .map(|(n, d, b)| (n.to_owned(), d.to_owned(), b))
            .chain(fillers.into_iter().map(|(n, d)| (n, d, "")));
        for (name, description, body) in skills {
            let dir = tmp.path().join(&name);
            std::fs::create_dir_all(&dir).unwrap();
            let text = format!("---\nname: {name}\ndescription: {description}\n---\n{body}");
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        }
        let lib = Library::open(&[PathBuf::from(tmp.path())], &Filters::default()).unwrap();
        (tmp, lib)
    }

    fn suite() -> Suite {
        let mut yaml = String::from("name: s\ncases:\n");
        let objects = [
            "contract",
            "lease",
            "invoice",
            "agreement",
            "permit",
            "waiver",
            "deed",
            "form",
            "letter",
            "policy",
            "claim",
            "offer",
        ];
        let verbs = [
            "add my signature to",
            "put a signature on",
            "place my signature in",
        ];
        for (i, object) in objects.iter().enumerate() {
            let verb = verbs[i % verbs.len()];
            yaml.push_str(&format!(
                "  - query: {verb} the {object} pdf\n    expect: [pdf-forms]\n"
            ));
            yaml.push_str(&format!(
                "  - query: extract the tables of the {object} pdf\n    expect: [pdf-extract]\n"
            ));
        }
        Suite::from_yaml(std::path::Path::new("s.yaml"), &yaml).unwrap()
    }

    #[test]
    fn the_edit_that_raises_the_held_out_score_comes_first() {
        let (_tmp, lib) = library();
        let suites = resolve_suites(&[suite()], &Identities::from_library(&lib)).unwrap();
        let mut ranker = Bm25Ranker::new(RoutingDoc::from_library(&lib)).unwrap();
        let ids = |ranker: &Bm25Ranker| -> Vec<String> {
            let matches = ranker.rank("add my signature to the deed pdf", 3).unwrap();
            matches.into_iter().map(|m| m.id).collect()
        };
        let before = ids(&ranker);
        // BM25's confidence is relative to the best a word can earn in the
        // library; in 19 skills one new word lifts a match to about 0.2.
        let found = suggest(&mut ranker, &lib, &suites, "pdf-forms", 0.15, 1536).unwrap();
        assert!(found.training_cases > 0 && found.held_out_cases > 0);
        let best = &found.candidates[0];
        assert!(best.after.contains("signature"), "{found:#?}");
        assert!(best.held_out_delta > 0.0, "{found:#?}");
        assert_eq!(best.before, "Fill and flatten PDF forms.");
        // The heading is proposed too, and helps nothing.
        let heading = found
            .candidates
            .iter()
            .find(|c| c.change == Change::Add("Covers flattening layers.".into()))
            .expect("heading candidate");
        assert!(heading.held_out_delta <= 0.0);
        // The ranker is left as it was.
        assert_eq!(ids(&ranker), before);
    }

    #[test]
    fn edits_that_break_a_rule_are_never_proposed() {
        let (_tmp, lib) = library();
        let skill = &lib.skills[0];
        let baseline = error_codes(skill, 1536);
        assert!(keeps_rules(
            skill,
            "Fill PDF forms. Also for signature.",
            &baseline,
            1536
        ));
        let long = "word ".repeat(300);
        assert!(
            !keeps_rules(skill, &long, &baseline, 1536),
            "over 1,024 characters"
        );
    }

    #[test]
    fn the_split_is_sixty_forty_and_stable() {
        let (training, held_out) = split(&[suite()]);
        let (t, h) = (training[0].cases.len(), held_out[0].cases.len());
        assert_eq!(t + h, 24);
        assert!((10..=18).contains(&t), "{t} training cases");
        assert_eq!(split(&[suite()]).0[0].cases.len(), t);
    }
}
