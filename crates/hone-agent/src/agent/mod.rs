//! The agent ranker: ask a language model itself which skill it would load.
//!
//! The offline rankers ([`crate::rank`]) are proxies for the model that
//! reads the listing. This module asks the model: the library's listing is
//! offered as it is in a real client ([`listing`]), the request is the user
//! turn, and what the model calls is its pick. Behind the same [`Ranker`]
//! interface and the same eval reports, a [`Provider`] does the asking:
//!
//! - [`providers::Anthropic`]: the Messages API with tool use and prompt caching;
//! - [`providers::OpenAi`]: chat completions with tools, at any base URL
//!   (OpenAI, Ollama, llama.cpp's server, vLLM);
//! - [`claude_code::ClaudeCode`]: the `claude` CLI headless in a scratch project;
//! - [`codex::Codex`]: the `codex` CLI (`codex exec`) headless in a scratch project.
//!
//! A provider answers one request with an [`Answer`]: a pick, no pick, or a
//! full [`Choice::Ranking`] of every skill by log-likelihood (what a local
//! model scoring each name gives; such a provider says it is
//! [`Provider::deterministic`] and runs once).
//!
//! ## Runs and rates
//!
//! Sampling makes a model's pick vary, so each request is asked `runs` times
//! (3 by default, as skill-creator's `run_eval.py` does). A skill's *trigger
//! rate* is the share of runs that picked it; it is the match's confidence,
//! so the top match is selected when its rate reaches the trigger threshold
//! (0.5 by default). For a ranking, the confidence is the mean softmax
//! probability over the names and, when the model was offered it, the answer
//! that no skill fits: a skill is picked only when it is more likely than
//! that answer.
//!
//! ## Cost, cache and robustness
//!
//! [`Session::estimate`] counts calls and tokens before anything is sent
//! ([`cost`]); [`Session::ask_all`] never starts a call that would take the
//! spend past the budget. Answers are cached on disk ([`cache`]) and reused.
//! Calls run on `jobs` threads, with retries and timeouts ([`HttpPolicy`]);
//! a [`Cancel`] stops the run between calls, keeping every finished answer.
//! A failed call fails its case with the reason and the run goes on.

pub mod cache;
pub mod claude_code;
pub mod codex;
pub mod confirm;
pub mod cost;
mod http;
pub mod listing;
pub mod local;
mod process;
pub mod providers;
#[cfg(test)]
pub(crate) mod stub;

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

pub use cache::AnswerCache;
pub use cost::{CostEstimate, Price, PriceTable};
pub use http::HttpPolicy;
pub use listing::{CodexLayout, Listing, ListingStyle};

use crate::cancel::Cancel;
use crate::clients::claude_code::ListingSettings;
use crate::eval::{CaseReport, Report, Suite, suite_label};
use crate::rank::{
    AgentExplanation, Explanation, Match, RankError, Ranker, RankerKind, RoutingDoc, check_query,
};
use crate::skill::Skill;
use crate::tokens::Tokenizer;

/// The trigger rate at which a skill counts as selected.
pub const DEFAULT_TRIGGER_THRESHOLD: f32 = 0.5;
/// Runs per request for a provider that samples.
pub const DEFAULT_RUNS: usize = 3;
/// Calls in flight at once.
pub const DEFAULT_JOBS: usize = 4;

/// Why a call gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("HTTP {status}: {message}")]
    Status { status: u16, message: String },
    #[error("the call timed out")]
    Timeout,
    #[error("connection failed: {0}")]
    Transport(String),
    #[error("gave up after {attempts} attempts; last: {last}")]
    GaveUp {
        attempts: u32,
        last: Box<AgentError>,
    },
    #[error("malformed answer: {0}")]
    Malformed(String),
    #[error("{0}")]
    Process(String),
    #[error("cancelled")]
    Cancelled,
}

impl AgentError {
    /// Worth another attempt: rate limits, server errors, timeouts and
    /// broken connections (a truncated answer among them).
    pub fn is_retryable(&self) -> bool {
        match self {
            AgentError::Status { status, .. } => {
                matches!(status, 408 | 409 | 429) || *status >= 500
            }
            AgentError::Timeout | AgentError::Transport(_) => true,
            _ => false,
        }
    }
}

/// What the model did with one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Choice {
    /// It called the `Skill` tool with this name (as written).
    Skill { name: String },
    /// It answered without loading a skill; the start of its text.
    NoSkill { text: String },
    /// Every skill scored by the model's log-likelihood of naming it.
    Ranking {
        scores: Vec<ScoredName>,
        /// The log-likelihood of the model answering that no skill fits, when
        /// that was one of the choices: it takes its share of the probability
        /// mass like a skill, and when it is the most likely answer no skill is
        /// picked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        no_skill: Option<f64>,
    },
}

/// One skill's score in a [`Choice::Ranking`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredName {
    pub name: String,
    pub log_likelihood: f64,
}

/// Tokens billed for a call, as the provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Usage {
    /// Input tokens billed at the full price.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_write_tokens: u64,
    pub cache_read_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
    }
}

/// One answer to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub choice: Choice,
    pub usage: Usage,
    /// The cost the provider itself reported (Claude Code does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Attempts the call took (not cached).
    #[serde(skip, default = "one")]
    pub attempts: u32,
}

fn one() -> u32 {
    1
}

/// Asks a model which skill it would load.
///
/// A `local` provider (a GGUF model scoring every skill name by
/// log-likelihood after the listing and the request, with the listing's KV
/// cache kept across calls) fits as is: it builds its prefix cache in
/// [`Provider::prepare`], answers [`Choice::Ranking`], returns `true` from
/// [`Provider::deterministic`] and reports zero usage cost.
pub trait Provider: Send + Sync {
    /// `anthropic`, `openai`, `claude-code`, `codex`, …
    fn name(&self) -> &'static str;
    fn model(&self) -> &str;
    /// Where the model runs (a base URL, an executable): part of the cache
    /// key, since one model name may mean different models at different
    /// endpoints. Never holds a secret.
    fn endpoint(&self) -> String;
    /// Whether every run gives the same answer, so one run is enough.
    fn deterministic(&self) -> bool {
        false
    }
    /// Whether the listing is served from the provider's prompt cache after
    /// the first call.
    fn prompt_caching(&self) -> bool;
    /// What else, besides the listing and the model, decides the answer (a
    /// local model's own prompt wording, say): part of the answer cache's key
    /// when not empty, so a changed prompt is never answered from the cache.
    fn prompt_version(&self) -> &str {
        ""
    }
    /// The tokenizer cost estimates count with.
    fn tokenizer(&self) -> Tokenizer;
    /// What the estimate cannot count for this provider, in words.
    fn estimate_caveat(&self) -> Option<&'static str> {
        None
    }
    /// Work done once per listing before the first call.
    fn prepare(&self, _listing: &Listing) -> Result<(), AgentError> {
        Ok(())
    }
    /// Asks once.
    fn ask(&self, listing: &Listing, request: &str, cancel: &Cancel) -> Result<Answer, AgentError>;
}

/// The matches of one request from its runs' answers, best first: each skill
/// with its mean share of the runs (the trigger rate) as its confidence.
pub fn aggregate(listing: &Listing, answers: &[Answer]) -> Vec<Match> {
    struct Tally {
        id: String,
        unknown_name: Option<String>,
        share: f64,
        picks: usize,
        log_likelihood: Option<f64>,
    }
    let mut tallies: Vec<Tally> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut tally = |name: &str| -> usize {
        let (id, unknown_name) = match listing.resolve(name) {
            Some(id) => (id.to_owned(), None),
            None if listing.is_builtin(name) => {
                (name.trim().trim_start_matches('/').to_owned(), None)
            }
            None => (name.trim().to_owned(), Some(name.to_owned())),
        };
        *index.entry(id.clone()).or_insert_with(|| {
            tallies.push(Tally {
                id,
                unknown_name,
                share: 0.0,
                picks: 0,
                log_likelihood: None,
            });
            tallies.len() - 1
        })
    };
    let runs = answers.len().max(1) as f64;
    // Collect indices first, then update: `tally` borrows `tallies`.
    let mut updates: Vec<(usize, f64, bool, Option<f64>)> = Vec::new();
    for answer in answers {
        match &answer.choice {
            Choice::Skill { name } => updates.push((tally(name), 1.0, true, None)),
            Choice::NoSkill { .. } => {}
            Choice::Ranking { scores, no_skill } => {
                let best = scores
                    .iter()
                    .map(|s| s.log_likelihood)
                    .chain(*no_skill)
                    .fold(f64::NEG_INFINITY, f64::max);
                let total: f64 = scores
                    .iter()
                    .map(|s| s.log_likelihood)
                    .chain(*no_skill)
                    .map(|ll| (ll - best).exp())
                    .sum();
                for score in scores {
                    let probability = (score.log_likelihood - best).exp() / total;
                    let top = score.log_likelihood == best;
                    updates.push((
                        tally(&score.name),
                        probability,
                        top,
                        Some(score.log_likelihood),
                    ));
                }
            }
        }
    }
    for (i, share, top, log_likelihood) in updates {
        let t = &mut tallies[i];
        t.share += share / runs;
        t.picks += usize::from(top);
        if let Some(ll) = log_likelihood {
            t.log_likelihood = Some(t.log_likelihood.unwrap_or(0.0) + ll / runs);
        }
    }
    // Stable: equal rates keep the order of first appearance.
    tallies.sort_by(|a, b| b.share.total_cmp(&a.share));
    tallies
        .into_iter()
        .map(|t| Match {
            key: match listing.dir_of(&t.id) {
                Some(dir) => dir.to_string_lossy().into_owned(),
                // The client's own skill: ranked apart from the library's.
                None if listing.is_builtin(&t.id) => listing
                    .style
                    .client()
                    .map(|client| crate::rank::builtin_key(client, &t.id))
                    .unwrap_or_default(),
                None => String::new(),
            },
            score: t.log_likelihood.unwrap_or(t.share) as f32,
            confidence: t.share as f32,
            explanation: Explanation::Agent(AgentExplanation {
                runs: answers.len(),
                picks: t.picks,
                log_likelihood: t.log_likelihood,
                unknown_name: t.unknown_name,
            }),
            id: t.id,
        })
        .collect()
}

/// A provider, a listing and how answers are reused: everything a run asks with.
pub struct Session<'a> {
    pub provider: &'a dyn Provider,
    pub listing: &'a Listing,
    /// Where answers are kept; `None` keeps nothing.
    pub cache: Option<&'a AnswerCache>,
    /// Whether cached answers are used (they are always written).
    pub read_cache: bool,
    pub runs: usize,
}

/// A spending cap.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub max_usd: f64,
    pub price: Price,
    /// The estimated price of one call.
    pub per_call_usd: f64,
}

/// The answers of a run, by request and run index.
#[derive(Debug, Default)]
pub struct Asked {
    /// `answers[request][run]`: `None` when the call was not made (cancelled
    /// or over budget); an error message when it failed.
    pub answers: Vec<Vec<Option<Result<Answer, String>>>>,
    /// Milliseconds each answer took (0 for a cached one).
    pub latency_ms: Vec<Vec<f64>>,
    pub calls: usize,
    pub failed_calls: usize,
    /// Attempts beyond the first, over all calls.
    pub retries: u32,
    pub from_cache: usize,
    /// Tokens billed by the calls made (cached answers cost nothing).
    pub usage: Usage,
    /// Dollars spent by the calls made; `None` without a price.
    pub spent_usd: Option<f64>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<String>,
}

impl Session<'_> {
    fn key(&self, request: &str, run: usize) -> String {
        AnswerCache::key(self.provider, &self.listing.hash, request, run)
    }

    fn cached(&self, request: &str, run: usize) -> Option<Answer> {
        self.cache
            .filter(|_| self.read_cache)
            .and_then(|cache| cache.get(&self.key(request, run)))
    }

    /// What asking every request `runs` times will cost.
    pub fn estimate(&self, requests: &[String], price: Option<(&str, Price)>) -> CostEstimate {
        let tokenizer = self.provider.tokenizer();
        let listing_tokens = tokenizer.count(&self.listing.prompt_text()) as u64
            + tokenizer.count(&listing::skill_tool_schema(self.listing.style).to_string()) as u64;
        let (mut calls, mut cached, mut request_tokens) = (0, 0, 0);
        for request in requests {
            let tokens = tokenizer.count(request) as u64 + cost::REQUEST_OVERHEAD_TOKENS;
            for run in 0..self.runs {
                if self.cached(request, run).is_some() {
                    cached += 1;
                } else {
                    calls += 1;
                    request_tokens += tokens;
                }
            }
        }
        let mut estimate = CostEstimate::new(
            calls,
            cached,
            tokenizer.label(),
            listing_tokens,
            request_tokens,
            self.provider.prompt_caching(),
            price,
        );
        estimate.caveat = self.provider.estimate_caveat().map(str::to_owned);
        estimate
    }

    /// Asks every request `runs` times, `jobs` calls at a time, reusing
    /// cached answers. The first call is made alone so that the others find
    /// the listing in the provider's prompt cache. `progress(done, total)`
    /// counts answers, cached ones included.
    pub fn ask_all(
        &self,
        requests: &[String],
        jobs: usize,
        budget: Option<Budget>,
        cancel: &Cancel,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Asked {
        let total = requests.len() * self.runs;
        let mut asked = Asked {
            answers: vec![vec![None; self.runs]; requests.len()],
            latency_ms: vec![vec![0.0; self.runs]; requests.len()],
            ..Asked::default()
        };
        let mut tasks = Vec::new();
        for (i, request) in requests.iter().enumerate() {
            for run in 0..self.runs {
                match self.cached(request, run) {
                    Some(answer) => {
                        asked.answers[i][run] = Some(Ok(answer));
                        asked.from_cache += 1;
                    }
                    None => tasks.push((i, run)),
                }
            }
        }
        progress(asked.from_cache, total);
        if let Err(err) = self.provider.prepare(self.listing) {
            let message = err.to_string();
            for &(i, run) in &tasks {
                asked.answers[i][run] = Some(Err(message.clone()));
            }
            asked.failed_calls = tasks.len();
            return asked;
        }
        let state = Mutex::new(RunState {
            asked,
            reserved_usd: 0.0,
            spent_usd: 0.0,
        });
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let step = || -> bool {
            if stop.load(Ordering::Acquire) {
                return false;
            }
            if cancel.is_cancelled() {
                lock(&state)
                    .asked
                    .stopped
                    .get_or_insert_with(|| "cancelled".into());
                return false;
            }
            if let Some(budget) = budget {
                let mut state = lock(&state);
                let spent = state.spent_usd;
                if spent + state.reserved_usd + budget.per_call_usd > budget.max_usd {
                    state.asked.stopped.get_or_insert_with(|| {
                        format!(
                            "stopped before exceeding the cost limit of ${:.2} (spent ${spent:.4})",
                            budget.max_usd
                        )
                    });
                    stop.store(true, Ordering::Release);
                    return false;
                }
                state.reserved_usd += budget.per_call_usd;
            }
            let index = next.fetch_add(1, Ordering::AcqRel);
            let Some(&(i, run)) = tasks.get(index) else {
                if let Some(budget) = budget {
                    lock(&state).reserved_usd -= budget.per_call_usd;
                }
                return false;
            };
            let started = Instant::now();
            let result = self.provider.ask(self.listing, &requests[i], cancel);
            let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
            if let (Ok(answer), Some(cache)) = (&result, self.cache) {
                // A cache that cannot be written only costs a later re-run.
                let _ = cache.put(&self.key(&requests[i], run), answer);
            }
            let mut state = lock(&state);
            if let Some(budget) = budget {
                state.reserved_usd -= budget.per_call_usd;
            }
            let done = {
                let asked = &mut state.asked;
                match result {
                    Err(AgentError::Cancelled) => {
                        asked.stopped.get_or_insert_with(|| "cancelled".into());
                        return false;
                    }
                    Ok(answer) => {
                        asked.calls += 1;
                        asked.retries += answer.attempts.saturating_sub(1);
                        asked.usage.add(&answer.usage);
                        asked.answers[i][run] = Some(Ok(answer));
                    }
                    Err(err) => {
                        asked.calls += 1;
                        asked.failed_calls += 1;
                        if let AgentError::GaveUp { attempts, .. } = &err {
                            asked.retries += attempts - 1;
                        }
                        asked.answers[i][run] = Some(Err(err.to_string()));
                    }
                }
                asked.latency_ms[i][run] = latency_ms;
                asked.from_cache + asked.calls
            };
            if let Some(Some(Ok(answer))) = state.asked.answers[i].get(run) {
                let usd = answer
                    .cost_usd
                    .or_else(|| budget.map(|b| b.price.of(&answer.usage)));
                state.spent_usd += usd.unwrap_or(0.0);
            }
            drop(state);
            progress(done, total);
            true
        };
        // One call first, alone: it writes the provider's prompt cache.
        if !self.provider.prompt_caching() || step() {
            std::thread::scope(|scope| {
                for _ in 0..jobs.max(1) {
                    scope.spawn(|| while step() {});
                }
            });
        }
        let state = state.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut asked = state.asked;
        asked.spent_usd = budget.map(|_| state.spent_usd);
        asked
    }
}

struct RunState {
    asked: Asked,
    reserved_usd: f64,
    spent_usd: f64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// The outcome of one request's runs: its matches, or why it failed.
pub fn outcome(
    listing: &Listing,
    answers: &[Option<Result<Answer, String>>],
) -> Option<Result<Vec<Match>, RankError>> {
    let runs = answers.len();
    let mut ok = Vec::with_capacity(runs);
    for (run, answer) in answers.iter().enumerate() {
        match answer.as_ref()? {
            Ok(answer) => ok.push(answer.clone()),
            Err(reason) => {
                return Some(Err(RankError::Agent(format!(
                    "run {} of {runs}: {reason}",
                    run + 1
                ))));
            }
        }
    }
    Some(Ok(aggregate(listing, &ok)))
}

/// What the agent run did, beside the eval report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AgentSummary {
    pub provider: String,
    pub model: String,
    pub endpoint: String,
    pub listing: ListingStyle,
    pub listing_hash: String,
    pub runs: usize,
    pub trigger_threshold: f32,
    pub jobs: usize,
    /// The estimate made before the run.
    pub estimate: CostEstimate,
    /// Calls made (failed ones included).
    pub calls: usize,
    pub failed_calls: usize,
    pub retries: u32,
    /// Answers taken from the on-disk cache.
    pub answers_from_cache: usize,
    /// Tokens the calls made were billed.
    pub usage: Usage,
    /// Dollars spent, from the usage and the price table.
    pub spent_usd: Option<f64>,
    /// Some cases did not run: cancelled, or stopped at the cost limit.
    pub partial: bool,
    pub stopped: Option<String>,
    pub cases_not_run: usize,
    /// Agreement of the agent's top picks with each offline ranker's.
    pub agreement: Vec<crate::eval::Agreement>,
}

/// An eval run with the agent: the shared report and the agent's account.
#[derive(Debug, Clone, Serialize)]
pub struct AgentEval {
    #[serde(flatten)]
    pub report: Report,
    pub agent: AgentSummary,
}

/// Options of an agent eval.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    pub threshold: f32,
    pub library: String,
    pub jobs: usize,
    pub budget: Option<Budget>,
}

/// Runs resolved suites through the model. Cases whose runs did not all
/// happen (cancelled, or over budget) are left out and the summary says the
/// report is partial.
pub fn evaluate(
    session: &Session,
    suites: &[Suite],
    estimate: CostEstimate,
    options: &EvalOptions,
    cancel: &Cancel,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> AgentEval {
    let requests: Vec<String> = suites
        .iter()
        .flat_map(|s| s.cases.iter().map(|c| c.query.clone()))
        .collect();
    let asked = session.ask_all(&requests, options.jobs, options.budget, cancel, progress);
    let mut cases = Vec::new();
    let mut not_run = 0;
    let mut index = 0;
    for suite in suites {
        for case in &suite.cases {
            let answers = &asked.answers[index];
            let latencies = &asked.latency_ms[index];
            index += 1;
            match outcome(session.listing, answers) {
                Some(ranked) => {
                    let latency = latencies.iter().sum::<f64>() / latencies.len().max(1) as f64;
                    cases.push(CaseReport::new(
                        &suite.name,
                        case,
                        ranked,
                        options.threshold,
                        latency,
                    ));
                }
                None => not_run += 1,
            }
        }
    }
    let provider = session.provider;
    AgentEval {
        report: Report::new(
            suite_label(suites),
            options.library.clone(),
            RankerKind::Agent,
            options.threshold,
            cases,
        ),
        agent: AgentSummary {
            provider: provider.name().to_owned(),
            model: provider.model().to_owned(),
            endpoint: provider.endpoint(),
            listing: session.listing.style,
            listing_hash: session.listing.hash.clone(),
            runs: session.runs,
            trigger_threshold: options.threshold,
            jobs: options.jobs,
            estimate,
            calls: asked.calls,
            failed_calls: asked.failed_calls,
            retries: asked.retries,
            answers_from_cache: asked.from_cache,
            usage: asked.usage,
            spent_usd: asked.spent_usd,
            partial: not_run > 0,
            stopped: asked.stopped,
            cases_not_run: not_run,
            agreement: Vec::new(),
        },
    }
}

/// The agent as a [`Ranker`], for one request at a time (the search panel,
/// `hone search`). Each `rank` asks `runs` times, through the answer cache.
pub struct AgentRanker {
    provider: Box<dyn Provider>,
    skills: Vec<Skill>,
    style: ListingStyle,
    settings: ListingSettings,
    listing: Listing,
    runs: usize,
    cache: Option<AnswerCache>,
    cancel: Cancel,
    last: Mutex<Option<Asked>>,
}

impl AgentRanker {
    /// `runs` defaults to 1 for a deterministic provider, else [`DEFAULT_RUNS`].
    pub fn new(
        provider: Box<dyn Provider>,
        skills: Vec<Skill>,
        style: ListingStyle,
        settings: ListingSettings,
        runs: Option<usize>,
        cache: Option<AnswerCache>,
    ) -> AgentRanker {
        let refs: Vec<&Skill> = skills.iter().collect();
        let listing = Listing::new(&refs, style, &settings, provider.model());
        let runs = runs
            .unwrap_or(if provider.deterministic() {
                1
            } else {
                DEFAULT_RUNS
            })
            .max(1);
        AgentRanker {
            provider,
            skills,
            style,
            settings,
            listing,
            runs,
            cache,
            cancel: Cancel::new(),
            last: Mutex::new(None),
        }
    }

    pub fn listing(&self) -> &Listing {
        &self.listing
    }

    pub fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }

    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Stops calls in progress (between attempts) and refuses new ones.
    pub fn cancel_handle(&self) -> Cancel {
        self.cancel.clone()
    }

    /// Calls, cache hits and usage of the last `rank`.
    pub fn last_asked(&self) -> Option<(usize, usize, Usage)> {
        lock(&self.last)
            .as_ref()
            .map(|a| (a.calls, a.from_cache, a.usage))
    }

    /// Replaces (or adds) a skill, edits unsaved included.
    pub fn upsert_skill(&mut self, skill: Skill) {
        match self.skills.iter_mut().find(|s| s.dir == skill.dir) {
            Some(existing) => *existing = skill,
            None => self.skills.push(skill),
        }
        self.relist();
    }

    fn relist(&mut self) {
        let refs: Vec<&Skill> = self.skills.iter().collect();
        self.listing = Listing::new(&refs, self.style, &self.settings, self.provider.model());
    }
}

impl Ranker for AgentRanker {
    fn kind(&self) -> RankerKind {
        RankerKind::Agent
    }

    fn rank(&self, query: &str, k: usize) -> Result<Vec<Match>, RankError> {
        check_query(query)?;
        if query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let session = Session {
            provider: self.provider.as_ref(),
            listing: &self.listing,
            cache: self.cache.as_ref(),
            read_cache: true,
            runs: self.runs,
        };
        let asked = session.ask_all(
            &[query.to_owned()],
            self.runs,
            None,
            &self.cancel,
            &|_, _| {},
        );
        let result = outcome(&self.listing, &asked.answers[0])
            .unwrap_or_else(|| Err(RankError::Agent("cancelled".into())));
        *lock(&self.last) = Some(asked);
        result.map(|mut matches| {
            matches.truncate(k);
            matches
        })
    }

    /// Updates the routing fields of a skill already in the library (the
    /// listing needs the whole skill: use [`AgentRanker::upsert_skill`] to add one).
    fn upsert(&mut self, doc: RoutingDoc) -> Result<(), RankError> {
        let skill = self
            .skills
            .iter_mut()
            .find(|s| s.dir.to_string_lossy() == doc.key)
            .ok_or_else(|| {
                RankError::Agent(format!(
                    "`{}` is not a skill of this library; add it with upsert_skill",
                    doc.key
                ))
            })?;
        skill.meta.name = Some(doc.name);
        skill.meta.description = Some(doc.description);
        skill.meta.when_to_use = doc.when_to_use;
        skill.meta.triggers = (!doc.triggers.is_empty()).then_some(doc.triggers);
        skill.id = doc.id;
        self.relist();
        Ok(())
    }

    fn remove(&mut self, key: &str) -> Result<bool, RankError> {
        let before = self.skills.len();
        self.skills.retain(|s| s.dir.to_string_lossy() != key);
        let removed = self.skills.len() != before;
        if removed {
            self.relist();
        }
        Ok(removed)
    }

    fn len(&self) -> usize {
        self.skills.len()
    }

    fn default_threshold(&self) -> f32 {
        DEFAULT_TRIGGER_THRESHOLD
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::SkillDocument;

    pub(crate) fn skill(dir: &str, frontmatter: &str) -> Skill {
        let text = format!("---\n{frontmatter}\n---\n# {dir}\n\nBody of {dir}.\n");
        Skill::from_document(std::path::Path::new(dir), SkillDocument::parse(text))
    }

    fn listing() -> Listing {
        let skills = [
            skill("pdf", "name: pdf\ndescription: Reads and fills PDF forms."),
            skill(
                "deploy",
                "name: deploy\ndescription: Deploys the app to production.",
            ),
            skill(
                "secret",
                "name: secret\ndescription: Hidden.\ndisable-model-invocation: true",
            ),
        ];
        let refs: Vec<&Skill> = skills.iter().collect();
        Listing::new(
            &refs,
            ListingStyle::ClaudeCode,
            &ListingSettings::new(),
            "claude-sonnet-4-5",
        )
    }

    fn pick(name: &str) -> Answer {
        Answer {
            choice: Choice::Skill { name: name.into() },
            usage: Usage::default(),
            cost_usd: None,
            attempts: 1,
        }
    }

    #[test]
    fn the_listing_is_claude_codes_without_unlisted_skills() {
        let listing = listing();
        let shown = listing.system.as_deref().unwrap();
        assert!(shown.contains("- pdf: Reads and fills PDF forms."));
        assert!(!shown.contains("secret"));
        assert!(shown.contains("\n- security-review: "), "{shown}");
        assert_eq!(
            listing.tool_description,
            crate::clients::claude_code::skill_tool().description
        );
        assert!(listing.skills.iter().any(|s| s.id == "secret" && !s.listed));
        assert_eq!(listing.resolve("/pdf"), Some("pdf"));
        assert_eq!(listing.resolve("plugin:deploy"), Some("deploy"));
        assert_eq!(listing.resolve("nope"), None);
    }

    #[test]
    fn runs_become_trigger_rates() {
        let listing = listing();
        let none = Answer {
            choice: Choice::NoSkill { text: "hi".into() },
            ..pick("x")
        };
        let matches = aggregate(&listing, &[pick("pdf"), pick("deploy"), pick("pdf"), none]);
        let rates: Vec<(&str, f32)> = matches
            .iter()
            .map(|m| (m.id.as_str(), m.confidence))
            .collect();
        assert_eq!(rates, vec![("pdf", 0.5), ("deploy", 0.25)]);
        // An unknown name is kept as written and says so.
        let matches = aggregate(&listing, &[pick("pdf-tools")]);
        let Explanation::Agent(explanation) = &matches[0].explanation else {
            panic!("agent explanation")
        };
        assert_eq!(explanation.unknown_name.as_deref(), Some("pdf-tools"));
    }

    #[test]
    fn a_ranking_answer_gives_a_full_ranking_by_probability() {
        let listing = listing();
        let ranking = Answer {
            choice: Choice::Ranking {
                scores: vec![
                    ScoredName {
                        name: "deploy".into(),
                        log_likelihood: -3.0,
                    },
                    ScoredName {
                        name: "pdf".into(),
                        log_likelihood: -0.5,
                    },
                ],
                no_skill: None,
            },
            ..pick("x")
        };
        let matches = aggregate(&listing, &[ranking]);
        assert_eq!(matches.len(), 2);
        assert_eq!(matches[0].id, "pdf");
        assert!((matches[0].confidence + matches[1].confidence - 1.0).abs() < 1e-6);
        assert_eq!(matches[0].score, -0.5);
    }

    #[test]
    fn a_likelier_no_skill_answer_picks_nothing_and_takes_its_share() {
        let listing = listing();
        let ranking = |no_skill: f64| Answer {
            choice: Choice::Ranking {
                scores: vec![
                    ScoredName {
                        name: "deploy".into(),
                        log_likelihood: -3.0,
                    },
                    ScoredName {
                        name: "pdf".into(),
                        log_likelihood: -1.0,
                    },
                ],
                no_skill: Some(no_skill),
            },
            ..pick("x")
        };
        let picks = |matches: &[Match]| -> Vec<usize> {
            matches
                .iter()
                .map(|m| match &m.explanation {
                    Explanation::Agent(e) => e.picks,
                    _ => panic!("agent explanation"),
                })
                .collect()
        };
        // "No skill" is likelier: the ranking stays, nothing is picked, and
        // the top skill's share is below one half, so it is not selected.
        let matches = aggregate(&listing, &[ranking(-0.2)]);
        assert_eq!(matches[0].id, "pdf");
        assert_eq!(picks(&matches), vec![0, 0]);
        let pdf = (-1.0f64).exp() / ((-3.0f64).exp() + (-1.0f64).exp() + (-0.2f64).exp());
        assert!((f64::from(matches[0].confidence) - pdf).abs() < 1e-6);
        assert!(matches[0].confidence < 0.5);
        // Less likely than the top skill: the skill is picked as before.
        let matches = aggregate(&listing, &[ranking(-5.0)]);
        assert_eq!(picks(&matches), vec![1, 0]);
        assert!(matches[0].confidence > 0.5);
        assert!(matches[0].confidence + matches[1].confidence < 1.0);
        // An answer cached before the choice existed reads as no offer.
        let old: Answer = serde_json::from_str(
            r#"{"choice":{"kind":"ranking","scores":[{"name":"pdf","log_likelihood":-1.0}]},"usage":{"input_tokens":0,"output_tokens":0,"cache_write_tokens":0,"cache_read_tokens":0}}"#,
        )
        .unwrap();
        assert!(matches!(old.choice, Choice::Ranking { no_skill: None, .. }));
    }

    #[test]
    fn a_failed_run_fails_its_case_and_a_missing_run_leaves_it_out() {
        let listing = listing();
        let failed = outcome(
            &listing,
            &[Some(Ok(pick("pdf"))), Some(Err("HTTP 500".into()))],
        );
        assert!(
            failed
                .unwrap()
                .unwrap_err()
                .to_string()
                .contains("run 2 of 2: HTTP 500")
        );
        assert!(outcome(&listing, &[Some(Ok(pick("pdf"))), None]).is_none());
    }

    #[test]
    fn the_agent_ranker_ranks_through_its_cache_and_follows_edits() {
        let dir = tempfile::tempdir().unwrap();
        let skills = vec![
            skill("pdf", "name: pdf\ndescription: Reads PDF forms."),
            skill("deploy", "name: deploy\ndescription: Deploys an app."),
        ];
        let mut ranker = AgentRanker::new(
            Box::new(super::stub::WordOverlap::sampled()),
            skills,
            ListingStyle::ClaudeCode,
            ListingSettings::new(),
            None,
            Some(AnswerCache::new(dir.path())),
        );
        assert_eq!(
            (ranker.kind(), ranker.runs(), ranker.len()),
            (RankerKind::Agent, 3, 2)
        );
        let matches = ranker.rank("fill the pdf", 5).unwrap();
        assert_eq!(
            (matches[0].id.as_str(), matches[0].confidence),
            ("pdf", 1.0)
        );
        assert_eq!(ranker.last_asked().unwrap().0, 3);
        ranker.rank("fill the pdf", 5).unwrap();
        assert_eq!(
            ranker.last_asked().unwrap().0,
            0,
            "every run from the cache"
        );
        assert!(ranker.rank("hello", 5).unwrap().is_empty());

        // An unsaved edit that hides the skill changes the listing and the answer.
        let hash = ranker.listing().hash.clone();
        let mut hidden = skill("pdf", "name: pdf\ndescription: Reads PDF forms.");
        hidden.meta.disable_model_invocation = Some(true);
        ranker.upsert_skill(hidden);
        assert_ne!(ranker.listing().hash, hash);
        assert!(ranker.rank("fill the pdf", 5).unwrap().is_empty());
        assert!(ranker.remove("deploy").unwrap());
        assert_eq!(ranker.len(), 1);
    }
}
