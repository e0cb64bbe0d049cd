//! Token counting over the corpus: every `SKILL.md`, exact `o200k` and
//! `cl100k`, on two threads (the target is 1 s for 16.9 MB), plus the cost of
//! the "body over 5,000 tokens" check the rules run on every skill.
//!
//! Reads the corpus from `HONE_CORPUS` (default `../shared/corpus` from the
//! repository root); without it only the small benchmarks run.

use std::path::PathBuf;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hone_core::document::SkillDocument;
use hone_core::tokens::Tokenizer;
use rayon::prelude::*;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("HONE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// The text of every `SKILL.md` under the corpus, in path order.
fn corpus_texts() -> Vec<String> {
    let mut texts: Vec<(PathBuf, String)> = walkdir::WalkDir::new(corpus_dir())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name() == "SKILL.md")
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            Some((
                e.path().to_path_buf(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        })
        .collect();
    texts.sort();
    texts.into_iter().map(|(_, text)| text).collect()
}

fn small_texts(c: &mut Criterion) {
    let description = "Extracts text and tables from PDF files, fills forms and merges documents. \
                       Use when the user mentions PDFs, forms or document extraction.";
    let mut group = c.benchmark_group("description");
    for tokenizer in [Tokenizer::o200k(), Tokenizer::cl100k(), Tokenizer::claude()] {
        group.bench_function(tokenizer.name().to_owned(), |b| {
            b.iter(|| tokenizer.count(description))
        });
    }
    group.finish();
}

fn corpus(c: &mut Criterion) {
    let started = Instant::now();
    let o200k = Tokenizer::o200k();
    o200k.count("warm up");
    let cl100k = Tokenizer::cl100k();
    cl100k.count("warm up");
    eprintln!(
        "loading the cl100k ranks took {:?} (o200k loads none)",
        started.elapsed()
    );

    let texts = corpus_texts();
    if texts.is_empty() {
        eprintln!("no corpus at {}: set HONE_CORPUS", corpus_dir().display());
        return;
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    eprintln!("corpus: {} SKILL.md files, {bytes} bytes", texts.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("thread pool");

    let mut group = c.benchmark_group("corpus");
    group
        .sample_size(10)
        .throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("o200k+cl100k, 2 threads", |b| {
        b.iter(|| {
            pool.install(|| {
                texts
                    .par_iter()
                    .map(|t| o200k.count(t) + cl100k.count(t))
                    .sum::<usize>()
            })
        })
    });
    group.bench_function("o200k, 1 thread", |b| {
        b.iter(|| texts.iter().map(|t| o200k.count(t)).sum::<usize>())
    });
    // What the rules' "body over 5,000 tokens" check costs on every skill.
    let bodies: Vec<SkillDocument> = texts
        .iter()
        .map(|t| SkillDocument::parse(t.clone()))
        .collect();
    group.bench_function("body exceeds 5,000 o200k, 1 thread", |b| {
        b.iter(|| {
            bodies
                .iter()
                .filter(|d| o200k.exceeds(d.body_text(), 5_000))
                .count()
        })
    });
    group.bench_function("body exceeds 5,000 o200k, 2 threads", |b| {
        b.iter(|| {
            let over = |d: &&SkillDocument| o200k.exceeds(d.body_text(), 5_000);
            pool.install(|| bodies.par_iter().filter(over).count())
        })
    });
    group.finish();
}

// The corpus runs first so that it measures loading the ranks.
criterion_group!(benches, corpus, small_texts);
criterion_main!(benches);
