//! The shared corpus's `SKILL.md` files, for the engine's unit tests that hold
//! a fast path to its reference on every real skill. Those tests are
//! `#[ignore]`d without the corpus and name `HONE_CORPUS` when it is unset.

use std::path::PathBuf;

/// Each `SKILL.md` under `$HONE_CORPUS`, with its bytes.
pub fn skill_files() -> impl Iterator<Item = (PathBuf, Vec<u8>)> {
    let dir = std::env::var_os("HONE_CORPUS")
        .expect("HONE_CORPUS is not set: point it at the shared corpus of real skills");
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file() && entry.file_name() == "SKILL.md")
        .map(|entry| {
            let bytes = std::fs::read(entry.path()).expect("a corpus file is readable");
            (entry.into_path(), bytes)
        })
}
