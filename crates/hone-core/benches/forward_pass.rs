//! The encoder's forward pass over one request, the stage that dominates a
//! long request's ranking (issue 17, item 6): a reduced long request is at
//! most 128 tokens, and embedding it is most of the request's time.
//!
//! Texts are cut to 126 content tokens (128 with the special tokens), the
//! size a reduced long request has. Wall time percentiles and the process's
//! CPU time per pass are printed: CPU time still says how much work a pass
//! took when the machine is busy. Set `RAYON_NUM_THREADS=1` to measure one
//! core's work alone.
//!
//! A request takes the 16-bit integer pass where the processor has AVX-512
//! VNNI (`embed::int16`); `HONE_FLOAT_REQUESTS=1` measures the float pass
//! that skills take. `HONE_SAVE_VECTORS=FILE` writes the request vectors; a later run with
//! `HONE_COMPARE_VECTORS=FILE` prints the lowest cosine similarity between its
//! vectors and those, so that a change to the pass is checked against the
//! vectors it replaces.
//!
//! Run: `cargo bench --profile dev -p hone-core --bench forward_pass`.

use hone_testkit::measure::process_cpu_seconds;
use std::time::Instant;

use hone_core::embed::{Embedder, resolve_model_dir};

const TOKENS: usize = 126;
const TEXTS: usize = 40;
const ROUNDS: usize = 5;

const SENTENCES: &[&str] = &[
    "I need to set up a continuous integration pipeline that runs the unit tests on every pull request.",
    "The database migrations keep failing on the staging server because of a foreign key constraint.",
    "Please review this React component for accessibility problems and suggest fixes for screen readers.",
    "We want to extract tables from scanned PDF invoices and load them into a spreadsheet every night.",
    "Write a Terraform module that provisions a private bucket with versioning and lifecycle rules.",
    "Our API returns slow responses under load, so profile the hot endpoints and find the bottleneck.",
    "Draft release notes from the merged pull requests since the last tag, grouped by area.",
    "The team is distributed across three time zones, so anything asynchronous is easier for us.",
    "Budget is tight this quarter, so I would prefer free or already-installed tools.",
    "Translate the onboarding guide into Spanish and keep the markdown structure intact.",
    "Set up structured logging with request identifiers so that we can trace a failure across services.",
    "Generate a threat model for the new payment flow and list the mitigations we are missing.",
];

fn main() {
    let location = resolve_model_dir(None);
    if !location.installed {
        eprintln!(
            "forward_pass needs the model ({}): measuring nothing",
            location.dir.display()
        );
        return;
    }
    let embedder = Embedder::open_default(None).expect("model loads");
    let model = embedder.model();
    let texts: Vec<String> = (0..TEXTS)
        .map(|i| {
            let joined = (0..SENTENCES.len())
                .map(|j| SENTENCES[(i * 5 + j) % SENTENCES.len()])
                .collect::<Vec<_>>()
                .join(" ");
            let tokens = model.tokens(&joined).expect("tokenises");
            let content: Vec<_> = tokens.iter().filter(|(_, r)| !r.is_empty()).collect();
            let end = content.get(TOKENS - 1).map_or(joined.len(), |(_, r)| r.end);
            joined[..end].to_string()
        })
        .collect();

    let vectors: Vec<Vec<f32>> = texts
        .iter()
        .map(|t| model.embed_query(t).expect("embeds").vector)
        .collect();
    let mut latencies = Vec::new();
    let cpu_before = process_cpu_seconds();
    for _ in 0..ROUNDS {
        for text in &texts {
            let started = Instant::now();
            model.embed_query(text).expect("embeds");
            latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let cpu_ms = process_cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| (after - before) * 1000.0 / latencies.len() as f64);
    latencies.sort_by(f64::total_cmp);
    let at = |p: f64| latencies[((latencies.len() - 1) as f64 * p).round() as usize];
    println!(
        "{} ({TOKENS}-token requests): p50 {:.1} ms, p99 {:.1} ms, mean {:.1} ms ({} passes, CPU {} ms each)",
        model.id(),
        at(0.5),
        at(0.99),
        latencies.iter().sum::<f64>() / latencies.len() as f64,
        latencies.len(),
        cpu_ms.map_or("unknown".into(), |ms| format!("{ms:.1}")),
    );

    if let Some(path) = std::env::var_os("HONE_SAVE_VECTORS") {
        let flat: Vec<String> = vectors.iter().flatten().map(f32::to_string).collect();
        std::fs::write(&path, flat.join("\n")).expect("vectors saved");
    }
    if let Some(path) = std::env::var_os("HONE_COMPARE_VECTORS") {
        let saved: Vec<f32> = std::fs::read_to_string(&path)
            .expect("saved vectors read")
            .lines()
            .map(|l| l.parse().expect("a number"))
            .collect();
        let lowest = vectors
            .iter()
            .zip(saved.chunks(model.dim()))
            .map(|(now, then)| now.iter().zip(then).map(|(a, b)| a * b).sum::<f32>())
            .fold(f32::INFINITY, f32::min);
        println!("lowest cosine against the saved vectors: {lowest:.6}");
    }
}
