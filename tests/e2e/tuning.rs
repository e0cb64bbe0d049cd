//! The tuning story, as an author lives it in the window: rank a request in
//! the test-query panel, run the library's suite and read the same numbers
//! `hone eval` prints, edit a description (unsaved) so that a failing case
//! passes and watch the metric move against a named run pinned as the
//! baseline (and against the saved files) on the cards and the chart, add a
//! case from beside the request with a completed skill name, export a pack
//! that `hone pack --verify` accepts, and import it into an empty folder.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use fantoccini::key::Key;

use crate::harness::{App, Harness};

/// A skill whose description does not yet mention what the e2e suite asks.
const SKILL: &str = "---\nname: e2e-dates\ndescription: Formats calendar dates for reports. Use when a date appears in a report.\n---\n\n# Dates\n\nWrite dates as YYYY-MM-DD.\n";

/// One case passes from the start; the second needs the description edit.
const SUITE: &str = "# Cases of the end-to-end test.\nname: e2e\ncases:\n  - query: \"format the calendar dates in my report\"\n    expect: [e2e-dates]\n  - query: \"zorblat the quibbles in this ledger\"\n    expect: [e2e-dates]\n";

#[test]
fn the_tuning_story() {
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    harness.block_on(story(&harness));
}

async fn story(harness: &Harness) {
    let library = harness.library().to_path_buf();
    std::fs::create_dir_all(library.join("e2e-dates")).unwrap();
    std::fs::write(library.join("e2e-dates/SKILL.md"), SKILL).unwrap();
    std::fs::write(library.join("evals/e2e.yaml"), SUITE).unwrap();

    let app = harness.launch().await;
    app.wait_for("[data-skill=e2e-dates]").await;
    // The first skill is open once the editor shows it.
    app.wait_for(".cm-line").await;

    // Keyword ranking, so the numbers do not depend on the embedding model.
    app.show_tab("query").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.clear_and_type(
        "[data-testid=query-input]",
        "write a commit message for my staged changes",
    )
    .await;
    app.wait_for("[data-testid=result]:first-of-type[data-id=git-commit-messages]")
        .await;
    app.wait_for("[data-testid=result] mark").await;
    app.screenshot("query-panel").await;

    // The bundled suite: the cards show what `hone eval` computes.
    let routing = library.join("evals/routing.yaml");
    app.show_tab("evals").await;
    app.select("[data-testid=suite]", &routing.display().to_string())
        .await;
    let started = Instant::now();
    app.click("[data-testid=run-eval]").await;
    app.wait_for("[data-testid=metrics]").await;
    println!(
        "e2e: run of the bundled suite (100 cases): {} ms",
        started.elapsed().as_millis()
    );
    let cli = hone_eval(&library, &routing);
    for metric in [
        "p_at_1",
        "p_at_3",
        "recall_at_3",
        "mrr",
        "false_positive_rate",
    ] {
        let expected = cli["metrics"][metric].as_f64().unwrap();
        let shown: f64 = metric_card(&app, metric).await.parse().unwrap();
        assert!(
            (shown - expected).abs() <= 0.0005 + 1e-9,
            "{metric}: the window shows {shown}, `hone eval` {expected}"
        );
    }
    app.screenshot("eval-run").await;

    // The e2e suite fails one case; an unsaved edit of the description fixes it.
    let suite = library.join("evals/e2e.yaml");
    app.select("[data-testid=suite]", &suite.display().to_string())
        .await;
    app.click("[data-testid=run-eval]").await;
    app.wait_for_text("[data-metric=p_at_1] [data-testid=metric-value]", "0.500")
        .await;
    // The failing case says why in its row.
    app.wait_for("[data-testid=case-row] [data-testid=case-failure]")
        .await;
    // Kept under a name with the library, it becomes the pinned baseline.
    app.clear_and_type("[data-testid=run-name]", "before edit")
        .await;
    app.click("[data-testid=keep-run]").await;
    app.wait_for_value("[data-testid=baseline]", |v| v == "named:before edit")
        .await;
    let kept: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(library.join("evals/runs/before edit.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(kept["name"], "before edit");
    assert_eq!(kept["report"]["metrics"]["p_at_1"], 0.5);
    app.click("[data-skill=e2e-dates]").await;
    app.wait_for_text("[data-testid=editor]", "Formats calendar dates")
        .await;
    app.click_line_end("Formats calendar dates").await;
    app.type_keys(" Also zorblats quibbles in ledgers.").await;
    app.wait_for("[data-testid=dirty]").await;
    app.click("[data-testid=run-eval]").await;
    app.wait_for_text("[data-metric=p_at_1] [data-testid=metric-value]", "1.000")
        .await;
    // Against the pinned run: +0.500, and the chart marks it.
    app.wait_for_text("[data-metric=p_at_1] [data-testid=metric-delta]", "+0.500")
        .await;
    app.wait_for("[data-testid=eval-chart] [data-testid=chart-baseline-run]")
        .await;
    app.wait_for("[data-testid=eval-chart] [data-testid=chart-baseline-level]")
        .await;
    app.wait_for("[data-testid=p3-ceiling]").await;
    let points = app
        .script(
            "return document.querySelectorAll('[data-testid=eval-chart] [data-series=p_at_1] [data-testid=chart-point]').length",
            vec![],
        )
        .await;
    // The named run, then this session's runs of the suite (before and after the edit).
    assert_eq!(points, 3, "one P@1 point per run on the chart");
    assert!(
        !std::fs::read_to_string(library.join("e2e-dates/SKILL.md"))
            .unwrap()
            .contains("zorblat"),
        "the run used the unsaved text; nothing was saved"
    );
    app.screenshot("eval-improved").await;
    // "What did my edit change": the count filters to the changed case, marked ↑.
    app.click("[data-testid=improved-count]").await;
    app.wait_for_count("[data-testid=case-row]", 1).await;
    app.wait_for("[data-testid=case-row][data-change=improved]")
        .await;
    // Against the saved files (the edit is unsaved) the same case improved.
    app.select("[data-testid=baseline]", "saved").await;
    app.wait_for_text("[data-testid=improved-count]", "1 improved")
        .await;
    app.wait_for("[data-testid=case-row][data-change=improved]")
        .await;
    app.wait_for_text("[data-metric=p_at_1] [data-testid=metric-delta]", "+0.500")
        .await;
    for theme in ["light", "dark"] {
        app.select("[data-testid=theme]", theme).await;
        app.wait_for(&format!("html[data-theme={theme}]")).await;
        app.screenshot(&format!("eval-baseline-{theme}")).await;
    }
    app.select("[data-testid=theme]", "system").await;
    app.click("[data-testid=changed-only]").await;

    // The panel shows the open skill moving up with the edit, and adds a case.
    app.show_tab("query").await;
    app.clear_and_type("[data-testid=query-input]", "zorblat my quibbles")
        .await;
    app.wait_for_text("[data-testid=open-rank]", "with your unsaved edits")
        .await;
    // Beside the request, pre-filled with the open skill.
    app.click("[data-testid=add-case-open]").await;
    app.wait_for_value("[data-testid=add-skills]", |v| v == "e2e-dates")
        .await;
    app.select("[data-testid=add-suite]", &suite.display().to_string())
        .await;
    // The name completes from the library's skills.
    app.clear_and_type("[data-testid=add-skills]", "e2e-d")
        .await;
    app.wait_for_text("[data-testid=name-suggestions]", "e2e-dates")
        .await;
    app.type_keys(&String::from(char::from(Key::Enter))).await;
    app.wait_for_value("[data-testid=add-skills]", |v| v == "e2e-dates")
        .await;
    app.screenshot("add-case").await;
    app.click("[data-testid=add-case-button]").await;
    app.wait_for_text("[data-testid=add-note]", "Added to")
        .await;
    let on_disk = std::fs::read_to_string(&suite).unwrap();
    assert!(
        on_disk.starts_with("# Cases of the end-to-end test.")
            && on_disk.contains(
                "  - query: \"zorblat my quibbles\"\n    expect: [e2e-dates]\n    kind: direct\n"
            ),
        "the case is appended with its kind and the file keeps its comment:\n{on_disk}"
    );

    // Export every skill as a pack; the CLI verifies it.
    let out = tempfile::tempdir().unwrap();
    let pack = out.path().join("bundled.zip");
    app.click("[data-testid=open-export]").await;
    app.clear_and_type("[data-testid=export-output]", &pack.display().to_string())
        .await;
    app.click("[data-testid=export-button]").await;
    app.wait_for("[data-testid=export-summary]").await;
    app.screenshot("export").await;
    let verified = Command::new(hone_binary())
        .args(["pack", "--verify"])
        .arg(&pack)
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "hone pack --verify: {}",
        String::from_utf8_lossy(&verified.stdout)
    );
    let sha = app.text_of("[data-testid=export-sha]").await.unwrap();
    assert_eq!(sha.len(), 64);
    app.click("[data-testid=export-dialog] .buttons button:first-child")
        .await;

    // Import it into an empty folder: preview, then import.
    let into = out.path().join("imported");
    std::fs::create_dir(&into).unwrap();
    app.click("[data-testid=open-import]").await;
    app.clear_and_type("[data-testid=import-pack]", &pack.display().to_string())
        .await;
    app.clear_and_type(
        "[data-testid=import-destination]",
        &into.display().to_string(),
    )
    .await;
    app.click("[data-testid=import-preview]").await;
    app.wait_for("[data-testid=import-plan]").await;
    app.screenshot("import").await;
    app.click("[data-testid=import-button]").await;
    app.wait_for("[data-testid=import-summary]").await;
    let imported = std::fs::read_dir(&into)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("SKILL.md").is_file())
        .count();
    assert_eq!(imported, harness.skill_count(), "every skill was imported");

    app.close().await;
}

async fn metric_card(app: &App, metric: &str) -> String {
    app.text_of(&format!(
        "[data-metric={metric}] [data-testid=metric-value]"
    ))
    .await
    .unwrap_or_default()
}

/// `hone eval` on the same library and suite, as JSON.
fn hone_eval(library: &Path, suite: &Path) -> serde_json::Value {
    let output = Command::new(hone_binary())
        .arg("eval")
        .arg(library)
        .arg(suite)
        .args(["--ranker", "bm25", "--format", "json"])
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "hone eval printed no report ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The `hone` binary built beside the app (the workspace builds both).
fn hone_binary() -> PathBuf {
    let app = Path::new(env!("CARGO_BIN_EXE_hone-app"));
    let hone = app.with_file_name("hone");
    assert!(
        hone.is_file(),
        "{} is missing: build the workspace (`cargo build --workspace`)",
        hone.display()
    );
    hone
}
