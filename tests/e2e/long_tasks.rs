//! Issue 45: a long operation the window starts can be stopped. The first
//! hybrid ranking of a library embeds every skill (a minute on a large one);
//! Cancel stops it between slices, the panel says how far it came, and the
//! next ranking goes on from what was cached. Where the model is missing,
//! the window installs it, step by step, and Cancel installs nothing.

use std::time::Duration;

use crate::harness::Harness;

#[test]
fn the_first_embedding_can_be_cancelled() {
    let model = hone_core::embed::resolve_model_dir(None);
    assert!(
        model.installed,
        "no embedding model: run `hone model install` (`make test` does)"
    );
    // The installed model, and a scratch cache for what this run embeds,
    // so the user's embedding cache gains nothing from a test.
    let cache = tempfile::tempdir().unwrap();
    let library = tempfile::tempdir().unwrap();
    // New texts each run (the nonce), so nothing comes from a cache.
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
    let vars = [
        ("XDG_CACHE_HOME", cache.path()),
        ("HONE_MODEL", model.dir.as_path()),
    ];
    let Some(harness) = Harness::start_with_vars(Some(library.path()), &vars) else {
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

#[test]
fn installing_the_model_shows_its_steps_and_can_be_cancelled() {
    // A cache with no model in it: the hybrid ranker needs one.
    let cache = tempfile::tempdir().unwrap();
    let Some(harness) = Harness::start_with_vars(None, &[("XDG_CACHE_HOME", cache.path())]) else {
        return;
    };
    harness.block_on(async {
        let app = harness.launch().await;
        app.show_tab("query").await;
        app.select("[data-testid=ranker]", "hybrid").await;
        app.wait_for_text("[data-testid=ranker-note]", "needs the embedding model")
            .await;
        app.click("[data-testid=model-install-button]").await;
        app.wait_for_text_within(
            "[data-testid=model-install-step]",
            "with pip",
            Duration::from_secs(60),
        )
        .await;
        app.click("[data-testid=model-install-cancel]").await;
        app.wait_for_text_within(
            "[data-testid=model-install-outcome]",
            "nothing was installed",
            Duration::from_secs(60),
        )
        .await;
        app.close().await;
    });
    let models = cache.path().join("hone/models");
    let installed: Vec<_> = std::fs::read_dir(&models)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name())
                .filter(|name| !name.to_string_lossy().starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    assert!(installed.is_empty(), "nothing is installed: {installed:?}");
}
