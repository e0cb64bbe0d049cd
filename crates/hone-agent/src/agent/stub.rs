//! The one stand-in provider the engine's tests ask: it reads the listing
//! as a model does, so an edit to a description changes its answer, and it
//! counts its calls, so tests can tell a cached answer from a new one.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{AgentError, Answer, Choice, Listing, ListingStyle, Provider, Usage};
use crate::cancel::Cancel;
use crate::tokens::Tokenizer;

/// Picks the listed skill whose description shares the most words with the
/// request (case-insensitive; on a tie, the first name), no skill when none
/// shares a word. Unlisted skills are not in the listing, so never picked.
pub(crate) struct WordOverlap {
    calls: AtomicUsize,
    deterministic: bool,
}

impl WordOverlap {
    /// A provider that says its answer never varies (asked once per request).
    pub(crate) fn deterministic() -> WordOverlap {
        WordOverlap {
            calls: AtomicUsize::new(0),
            deterministic: true,
        }
    }

    /// A provider that says it samples (asked the default number of runs).
    pub(crate) fn sampled() -> WordOverlap {
        WordOverlap {
            deterministic: false,
            ..WordOverlap::deterministic()
        }
    }

    pub(crate) fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

impl Provider for WordOverlap {
    fn name(&self) -> &'static str {
        "word-overlap"
    }
    fn model(&self) -> &str {
        "stub"
    }
    fn endpoint(&self) -> String {
        "in-process".into()
    }
    fn deterministic(&self) -> bool {
        self.deterministic
    }
    fn prompt_caching(&self) -> bool {
        false
    }
    fn tokenizer(&self) -> Tokenizer {
        Tokenizer::o200k()
    }
    fn ask(&self, listing: &Listing, request: &str, _: &Cancel) -> Result<Answer, AgentError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let asked = words(request);
        // The library's entries only: the client's own skills would compete
        // for every request the tests make.
        let shown = match listing.style {
            ListingStyle::ClaudeCode | ListingStyle::Codex => {
                listing.system.as_deref().unwrap_or_default()
            }
            ListingStyle::Agentskills => &listing.tool_description,
        };
        let best = shown
            .lines()
            .filter_map(|line| {
                let (name, description) = line.strip_prefix("- ")?.split_once(": ")?;
                if listing.is_builtin(name) {
                    return None;
                }
                let listed = words(description);
                let shared = asked.iter().filter(|w| listed.contains(w)).count();
                (shared > 0).then_some((shared, name.to_owned()))
            })
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        Ok(Answer {
            choice: match best {
                Some((_, name)) => Choice::Skill { name },
                None => Choice::NoSkill {
                    text: String::new(),
                },
            },
            usage: Usage::default(),
            cost_usd: None,
            attempts: 1,
        })
    }
}
