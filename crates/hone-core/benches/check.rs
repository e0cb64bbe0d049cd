//! Validation with every rule (`--target all`): the bundled library, and the
//! 1,821-skill corpus as `hone check` runs it (loading and checking
//! overlapped) and split into its two phases, loading (discovery, reading,
//! parsing) and checking. The target for `hone check` on the corpus is 0.1 s
//! wall for the whole process on a 2-core machine; `hyperfine` measures that
//! (see docs/benchmarks/index.md), these benches show where the time goes.
//!
//! Reads the corpus from `HONE_CORPUS` (default `../shared/corpus` from the
//! repository root); without it only the bundled library is measured.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hone_core::folder::ResourceDetail;
use hone_core::library::{Filters, Library};
use hone_core::rules::cache::CheckCache;
use hone_core::rules::{Target, check_library, check_library_with, open_and_check};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("HONE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// Opens a library as `hone check` does, listing resources without reading them.
fn open(root: PathBuf) -> Library {
    Library::open_with(&[root], &Filters::default(), ResourceDetail::Paths).expect("library")
}

fn bundled(c: &mut Criterion) {
    let skills = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    c.bench_function("check/bundled-library", |b| {
        b.iter(|| check_library(&open(skills.clone()), Target::All))
    });
}

fn corpus(c: &mut Criterion) {
    let root = corpus_dir();
    if !root.is_dir() {
        eprintln!("corpus not found at {}; set HONE_CORPUS", root.display());
        return;
    }
    let mut group = c.benchmark_group("check/corpus");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    // What `hone check` runs: loading and per-skill checks overlap.
    group.bench_function("open-and-check", |b| {
        b.iter(|| open_and_check(std::slice::from_ref(&root), Target::All, None))
    });
    group.bench_function("load", |b| b.iter(|| open(root.clone())));
    let library = open(root.clone());
    group.bench_function("rules", |b| b.iter(|| check_library(&library, Target::All)));
    // What a second `hone check` does: token-limit answers and collisions
    // come from the cache.
    let cache = CheckCache::in_memory();
    check_library_with(&library, Target::All, Some(&cache));
    group.bench_function("rules-memoised", |b| {
        b.iter(|| check_library_with(&library, Target::All, Some(&cache)))
    });
    group.finish();
}

criterion_group!(benches, bundled, corpus);
criterion_main!(benches);
