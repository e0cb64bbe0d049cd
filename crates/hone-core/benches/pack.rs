//! Packing a large real library: the 555 skills of
//! `sickn33__antigravity-awesome-skills` (the target is 2 s), in memory, with
//! everything an export does (discovery, validation, file selection, token
//! costs, hashing, deflate, the zip) except the final file write. Two of its
//! skills share a name with another, which a pack refuses, so the second of
//! each name is left out; errors are allowed, as the corpus has many.
//!
//! Verifying that pack (listing, extraction into a temporary folder,
//! checksums, validation of every skill) is measured too.
//!
//! Reads the corpus from `HONE_CORPUS` (default `../shared/corpus` from the
//! repository root); without it only the small benchmark runs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hone_core::library::{Filters, Library};
use hone_core::pack::{self, ExportOptions};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("HONE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// The library's skill folders, one per name.
fn unique_skill_dirs(library: &Path) -> Vec<PathBuf> {
    let library =
        Library::open(&[library.to_path_buf()], &Filters::default()).expect("corpus library");
    let mut names = HashSet::new();
    library
        .skills
        .iter()
        .filter(|s| names.insert(s.id.clone()))
        .map(|s| s.dir.clone())
        .collect()
}

fn options() -> ExportOptions {
    ExportOptions {
        allow_errors: true,
        epoch: Some(0),
        ..ExportOptions::default()
    }
}

fn bundled(c: &mut Criterion) {
    let skills = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    c.bench_function("pack/bundled-library", |b| {
        b.iter(|| pack::build(std::slice::from_ref(&skills), &options(), &|_| {}).expect("pack"))
    });
}

fn corpus(c: &mut Criterion) {
    let library = corpus_dir().join("sickn33__antigravity-awesome-skills");
    if !library.is_dir() {
        eprintln!(
            "skipping the corpus benchmark: {} not found (set HONE_CORPUS)",
            library.display()
        );
        return;
    }
    let dirs = unique_skill_dirs(&library);
    let built = pack::build(&dirs, &options(), &|_| {}).expect("pack");
    eprintln!(
        "pack/antigravity: {} skills, {} entries, {} bytes",
        built.report.skills.len(),
        built.report.entries,
        built.bytes.len()
    );
    let mut group = c.benchmark_group("pack");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("antigravity-553-skills", |b| {
        b.iter(|| pack::build(&dirs, &options(), &|_| {}).expect("pack"))
    });
    let tmp = tempfile::tempdir().expect("temporary folder");
    let pack_path = tmp.path().join("antigravity.zip");
    std::fs::write(&pack_path, &built.bytes).expect("write the pack");
    group.bench_function("verify-antigravity-553-skills", |b| {
        b.iter(|| pack::verify(&pack_path, &pack::VerifyOptions::default()).expect("verify"))
    });
    group.finish();
}

criterion_group!(benches, bundled, corpus);
criterion_main!(benches);
