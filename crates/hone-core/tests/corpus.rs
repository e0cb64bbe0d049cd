//! Corpus-wide checks over the shared collection of real skills
//! (`HONE_CORPUS`; ignored without it, see `common`).

mod common;

use hone_core::library::{Filters, Library};

#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn every_corpus_skill_loads() {
    let root = common::corpus();
    let library = Library::open(&[root], &Filters::default()).expect("corpus opens");
    assert_eq!(
        library.skills.len(),
        1821,
        "problems: {:?}",
        library.problems
    );
    let broken: Vec<_> = library
        .skills
        .iter()
        .filter_map(|s| match &s.yaml {
            Some(Err(e)) => Some(format!("{}: {e}", s.path.display())),
            _ => None,
        })
        .collect();
    eprintln!(
        "{} of 1821 corpus skills have YAML errors:\n{}",
        broken.len(),
        broken.join("\n")
    );
    // PyYAML, the loader most agents use, accepts all but a handful.
    assert!(broken.len() < 20, "{} YAML errors", broken.len());
}
