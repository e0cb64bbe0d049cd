//! What the integration tests share: the inputs some of them need.
//!
//! A test whose input is absent must not pass as if it had run. Corpus tests
//! are `#[ignore]`d with the reason (so `cargo test` lists them as ignored)
//! and fail when run without their input; `make test` runs them whenever the
//! shared corpus sits beside the checkout.

use std::path::PathBuf;

/// The shared corpus of real skills; fails the test when it is absent.
pub fn corpus() -> PathBuf {
    let dir = std::env::var_os("HONE_CORPUS")
        .map(PathBuf::from)
        .expect("HONE_CORPUS is not set: point it at the shared corpus of real skills");
    assert!(
        dir.is_dir(),
        "HONE_CORPUS={} is not a folder",
        dir.display()
    );
    dir
}
