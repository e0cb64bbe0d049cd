//! Corpus-wide checks over the shared collection of real skills, when present.
//! Set `HONE_CORPUS` to its path; without it these tests pass vacuously.

use std::path::PathBuf;

use hone_core::library::{Filters, Library};

fn corpus() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("HONE_CORPUS")?);
    path.is_dir().then_some(path)
}

#[test]
fn every_corpus_skill_loads() {
    let Some(root) = corpus() else {
        eprintln!("HONE_CORPUS not set: skipping the corpus check");
        return;
    };
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
