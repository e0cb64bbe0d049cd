//! The two views measured on libraries of real skills: P@1, MRR and routing
//! accuracy of the listing and retrieval views, per library and ranker, and
//! the time to build each index.
//!
//! Libraries (from `HONE_CORPUS`, used in place):
//! - `sickn33` (555 skills) with the development suite
//!   (`HONE_DEV_SUITE`, default `$HONE_CORPUS/../benchmarks/dev-routing-553.yaml`):
//!   the only library anything was tuned on;
//! - `davila7` (883) with `benches/heldout/davila7-883-blind.yaml`, held out;
//! - `mixed` (alirezarezvani, K-Dense-AI and anthropics as one library, 383)
//!   with `benches/heldout/mixed-383-blind.yaml`, held out.
//!
//! The held-out suites were written from the skills' folder paths, without
//! reading their descriptions (their headers say how). The first run embeds
//! every skill's sections (minutes per library; cached after).
//!
//! `HONE_RETRIEVAL_RANKERS` (default `bm25,hybrid`) and
//! `HONE_RETRIEVAL_LIBRARIES` (default all three) narrow the run; the model
//! is the installed default or `HONE_MODEL`. `HONE_RETRIEVAL_DUMP=FILE`
//! appends, per case, the retrieval view's 50 best candidates with every
//! piece of their evidence (JSON lines), for trying other fusions and
//! selection rules offline (`scripts/retrieval-fusion.py`).
//!
//! Run: `HONE_CORPUS=../shared/corpus cargo bench --profile dev -p hone-core --bench retrieval`

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use hone_core::embed::{Embedder, install};
use hone_core::eval::{self, Identities, RunOptions, Suite};
use hone_core::library::{Filters, Library};
use hone_core::rank::retrieval::RetrievalRanker;
use hone_core::rank::retrieval::doc::RetrievalDoc;
use hone_core::rank::{self, Ranker, RankerKind, RoutingDoc};
use serde_json::json;

struct Bench {
    name: &'static str,
    collections: &'static [&'static str],
    suite: PathBuf,
    held_out: bool,
}

fn main() {
    let Some(corpus) = std::env::var_os("HONE_CORPUS").map(PathBuf::from) else {
        println!("HONE_CORPUS is not set: nothing to measure");
        return;
    };
    let heldout = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/heldout");
    let dev_suite = std::env::var_os("HONE_DEV_SUITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| corpus.join("../benchmarks/dev-routing-553.yaml"));
    let benches = [
        Bench {
            name: "sickn33",
            collections: &["sickn33__antigravity-awesome-skills"],
            suite: dev_suite,
            held_out: false,
        },
        Bench {
            name: "davila7",
            collections: &["davila7__claude-code-templates"],
            suite: heldout.join("davila7-883-blind.yaml"),
            held_out: true,
        },
        Bench {
            name: "mixed",
            collections: &[
                "alirezarezvani__claude-skills",
                "K-Dense-AI__claude-scientific-skills",
                "anthropics__skills",
            ],
            suite: heldout.join("mixed-383-blind.yaml"),
            held_out: true,
        },
    ];
    let wanted = |var: &str, default: &str| -> Vec<String> {
        std::env::var(var)
            .unwrap_or_else(|_| default.into())
            .split(',')
            .map(|s| s.trim().to_owned())
            .collect()
    };
    let libraries = wanted("HONE_RETRIEVAL_LIBRARIES", "sickn33,davila7,mixed");
    let kinds: Vec<RankerKind> = wanted("HONE_RETRIEVAL_RANKERS", "bm25,hybrid")
        .iter()
        .map(|k| k.parse().expect("a ranker name"))
        .collect();
    let mut dump = std::env::var_os("HONE_RETRIEVAL_DUMP").map(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("the dump file opens")
    });
    let embedder = if kinds.iter().any(|k| *k != RankerKind::Bm25) {
        let embedder = Embedder::open_default(None).expect("the embedding model is installed");
        println!("model: {}", embedder.model().id());
        Some(Arc::new(embedder))
    } else {
        None
    };
    let model_name = embedder
        .as_ref()
        .map_or("-".to_owned(), |e| model_label(e.model().dir()));
    for bench in benches
        .iter()
        .filter(|b| libraries.iter().any(|l| l == b.name))
    {
        let roots: Vec<PathBuf> = bench.collections.iter().map(|c| corpus.join(c)).collect();
        if !bench.suite.is_file() || roots.iter().any(|r| !r.is_dir()) {
            println!("{}: suite or library missing, skipped", bench.name);
            continue;
        }
        let library = Library::open(&roots, &Filters::default()).expect("the library opens");
        let suite = Suite::load(&bench.suite).expect("the suite loads");
        let suites = eval::resolve_suites(&[suite], &Identities::from_library(&library))
            .expect("the suite names skills of the library");
        let with_body = library
            .skills
            .iter()
            .filter(|s| s.body().trim().len() > 200)
            .count();
        println!(
            "\n== {} ({} skills, {} with a body over 200 bytes; {}) ==",
            bench.name,
            library.skills.len(),
            with_body,
            if bench.held_out { "held out" } else { "tuning" }
        );
        for &kind in &kinds {
            let started = Instant::now();
            let listing = rank::build(kind, RoutingDoc::from_library(&library), None, &mut |_| {})
                .expect("the listing ranker builds");
            let listing_ms = started.elapsed().as_secs_f64() * 1000.0;
            let started = Instant::now();
            let docs: Vec<RetrievalDoc> = library
                .skills
                .iter()
                .map(RetrievalDoc::from_skill)
                .collect();
            let retrieval = RetrievalRanker::new(
                kind,
                docs,
                embedder.clone().filter(|_| kind != RankerKind::Bm25),
                install::embeddings_cache_dir().as_deref(),
                &mut |p| {
                    if p.done % 512 == 0 || p.done == p.total {
                        eprint!("\r  embedding sections {}/{}", p.done, p.total);
                    }
                },
            )
            .expect("the retrieval ranker builds");
            let retrieval_ms = started.elapsed().as_secs_f64() * 1000.0;
            eprintln!();
            let views: [(&str, &dyn Ranker, f64); 2] = [
                ("listing", listing.as_ref(), listing_ms),
                ("retrieval", &retrieval, retrieval_ms),
            ];
            for (view, ranker, build_ms) in views {
                let options = RunOptions {
                    threshold: ranker.default_threshold(),
                    library: bench.name.into(),
                };
                let report = eval::run(ranker, &suites, &options, &mut |_, _| {});
                let m = &report.metrics.overall;
                let show = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.3}"));
                println!(
                    "{:8} {:9} {:6} P@1 {} MRR {} hit@5 {} accuracy {} FPR {} (threshold {:.2}; build {:.0} ms; p50 {} ms)",
                    kind.as_str(),
                    view,
                    if kind == RankerKind::Bm25 {
                        "-"
                    } else {
                        model_name.as_str()
                    },
                    show(m.p_at_1),
                    show(m.mrr),
                    show(m.hit_at_5),
                    show(m.accuracy),
                    show(m.false_positive_rate),
                    ranker.default_threshold(),
                    build_ms,
                    show(m.latency_ms_p50),
                );
            }
            if let Some(file) = dump.as_mut() {
                dump_cases(file, bench, kind, &model_name, &retrieval, &suites);
            }
        }
    }
}

/// The installed model's short name, from its folder.
fn model_label(dir: &Path) -> String {
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if name.contains("mpnet") {
        "mpnet".into()
    } else if name.contains("MiniLM") {
        "MiniLM".into()
    } else {
        name
    }
}

fn dump_cases(
    file: &mut std::fs::File,
    bench: &Bench,
    kind: RankerKind,
    model: &str,
    ranker: &RetrievalRanker,
    suites: &[Suite],
) {
    for case in suites.iter().flat_map(|s| &s.cases) {
        let scored = ranker.scored(&case.query).expect("the request ranks");
        let candidates: Vec<serde_json::Value> = scored
            .iter()
            .take(50)
            .map(|(slot, f, score)| {
                json!({
                    "id": ranker.slot_id(*slot),
                    "description": f.description,
                    "section": f.section.best,
                    "section2": f.section.second,
                    "body": f.body_evidence,
                    "keyword": f.keyword_confidence,
                    "token": f.token_match,
                    "score": score,
                })
            })
            .collect();
        // What the view selects with: its top match's confidence.
        let top = ranker.rank(&case.query, 1).expect("the request ranks");
        let line = json!({
            "library": bench.name,
            "held_out": bench.held_out,
            "ranker": kind.as_str(),
            "model": model,
            "query": case.query,
            "expect": case.expect,
            "candidates": candidates,
            "confidence": top.first().map(|m| m.confidence),
            "threshold": ranker.default_threshold(),
        });
        writeln!(file, "{line}").expect("the dump is written");
    }
}
