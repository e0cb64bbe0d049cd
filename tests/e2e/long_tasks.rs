//! Issue 45: a long operation the window starts can be stopped. The first
//! hybrid ranking of a library embeds every skill (a minute on a large one);
//! Cancel stops it between slices, the panel says how far it came, and the
//! next ranking goes on from what was cached.

use std::time::Duration;

use crate::harness::{Harness, Painting};

#[test]
fn the_first_embedding_can_be_cancelled() {
    if !hone_core::embed::resolve_model_dir(None).installed {
        panic!("no embedding model: run `hone model install` (`make test` does)");
    }
    let library = tempfile::tempdir().unwrap();
    // New texts each run (the nonce), so nothing comes from the user's cache.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    for i in 0..1500 {
        let dir = library.path().join(format!("task-{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: task-{i}\ndescription: Converts report {i} of batch {nonce} into a summary table. Use when asked about report {i}.\n---\nBody {i}.\n"
            ),
        )
        .unwrap();
    }
    let Some(harness) = Harness::start_with(Some(library.path()), Painting::Composited) else {
        return;
    };
    harness.block_on(async {
        let app = harness.launch().await;
        app.show_tab("query").await;
        app.clear_and_type("[data-testid=query-input]", "summarise report 7")
            .await;
        app.select("[data-testid=ranker]", "hybrid").await;
        app.wait_for_text_within(
            "[data-testid=rank-progress]",
            "Embedding the library",
            Duration::from_secs(120),
        )
        .await;
        app.click("[data-testid=embedding-cancel]").await;
        app.wait_for_text_within(
            ".error",
            "embedding stopped after",
            Duration::from_secs(120),
        )
        .await;
        app.close().await;
    });
}
