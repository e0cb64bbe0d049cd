//! The keyword ranker on real suites: the bundled library's routing suite,
//! its skill-creator trigger evals, and (when `HONE_CORPUS` points at the
//! shared corpus) the development benchmark. Floors, not exact figures, so
//! that tuning can move the numbers without editing tests.

mod common;

use std::path::{Path, PathBuf};

use hone_core::eval::{self, Identities, Report, RunOptions, Suite};
use hone_core::library::{Filters, Library};
use hone_core::rank::{Bm25Ranker, Ranker, RoutingDoc};

fn run(library_dir: &Path, suite_paths: &[PathBuf]) -> Report {
    let library = Library::open(&[library_dir.to_path_buf()], &Filters::default()).unwrap();
    let ranker = Bm25Ranker::new(RoutingDoc::from_library(&library)).unwrap();
    let suites: Vec<Suite> = suite_paths
        .iter()
        .map(|p| Suite::load(p).unwrap())
        .collect();
    let suites = eval::resolve_suites(&suites, &Identities::from_library(&library)).unwrap();
    let options = RunOptions {
        threshold: ranker.default_threshold(),
        library: library_dir.display().to_string(),
    };
    let mut calls = 0;
    let report = eval::run(&ranker, &suites, &options, &mut |done, total| {
        calls += 1;
        assert!(done <= total);
    });
    assert_eq!(calls, report.cases.len());
    report
}

fn skills_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")
}

#[test]
fn bundled_routing_suite_clears_its_floors() {
    let report = run(&skills_dir(), &[skills_dir().join("evals/routing.yaml")]);
    let m = &report.metrics.overall;
    assert_eq!(m.cases, 100);
    assert!(m.p_at_1.unwrap() >= 0.7, "{m:?}");
    assert!(m.mrr.unwrap() >= 0.75, "{m:?}");
    assert!(m.hit_at_5.unwrap() >= 0.9, "{m:?}");
    assert!(m.accuracy.unwrap() >= 0.55, "{m:?}");
    assert!(m.false_positive_rate.unwrap() <= 0.2, "{m:?}");
    assert_eq!(
        report.metrics.by_kind["negative"].false_positive_rate,
        Some(0.0),
        "{m:?}"
    );
    assert!(
        report
            .cases
            .iter()
            .all(|c| c.top.len() <= 3 && c.passed == c.failure.is_none())
    );
}

#[test]
fn trigger_evals_import_and_run() {
    let dir = skills_dir().join("evals/trigger-evals");
    let files = eval::suite::suite_files(&dir).unwrap();
    assert!(!files.is_empty());
    let report = run(&skills_dir(), &files);
    let m = &report.metrics.overall;
    assert!(m.hit_at_3.unwrap() >= 0.6, "{m:?}");
    assert!(report.metrics.by_kind.contains_key("should-trigger"));
}

#[test]
fn suites_naming_missing_skills_are_rejected_with_the_names() {
    let library = Library::open(&[skills_dir()], &Filters::default()).unwrap();
    let suite = Suite::from_yaml(
        Path::new("t.yaml"),
        "cases:\n  - query: q\n    expect: [regex-authoring, no-such-skill]\n    reject: [also-missing]\n",
    )
    .unwrap();
    let err = eval::resolve_suites(&[suite], &Identities::from_library(&library)).unwrap_err();
    let names: Vec<_> = err.unknown.iter().map(|(_, name)| name.as_str()).collect();
    assert_eq!(names, ["also-missing", "no-such-skill"]);
    assert!(err.to_string().contains("`no-such-skill`"));
}

/// The development benchmark, from the shared corpus.
#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn dev_benchmark_beats_the_tf_idf_reference() {
    let corpus = common::corpus();
    let library = corpus.join("sickn33__antigravity-awesome-skills");
    let suite = corpus.join("../benchmarks/dev-routing-553.yaml");
    assert!(library.is_dir(), "{} is missing", library.display());
    assert!(suite.is_file(), "{} is missing", suite.display());
    let report = run(&library, &[suite]);
    let m = &report.metrics.overall;
    assert!(m.p_at_1.unwrap() >= 0.43, "{m:?}");
    assert!(m.mrr.unwrap() >= 0.47, "{m:?}");
    assert!(m.false_positive_rate.unwrap() <= 0.10, "{m:?}");
}
