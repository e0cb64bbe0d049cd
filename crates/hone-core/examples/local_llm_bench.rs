//! What a request costs the local model on the bundled library, with and
//! without the listing's cached keys and values.
//!
//! `cargo run -p hone-core --example local_llm_bench [-- WARM COLD]` scores
//! the first WARM requests of `skills/evals/routing.yaml` (default 20) from
//! the cached listing, and COLD more (default 3) with the cache cleared
//! before each, so every one runs the listing again. A 100-case run is
//! projected from the per-request figures (one listing run plus 100 cached
//! requests, against 100 uncached ones); nothing here is a timed assertion.
//! Uses the installed model, `$HONE_LLM`, or the file given as `HONE_LLM`.

use std::path::Path;
use std::time::Instant;

use hone_core::eval::suite::Suite;
use hone_core::library::{Filters, Library};
use hone_core::llm::{ListedSkill, LocalModel, choice_prompt};
use hone_core::rank::RoutingDoc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let warm: usize = args.next().map_or(Ok(20), |a| a.parse())?;
    let cold: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");

    let started = Instant::now();
    let model = LocalModel::open(None)?;
    let load = started.elapsed().as_secs_f64();
    let library = Library::open(std::slice::from_ref(&root), &Filters::default())?;
    let docs = RoutingDoc::from_library(&library);
    let listed: Vec<ListedSkill<'_>> = docs
        .iter()
        .map(|d| ListedSkill {
            name: &d.id,
            description: &d.description,
        })
        .collect();
    let suite = Suite::load(&root.join("evals/routing.yaml"))?;
    let requests: Vec<&str> = suite.cases.iter().map(|c| c.query.as_str()).collect();
    println!(
        "model {} loaded in {load:.2} s; {} skills, {} requests in the suite",
        model.id(),
        docs.len(),
        requests.len()
    );

    let time =
        |request: &str| -> Result<(f64, hone_core::llm::Scoring), Box<dyn std::error::Error>> {
            let prompt = choice_prompt(&listed, request);
            let started = Instant::now();
            let scoring = model.score(&prompt.prefix, &prompt.middle, &prompt.candidates)?;
            Ok((started.elapsed().as_secs_f64(), scoring))
        };

    // The listing once, then WARM cached requests.
    model.clear_prefix_cache();
    let (first, scoring) = time(requests[0])?;
    println!(
        "listing: {} tokens; first request (listing run, not cached): {first:.2} s, {} tokens evaluated",
        scoring.prefix_tokens, scoring.evaluated_tokens
    );
    let mut warm_times = Vec::new();
    let mut warm_tokens = 0;
    for request in requests.iter().cycle().skip(1).take(warm) {
        let (seconds, scoring) = time(request)?;
        assert!(scoring.prefix_cache_hit);
        warm_tokens += scoring.evaluated_tokens;
        warm_times.push(seconds);
    }
    let mut cold_times = Vec::new();
    for request in requests.iter().cycle().skip(1).take(cold) {
        model.clear_prefix_cache();
        let (seconds, scoring) = time(request)?;
        assert!(!scoring.prefix_cache_hit);
        cold_times.push(seconds);
    }
    let warm_mean = mean(&warm_times);
    let cold_mean = mean(&cold_times);
    println!(
        "cached listing: {} requests, mean {warm_mean:.3} s, median {:.3} s, {:.1} tokens evaluated a request",
        warm_times.len(),
        median(&mut warm_times),
        warm_tokens as f64 / warm.max(1) as f64
    );
    println!(
        "no cache:       {} requests, mean {cold_mean:.3} s, median {:.3} s",
        cold_times.len(),
        median(&mut cold_times)
    );
    let with_cache = first + 99.0 * warm_mean;
    let without = 100.0 * cold_mean;
    println!(
        "100 cases (projected): {with_cache:.0} s with the cache, {without:.0} s without: {:.1}x faster",
        without / with_cache
    );
    Ok(())
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}
