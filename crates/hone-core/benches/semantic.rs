//! Semantic ranking on the installed model (all-MiniLM-L6-v2), against the
//! targets of a 2-core machine:
//!
//! - one request embedded and ranked against 5,000 cached skills: p99 ≤ 25 ms
//!   (criterion gives the mean; the p99 of 500 requests is printed after it);
//! - re-opening a cached 5,000-skill library (model load, cache read, ranker
//!   build): ≤ 1 s;
//! - first embedding of 1,000 skills: ≤ 30 s (timed once and printed, since
//!   criterion would need minutes of samples).
//!
//! The 5,000 routing documents are the corpus's skills, cycled with a copy
//! number so every text is distinct. Reads the corpus from `HONE_CORPUS`
//! (default `../shared/corpus` from the repository root) and the model as
//! `hone search` does (`HONE_MODEL`, else the user's cache); without either
//! it prints why and measures nothing. Embeddings are cached under
//! `target/hone-bench-cache`, so only the first run embeds the 5,000 texts.

use hone_testkit::measure::process_cpu_seconds;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hone_core::embed::{Embedder, EmbeddingCache, EmbeddingModel, resolve_model_dir};
use hone_core::library::{Filters, Library};
use hone_core::rank::semantic::SemanticRanker;
use hone_core::rank::{Ranker, RoutingDoc};

const REQUESTS: &[&str] = &[
    "extract the tables from this PDF invoice into a spreadsheet",
    "write a commit message for my staged changes",
    "help me set up an A/B test on the pricing page",
    "our docker build is slow, can you make the image smaller?",
    "review this pull request for security problems",
    "draw a bar chart of monthly revenue from sales.csv",
    "low-priv shell on a windows box, what should I enumerate to escalate?",
    "plan six onboarding emails for new trial users",
    "remind me how castling works in chess",
    "migrate our AngularJS app to modern Angular step by step",
];

fn corpus_dir() -> PathBuf {
    match std::env::var_os("HONE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/hone-bench-cache")
}

/// `count` distinct routing documents made from the corpus's skills.
fn documents(count: usize) -> Option<Vec<RoutingDoc>> {
    let root = corpus_dir();
    if !root.is_dir() {
        eprintln!("corpus not found at {}; set HONE_CORPUS", root.display());
        return None;
    }
    let library = Library::open(&[root], &Filters::default()).expect("corpus opens");
    let base = RoutingDoc::from_library(&library);
    let docs = (0..count)
        .map(|i| {
            let mut doc = base[i % base.len()].clone();
            let copy = i / base.len();
            if copy > 0 {
                doc.key = format!("{}#{copy}", doc.key);
                doc.description = format!("{} (copy {copy})", doc.description);
            }
            doc
        })
        .collect();
    Some(docs)
}

fn model_dir() -> Option<PathBuf> {
    let location = resolve_model_dir(None);
    if !location.installed {
        eprintln!(
            "no embedding model at {}; run `hone model install`",
            location.dir.display()
        );
        return None;
    }
    Some(location.dir)
}

fn open_embedder(model_dir: &std::path::Path) -> Arc<Embedder> {
    Arc::new(Embedder::open(model_dir, Some(&cache_dir())).expect("model loads"))
}

fn semantic(c: &mut Criterion) {
    let (Some(model_dir), Some(docs)) = (model_dir(), documents(5_000)) else {
        return;
    };

    let started = Instant::now();
    let mut embedded = 0;
    let ranker = SemanticRanker::new(open_embedder(&model_dir), docs.clone(), &mut |p| {
        embedded = p.total
    })
    .expect("ranker builds");
    eprintln!(
        "5,000 skills ready in {:.1?} ({embedded} embedded, the rest cached)",
        started.elapsed()
    );

    let mut group = c.benchmark_group("semantic");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(15));
    group.bench_function("reopen-cached-5000", |b| {
        b.iter(|| {
            SemanticRanker::new(open_embedder(&model_dir), docs.clone(), &mut |_| {})
                .expect("ranker builds")
        })
    });
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(10));
    let model = ranker.embedder().model();
    let mut next = 0;
    group.bench_function("embed-request", |b| {
        b.iter(|| {
            next = (next + 1) % REQUESTS.len();
            model.embed_query(REQUESTS[next]).expect("embeds")
        })
    });
    group.bench_function("query-5000", |b| {
        b.iter(|| {
            next = (next + 1) % REQUESTS.len();
            ranker.rank(REQUESTS[next], 10).expect("ranks")
        })
    });
    group.finish();

    let mut latencies: Vec<Duration> = (0..500)
        .map(|i| {
            let started = Instant::now();
            ranker
                .rank(REQUESTS[i % REQUESTS.len()], 10)
                .expect("ranks");
            started.elapsed()
        })
        .collect();
    latencies.sort();
    eprintln!(
        "semantic/query-5000: p50 {:.2?}, p99 {:.2?} over 500 requests (target p99 ≤ 25 ms)",
        latencies[249], latencies[494]
    );

    let model = EmbeddingModel::load(&model_dir).expect("model loads");
    let cache = EmbeddingCache::in_memory(model.id(), model.dim());
    let fresh = Arc::new(Embedder::with_cache(model, cache));
    let started = Instant::now();
    let cpu_before = process_cpu_seconds();
    SemanticRanker::new(fresh, docs[..1_000].to_vec(), &mut |_| {}).expect("ranker builds");
    let cpu = process_cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    eprintln!(
        "semantic/first-embedding-1000: {:.1?} (target ≤ 30 s); CPU time {}",
        started.elapsed(),
        cpu.map_or("unknown".into(), |s| format!("{s:.1} s"))
    );
}

criterion_group!(benches, semantic);
criterion_main!(benches);
