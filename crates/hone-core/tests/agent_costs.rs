//! The cost table of docs/benchmarks/index.md: what a 20- and a 100-request suite costs with
//! the agent ranker (3 runs a request) on the bundled 17-skill library and on
//! 500 real skills from the shared corpus, with a small and two large models,
//! from Hone's token counts and the bundled price table. Nothing is sent.
//! Run: `HONE_CORPUS=/work/shared/corpus cargo test -p hone-core --test
//! agent_costs -- --ignored --nocapture`.

mod common;

use std::path::Path;
use std::time::Duration;

use hone_core::agent::providers::{Anthropic, Secret};
use hone_core::agent::{HttpPolicy, Listing, ListingStyle, PriceTable, Session};
use hone_core::clients::claude_code::ListingSettings;
use hone_core::eval::Suite;
use hone_core::library::{Filters, Library};
use hone_core::skill::Skill;

#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn cost_table_for_the_readme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let bundled = Library::open(std::slice::from_ref(&root), &Filters::default()).unwrap();
    let corpus = Library::open(&[common::corpus()], &Filters::default()).unwrap();
    let mut five_hundred = corpus.clone();
    five_hundred.skills.truncate(500);
    assert_eq!(five_hundred.skills.len(), 500);
    let queries: Vec<String> = Suite::load(&root.join("evals/routing.yaml"))
        .unwrap()
        .cases
        .into_iter()
        .map(|c| c.query)
        .collect();
    let prices = PriceTable::bundled();
    println!(
        "| library | listing | listing tokens | suite | calls | model | estimate | without prompt caching |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (label, library) in [
        ("17 skills (bundled)", &bundled),
        ("500 skills (corpus)", &five_hundred),
    ] {
        let skills: Vec<&Skill> = library.skills.iter().collect();
        for style in [ListingStyle::ClaudeCode, ListingStyle::Agentskills] {
            let listing =
                Listing::new(&skills, style, &ListingSettings::new(), "claude-sonnet-4-5");
            for size in [20, 100] {
                for model in ["claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5"] {
                    let provider = Anthropic::new(
                        model,
                        Secret::new("unused"),
                        Some("http://127.0.0.1:9"),
                        HttpPolicy {
                            timeout: Duration::from_secs(1),
                            ..HttpPolicy::default()
                        },
                        true,
                    );
                    let session = Session {
                        provider: &provider,
                        listing: &listing,
                        cache: None,
                        read_cache: false,
                        runs: 3,
                    };
                    let estimate = session.estimate(&queries[..size], prices.price(model));
                    println!(
                        "| {label} | {style} | {} | {size} requests × 3 runs | {} | {model} | ${:.2} | ${:.2} |",
                        estimate.listing_tokens,
                        estimate.calls,
                        estimate.usd.unwrap(),
                        estimate.usd_without_caching.unwrap()
                    );
                }
            }
        }
    }
}
