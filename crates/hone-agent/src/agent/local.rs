//! The `local` provider: a GGUF language model run in-process
//! ([`crate::llm::LocalModel`]) asked which skill it would load, without
//! parsing any text. Every listed skill is scored by the model's
//! log-likelihood of naming it after the listing and the request, so a base
//! model gives a full ranking and the same answer every time (one run is
//! enough). The listing is the text the agent would see (Claude Code's
//! `Skill` tool description, or the agentskills system prompt); its keys and
//! values are computed once and reused by every request, which then costs
//! only its own tokens and the names'.
//!
//! "No skill" is one more answer in the same constrained choice: the prompt
//! says the assistant answers `none` when no skill fits, and ` none` is
//! scored beside the names. Its probability is what the model gives to that
//! answer, with no threshold tuned on any suite; when it is the most likely
//! answer, no skill is picked (FPR on negatives can fall below 1). A library
//! with a skill named `none` is not offered the answer (the two could not be
//! told apart), and ranks as a full choice among its skills.

use std::sync::Arc;

use super::listing::Listing;
use super::{AgentError, Answer, Choice, Provider, ScoredName, Usage};
use crate::cancel::Cancel;
use crate::llm::{LocalModel, prompt};
use crate::tokens::Tokenizer;

/// The sentence after the listing that tells a base model what follows.
const CHOOSE: &str = "For each request below, the assistant loads the one skill from this list that fits it best, \
or answers none when no skill fits.";
/// The answer that no skill fits.
const NO_SKILL: &str = "none";
/// Names the prompt above; changing it must not reuse cached answers.
const PROMPT_VERSION: &str = "constrained choice with a none answer";

pub struct Local {
    model: Arc<LocalModel>,
}

impl Local {
    pub fn new(model: Arc<LocalModel>) -> Local {
        Local { model }
    }

    /// The text every request shares: what the agent is shown of the library.
    fn prefix(listing: &Listing) -> String {
        let mut text = String::new();
        if let Some(system) = &listing.system {
            text.push_str(system);
            text.push_str("\n\n");
        }
        text.push_str(&listing.tool_description);
        text.push_str("\n\n");
        text.push_str(CHOOSE);
        text.push_str("\n\n");
        text
    }
}

impl Provider for Local {
    fn name(&self) -> &'static str {
        "local"
    }

    fn model(&self) -> &str {
        self.model.id()
    }

    fn endpoint(&self) -> String {
        format!("in-process:{}", self.model.path().display())
    }

    fn deterministic(&self) -> bool {
        true
    }

    /// The listing's keys and values are kept after the first request.
    fn prompt_caching(&self) -> bool {
        true
    }

    fn prompt_version(&self) -> &str {
        PROMPT_VERSION
    }

    fn tokenizer(&self) -> Tokenizer {
        Tokenizer::o200k()
    }

    fn estimate_caveat(&self) -> Option<&'static str> {
        Some(
            "runs on this machine: nothing is sent and nothing is spent; token counts are o200k's, not the model's",
        )
    }

    fn ask(&self, listing: &Listing, request: &str, cancel: &Cancel) -> Result<Answer, AgentError> {
        if cancel.is_cancelled() {
            return Err(AgentError::Cancelled);
        }
        let names: Vec<&str> = listing
            .skills
            .iter()
            .filter(|s| s.listed)
            .map(|s| s.id.as_str())
            .collect();
        let offer_no_skill = !names.contains(&NO_SKILL);
        let candidates: Vec<String> = names
            .iter()
            .chain(offer_no_skill.then_some(&NO_SKILL))
            .map(|name| prompt::candidate_continuation(name))
            .collect();
        let scoring = self
            .model
            .score(
                &Self::prefix(listing),
                &prompt::request_middle(request),
                &candidates,
            )
            .map_err(|e| AgentError::Process(e.to_string()))?;
        let scores = names
            .iter()
            .zip(&scoring.scores)
            .map(|(name, score)| ScoredName {
                name: (*name).to_owned(),
                log_likelihood: score.log_likelihood,
            })
            .collect();
        let no_skill = offer_no_skill.then(|| scoring.scores[names.len()].log_likelihood);
        Ok(Answer {
            choice: Choice::Ranking { scores, no_skill },
            usage: Usage {
                input_tokens: scoring.evaluated_tokens as u64,
                cache_read_tokens: if scoring.prefix_cache_hit {
                    scoring.prefix_tokens as u64
                } else {
                    0
                },
                ..Usage::default()
            },
            cost_usd: Some(0.0),
            attempts: 1,
        })
    }
}
