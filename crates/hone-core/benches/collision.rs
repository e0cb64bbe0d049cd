//! The routing-collision analysis (`HS502`) on a synthetic library of 5,000
//! skills (see `hone_testkit::synth`). Targets: the whole library from cold
//! (analysis of every routing text and every pair) in 2 s; one edited skill
//! (re-analysed, its pairs recomputed) in 50 ms.
//!
//! When the corpus is present (`HONE_CORPUS`, default `../shared/corpus`
//! from the repository root), its real skills are measured too: the cost
//! HS502 adds to `hone check`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use hone_core::folder::ResourceDetail;
use hone_core::library::{Filters, Library};
use hone_core::rank::RoutingDoc;
use hone_core::rank::collision::CollisionIndex;
use hone_testkit::synth;

const SKILLS: usize = 5_000;

fn corpus_docs() -> Option<Vec<RoutingDoc>> {
    let root = match std::env::var_os("HONE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    if !root.is_dir() {
        eprintln!("corpus not found at {}; set HONE_CORPUS", root.display());
        return None;
    }
    let library = Library::open_with(&[root], &Filters::default(), ResourceDetail::Paths).ok()?;
    Some(RoutingDoc::from_library(&library))
}

fn collision_benches(c: &mut Criterion) {
    let docs = synth::library(SKILLS, 42);
    println!(
        "{} colliding pairs among {SKILLS} synthetic skills",
        CollisionIndex::new(&docs).collisions(None).len()
    );
    let mut group = c.benchmark_group("collision");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("cold_5000", |b| {
        b.iter(|| black_box(CollisionIndex::new(&docs).collisions(None)))
    });
    let mut index = CollisionIndex::new(&docs);
    let mut next = 0;
    group.bench_function("edit_one_5000", |b| {
        b.iter(|| {
            // An edit that changes the text: the description of another skill.
            next = (next + 1) % docs.len();
            let mut edited = docs[next].clone();
            edited.description = docs[(next * 7 + 3) % docs.len()].description.clone();
            index.upsert(&edited);
            black_box(index.collisions_of(&edited.key, None))
        })
    });
    if let Some(corpus) = corpus_docs() {
        println!(
            "{} colliding pairs among the corpus's {} skills",
            CollisionIndex::new(&corpus).collisions(None).len(),
            corpus.len()
        );
        group.bench_function("cold_corpus", |b| {
            b.iter(|| black_box(CollisionIndex::new(&corpus).collisions(None)))
        });
    }
    group.finish();
}

criterion_group!(benches, collision_benches);
criterion::criterion_main!(benches);
