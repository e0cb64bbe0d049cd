//! The `local` agent provider (Gemma 3 270M, Q4_K_M, in-process) on the
//! bundled library and its routing suite (issue 16): the cost of one request
//! with and without the listing's keys and values cached, and a real run of
//! suite cases each way, from which a 100-case run is projected.
//!
//! - *uncached*: the prefix cache is cleared before each request, so the
//!   listing is run again every time (what every request would cost without
//!   the cache);
//! - *cached*: the listing was run once before; each request runs only its
//!   own tokens and the candidates' trie.
//!
//! A 100-case run costs 100 uncached requests without the cache, and one
//! uncached request plus 99 cached ones with it. The cached cases run through
//! the real eval pipeline (`agent::evaluate`, one job), so the run also gives
//! the suite's metrics; the same answers are then replayed without the
//! model's "no skill" answer, which shows what that answer changes (FPR on
//! the negative cases above all).
//!
//! `HONE_LOCAL_CASES` (default 100, the whole suite) sets how many cases run
//! cached, spread evenly over the suite (its kinds come in blocks, negatives
//! last); `HONE_LOCAL_UNCACHED` (default 3, at least 1: the last one leaves
//! the listing cached) how many requests run uncached.
//! Run it with the machine as quiet as it can be, and say how quiet it was:
//! `cargo bench --profile dev -p hone-core --bench local_llm`.
//! Without the model (`hone model install --llm`) it prints why and measures
//! nothing.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use std::sync::Mutex;

use hone_core::agent::listing::Listing;
use hone_core::agent::local::Local;
use hone_core::agent::{
    AgentError, Answer, Choice, EvalOptions, ListingStyle, Provider, Session, evaluate,
};
use hone_core::cancel::Cancel;
use hone_core::clients::claude_code::ListingSettings;
use hone_core::eval::MetricValues;
use hone_core::eval::suite::Suite;
use hone_core::library::{Filters, Library};
use hone_core::llm::{LocalModel, resolve_model_file};
use hone_core::tokens::Tokenizer;

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn summary(label: &str, millis: &[f64]) -> f64 {
    let mut sorted = millis.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: {} requests, mean {mean:.0} ms, p50 {:.0} ms, min {:.0} ms, max {:.0} ms",
        sorted.len(),
        at(0.5),
        sorted[0],
        sorted[sorted.len() - 1]
    );
    mean
}

/// The local provider, keeping every answer for the replay.
struct Recording {
    inner: Local,
    answers: Mutex<Vec<(String, Answer)>>,
}

/// Answers from a recording, the "no skill" score dropped: the ranking as
/// it was before that answer was offered.
struct WithoutNoSkill {
    answers: Vec<(String, Answer)>,
}

impl Provider for Recording {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn model(&self) -> &str {
        self.inner.model()
    }
    fn endpoint(&self) -> String {
        self.inner.endpoint()
    }
    fn deterministic(&self) -> bool {
        true
    }
    fn prompt_caching(&self) -> bool {
        true
    }
    fn tokenizer(&self) -> Tokenizer {
        self.inner.tokenizer()
    }
    fn ask(&self, listing: &Listing, request: &str, cancel: &Cancel) -> Result<Answer, AgentError> {
        let answer = self.inner.ask(listing, request, cancel)?;
        self.answers
            .lock()
            .unwrap()
            .push((request.to_owned(), answer.clone()));
        Ok(answer)
    }
}

impl Provider for WithoutNoSkill {
    fn name(&self) -> &'static str {
        "replay"
    }
    fn model(&self) -> &str {
        "replay"
    }
    fn endpoint(&self) -> String {
        "replay".into()
    }
    fn deterministic(&self) -> bool {
        true
    }
    fn prompt_caching(&self) -> bool {
        true
    }
    fn tokenizer(&self) -> Tokenizer {
        Tokenizer::o200k()
    }
    fn ask(&self, _: &Listing, request: &str, _: &Cancel) -> Result<Answer, AgentError> {
        let (_, answer) = self
            .answers
            .iter()
            .find(|(asked, _)| asked == request)
            .expect("recorded");
        let mut answer = answer.clone();
        if let Choice::Ranking { no_skill, .. } = &mut answer.choice {
            *no_skill = None;
        }
        Ok(answer)
    }
}

fn metrics_line(label: &str, m: &MetricValues) {
    let show = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
    println!(
        "{label}: P@1 {}, MRR {}, accuracy {}, FPR {}",
        show(m.p_at_1),
        show(m.mrr),
        show(m.accuracy),
        show(m.false_positive_rate)
    );
}

fn main() {
    if !resolve_model_file(None).installed {
        eprintln!("no local model: run `hone model install --llm`; nothing measured");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let started = Instant::now();
    let model = Arc::new(LocalModel::open(None).expect("the installed model loads"));
    println!(
        "model {} loaded in {:.2} s",
        model.id(),
        started.elapsed().as_secs_f64()
    );
    let library = Library::open(std::slice::from_ref(&root), &Filters::default()).unwrap();
    let skills: Vec<_> = library.skills.iter().collect();
    let listing = Listing::new(
        &skills,
        ListingStyle::ClaudeCode,
        &ListingSettings::new(),
        "local",
    );
    let suite = Suite::load(&root.join("evals/routing.yaml")).expect("the bundled suite loads");
    let provider = Recording {
        inner: Local::new(model.clone()),
        answers: Mutex::new(Vec::new()),
    };
    let cancel = Cancel::new();
    let session = |provider: &'static dyn Provider| Session {
        provider,
        listing: &listing,
        cache: None,
        read_cache: false,
        runs: 1,
    };
    let provider: &'static Recording = Box::leak(Box::new(provider));

    let uncached_count = env_count("HONE_LOCAL_UNCACHED", 3).max(1);
    let mut uncached = Vec::new();
    let mut listing_tokens = 0;
    for case in suite.cases.iter().take(uncached_count) {
        model.clear_prefix_cache();
        let started = Instant::now();
        let answer = provider
            .ask(&listing, &case.query, &cancel)
            .expect("answered");
        uncached.push(started.elapsed().as_secs_f64() * 1e3);
        assert_eq!(answer.usage.cache_read_tokens, 0);
        listing_tokens = answer.usage.input_tokens;
    }
    println!(
        "{} skills, listing + request ≈ {listing_tokens} tokens run uncached",
        skills.len()
    );
    let uncached_mean = summary("uncached (listing run every time)", &uncached);

    let cases = env_count("HONE_LOCAL_CASES", 100).clamp(1, suite.cases.len());
    let suite = Suite {
        name: suite.name.clone(),
        cases: (0..cases)
            .map(|i| suite.cases[i * suite.cases.len() / cases].clone())
            .collect(),
    };
    let requests: Vec<String> = suite.cases.iter().map(|c| c.query.clone()).collect();
    let options = EvalOptions {
        threshold: 0.5,
        library: "skills".into(),
        jobs: 1,
        budget: None,
    };
    provider.answers.lock().unwrap().clear();
    let run_started = Instant::now();
    let with = evaluate(
        &session(provider),
        std::slice::from_ref(&suite),
        session(provider).estimate(&requests, None),
        &options,
        &cancel,
        &|_, _| {},
    );
    let run_seconds = run_started.elapsed().as_secs_f64();
    let answers = provider.answers.lock().unwrap().clone();
    let cached: Vec<f64> = with.report.cases.iter().map(|c| c.latency_ms).collect();
    assert!(
        answers.iter().all(|(_, a)| a.usage.cache_read_tokens > 0),
        "every request read the listing from the cache"
    );
    let evaluated: u64 = answers.iter().map(|(_, a)| a.usage.input_tokens).sum();
    println!(
        "cached run of {cases} cases through agent::evaluate: {run_seconds:.1} s, {:.0} tokens run per request",
        evaluated as f64 / cases as f64
    );
    let cached_mean = summary("cached (listing from the cache)", &cached);
    let without = 100.0 * uncached_mean / 1e3;
    let with_cache = (uncached_mean + 99.0 * cached_mean) / 1e3;
    println!(
        "100 cases projected: {without:.0} s without the cache, {with_cache:.0} s with it ({:.1}× faster)",
        without / with_cache
    );

    let replay: &'static WithoutNoSkill = Box::leak(Box::new(WithoutNoSkill { answers }));
    let before = evaluate(
        &session(replay),
        std::slice::from_ref(&suite),
        session(replay).estimate(&requests, None),
        &options,
        &cancel,
        &|_, _| {},
    );
    metrics_line("with the no-skill answer", &with.report.metrics.overall);
    metrics_line("the same scores without it", &before.report.metrics.overall);
    for kind in ["negative", "near-miss"] {
        if let (Some(a), Some(b)) = (
            with.report.metrics.by_kind.get(kind),
            before.report.metrics.by_kind.get(kind),
        ) {
            metrics_line(&format!("  {kind}, with"), a);
            metrics_line(&format!("  {kind}, without"), b);
        }
    }
}
