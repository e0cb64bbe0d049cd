//! Suggestions confirmed by the agent.
//!
//! A suggestion's predicted delta comes from an offline ranker, a proxy for
//! the model that reads the listing. Where an agent ranker is configured,
//! the best few candidates are checked with it: the held-out cases are asked
//! of the model with the library's listing as it is, then with each edit
//! applied to the listing, and the difference in routing accuracy is the
//! agent's delta, shown beside the offline one. Only the held-out part is
//! asked, the same cases the offline delta was measured on, so the two
//! deltas answer the same question.
//!
//! Asking costs money with a hosted model, so the whole confirmation is
//! estimated before anything is sent ([`estimate`]), one budget caps every
//! listing's run together, and answers go through the agent's cache: the
//! unedited listing's answers are reused by the next confirmation, and an
//! edit's answers by a re-run.
//!
//! It sits with the agents, above the eval engine it reads ([`crate::eval`]):
//! the account it leaves on the suggestions, [`AgentConfirmation`], is
//! eval's (`eval::suggest`), so the suggestions need not import the agent.

use crate::agent::{
    self, AnswerCache, Budget, CostEstimate, EvalOptions, Listing, ListingStyle, Price, Provider,
    Session,
};
use crate::cancel::Cancel;
use crate::clients::claude_code::ListingSettings;
use crate::edit::{FieldValue, set_field};
use crate::eval::Suite;
use crate::eval::suggest::{self, AgentConfirmation, Suggestions};
use crate::library::Library;
use crate::skill::Skill;

/// Candidates confirmed when none is asked for: the agent's runs cost, and
/// an author applies one of the first few.
pub const DEFAULT_CONFIRMED: usize = 3;

/// How the agent is asked.
pub struct ConfirmOptions<'a> {
    pub provider: &'a dyn Provider,
    pub style: ListingStyle,
    pub settings: &'a ListingSettings,
    pub cache: Option<&'a AnswerCache>,
    pub read_cache: bool,
    pub runs: usize,
    /// The trigger threshold a pick is selected at.
    pub threshold: f32,
    pub jobs: usize,
    /// Candidates confirmed, the first of the list.
    pub top: usize,
}

/// The listings asked: the library as it is, then with each of the first
/// `options.top` candidates applied to the skill's description.
fn listings(library: &Library, found: &Suggestions, options: &ConfirmOptions) -> Vec<Listing> {
    let original: Vec<&Skill> = library.skills.iter().collect();
    let mut listings = vec![Listing::new(
        &original,
        options.style,
        options.settings,
        options.provider.model(),
    )];
    for candidate in found.candidates.iter().take(options.top) {
        let edited: Vec<Skill> = library
            .skills
            .iter()
            .map(|skill| {
                if skill.id != found.skill {
                    return skill.clone();
                }
                // The edit was validated when it was proposed; one that no
                // longer applies leaves the skill unchanged.
                let value = FieldValue::Text(candidate.after.clone());
                match set_field(skill.text(), "description", &value) {
                    Ok(text) => skill.with_text(text),
                    Err(_) => skill.clone(),
                }
            })
            .collect();
        let refs: Vec<&Skill> = edited.iter().collect();
        listings.push(Listing::new(
            &refs,
            options.style,
            options.settings,
            options.provider.model(),
        ));
    }
    listings
}

fn held_out_requests(suites: &[Suite]) -> Vec<String> {
    let (_, held_out) = suggest::split(suites);
    held_out
        .iter()
        .flat_map(|s| s.cases.iter().map(|c| c.query.clone()))
        .collect()
}

fn session<'a>(options: &'a ConfirmOptions, listing: &'a Listing) -> Session<'a> {
    Session {
        provider: options.provider,
        listing,
        cache: options.cache,
        read_cache: options.read_cache,
        runs: options.runs,
    }
}

/// What confirming `found` will cost: every listing's held-out run, cached
/// answers excluded.
pub fn estimate(
    library: &Library,
    suites: &[Suite],
    found: &Suggestions,
    options: &ConfirmOptions,
    price: Option<(&str, Price)>,
) -> CostEstimate {
    let requests = held_out_requests(suites);
    let estimates: Vec<CostEstimate> = listings(library, found, options)
        .iter()
        .map(|listing| session(options, listing).estimate(&requests, price))
        .collect();
    let sum = |value: fn(&CostEstimate) -> Option<f64>| -> Option<f64> {
        estimates.iter().map(value).sum()
    };
    let mut total = CostEstimate::new(
        estimates.iter().map(|e| e.calls).sum(),
        estimates.iter().map(|e| e.cached_answers).sum(),
        options.provider.tokenizer().label(),
        estimates
            .iter()
            .map(|e| e.listing_tokens)
            .max()
            .unwrap_or(0),
        estimates.iter().map(|e| e.request_tokens).sum(),
        options.provider.prompt_caching(),
        price,
    );
    // Each listing is cached by the provider on its own: the total is the
    // sum of the runs, not one run over all the calls.
    total.prompt_caching = estimates.iter().any(|e| e.prompt_caching);
    total.usd = sum(|e| e.usd);
    total.usd_without_caching = sum(|e| e.usd_without_caching);
    total.caveat = estimates.first().and_then(|e| e.caveat.clone());
    total
}

/// Asks the agent about the first candidates of `found` on the held-out
/// cases of `suites` (the resolved suites `found` was measured on), filling
/// each one's [`Suggestion::agent_held_out_delta`](suggest::Suggestion) and
/// `found.agent`. `budget` caps the whole confirmation; a run stopped by it
/// or by `cancel` leaves the remaining candidates without an agent delta.
pub fn confirm(
    library: &Library,
    suites: &[Suite],
    found: &mut Suggestions,
    options: &ConfirmOptions,
    budget: Option<Budget>,
    cancel: &Cancel,
    progress: &(dyn Fn(usize, usize) + Sync),
) {
    let (_, held_out) = suggest::split(suites);
    let listings = listings(library, found, options);
    let total = listings.len();
    let mut account = AgentConfirmation {
        provider: options.provider.name().to_owned(),
        model: options.provider.model().to_owned(),
        runs: options.runs,
        held_out_accuracy: None,
        confirmed: 0,
        calls: 0,
        answers_from_cache: 0,
        spent_usd: budget.map(|_| 0.0),
        stopped: None,
    };
    let mut baseline = None;
    for (index, listing) in listings.iter().enumerate() {
        let spent = account.spent_usd.unwrap_or(0.0);
        let eval_options = EvalOptions {
            threshold: options.threshold,
            library: String::new(),
            jobs: options.jobs,
            budget: budget.map(|b| Budget {
                max_usd: b.max_usd - spent,
                ..b
            }),
        };
        let session = session(options, listing);
        let estimate = CostEstimate::new(0, 0, String::new(), 0, 0, false, None);
        let run = agent::evaluate(
            &session,
            &held_out,
            estimate,
            &eval_options,
            cancel,
            &|_, _| {},
        );
        progress(index + 1, total);
        account.calls += run.agent.calls;
        account.answers_from_cache += run.agent.answers_from_cache;
        if let (Some(total), Some(more)) = (account.spent_usd.as_mut(), run.agent.spent_usd) {
            *total += more;
        }
        if run.agent.partial {
            account.stopped = run
                .agent
                .stopped
                .or_else(|| Some("some calls failed".into()));
            break;
        }
        let accuracy = run.report.metrics.overall.accuracy;
        match index {
            0 => {
                baseline = accuracy;
                account.held_out_accuracy = accuracy;
            }
            _ => {
                let candidate = &mut found.candidates[index - 1];
                candidate.agent_held_out_delta = accuracy.zip(baseline).map(|(a, b)| a - b);
                account.confirmed += 1;
            }
        }
    }
    found.agent = Some(account);
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::agent::stub::WordOverlap;
    use crate::eval::suggest::{Change, Suggestion};
    use crate::eval::{Identities, resolve_suites};
    use crate::library::Filters;

    fn library(dir: &Path) -> Library {
        for (name, description) in [
            ("pdf-forms", "Fill PDF forms."),
            ("pdf-extract", "Extract tables from PDF files."),
        ] {
            let skill = dir.join(name);
            std::fs::create_dir_all(&skill).unwrap();
            let text = format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n");
            std::fs::write(skill.join("SKILL.md"), text).unwrap();
        }
        Library::open(&[PathBuf::from(dir)], &Filters::default()).unwrap()
    }

    fn suites(library: &Library) -> Vec<Suite> {
        let mut yaml = String::from("name: s\ncases:\n");
        for object in ["contract", "lease", "invoice", "deed", "permit", "waiver"] {
            yaml.push_str(&format!(
                "  - query: signature on the {object}\n    expect: [pdf-forms]\n"
            ));
        }
        let suite = Suite::from_yaml(Path::new("s.yaml"), &yaml).unwrap();
        resolve_suites(&[suite], &Identities::from_library(library)).unwrap()
    }

    fn suggestion(after: &str) -> Suggestion {
        Suggestion {
            change: Change::Add(after.into()),
            reason: String::new(),
            before: "Fill PDF forms.".into(),
            after: after.into(),
            training_delta: 0.0,
            held_out_delta: 0.5,
            agent_held_out_delta: None,
        }
    }

    fn found(candidates: Vec<Suggestion>) -> Suggestions {
        Suggestions {
            skill: "pdf-forms".into(),
            training_cases: 0,
            held_out_cases: 0,
            training_accuracy: 0.0,
            held_out_accuracy: 0.0,
            candidates,
            rejected: 0,
            agent: None,
        }
    }

    fn options<'a>(provider: &'a WordOverlap, settings: &'a ListingSettings) -> ConfirmOptions<'a> {
        ConfirmOptions {
            provider,
            style: ListingStyle::ClaudeCode,
            settings,
            cache: None,
            read_cache: false,
            runs: 1,
            threshold: 0.5,
            jobs: 1,
            top: 2,
        }
    }

    #[test]
    fn the_agent_delta_of_each_confirmed_candidate_is_measured_on_the_held_out_cases() {
        let dir = tempfile::tempdir().unwrap();
        let library = library(dir.path());
        let suites = suites(&library);
        let held_out = suggest::split(&suites).1[0].cases.len();
        assert!(held_out > 0);
        let provider = WordOverlap::deterministic();
        let settings = ListingSettings::new();
        let options = options(&provider, &settings);
        let mut found = found(vec![
            suggestion("Fill PDF forms. Adds a signature on any document."),
            suggestion("Fill PDF forms. Also for scans."),
            suggestion("Not confirmed: beyond the top two."),
        ]);
        let estimate = estimate(&library, &suites, &found, &options, None);
        assert_eq!(estimate.calls, 3 * held_out, "the original and two edits");

        confirm(
            &library,
            &suites,
            &mut found,
            &options,
            None,
            &Cancel::new(),
            &|_, _| {},
        );
        let account = found.agent.as_ref().unwrap();
        assert_eq!(
            account.held_out_accuracy,
            Some(0.0),
            "no listed word matches"
        );
        assert_eq!((account.confirmed, account.calls), (2, 3 * held_out));
        assert_eq!(found.candidates[0].agent_held_out_delta, Some(1.0));
        assert_eq!(found.candidates[1].agent_held_out_delta, Some(0.0));
        assert_eq!(found.candidates[2].agent_held_out_delta, None);
        assert_eq!(provider.calls(), 3 * held_out);
    }

    #[test]
    fn a_cancelled_confirmation_leaves_the_candidates_without_an_agent_delta() {
        let dir = tempfile::tempdir().unwrap();
        let library = library(dir.path());
        let suites = suites(&library);
        let provider = WordOverlap::deterministic();
        let settings = ListingSettings::new();
        let mut found = found(vec![suggestion("Fill PDF forms. Signature on it.")]);
        let cancel = Cancel::new();
        cancel.cancel();
        confirm(
            &library,
            &suites,
            &mut found,
            &options(&provider, &settings),
            None,
            &cancel,
            &|_, _| {},
        );
        let account = found.agent.unwrap();
        assert_eq!(account.stopped.as_deref(), Some("cancelled"));
        assert_eq!(account.confirmed, 0);
        assert_eq!(found.candidates[0].agent_held_out_delta, None);
    }
}
