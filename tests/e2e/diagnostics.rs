//! Routing diagnostics as an author meets them in the window, in one story
//! (issue 17's): a library with two skills that describe the same requests
//! shows the collision (HS502) in the problems list; an eval run shows the
//! confusion heatmap, whose cell of the losing skill lists its cases; a
//! failed eval case opens "why it lost" with the expected skill set against
//! the winner; the Evals panel calibrates the threshold (stored beside the
//! suites) and measures description edits for the open skill, applies one
//! as an undoable edit that then moves the suite's P@1; the map shows the
//! library with the typed request among the skills; started again, the
//! window selects with the calibrated threshold.
//!
//! Keyword ranking for the eval runs, so their figures do not depend on the
//! embedding model. The map needs the embedding model: set-up installs it,
//! and without it this test fails rather than passes.

use std::time::Duration;

use fantoccini::key::Key;

use crate::harness::{Harness, Painting};

/// Two skills whose routing texts share nearly every word: a planted collision.
const PDF_TOOLS: &str = "---\nname: pdf-tools\ndescription: Works with PDF files and PDF documents, pages and forms. Merges, splits and rotates PDF pages. Use when the user has a PDF document.\n---\n\n# PDF tools\n\nUse qpdf.\n";
const PDF_EXTRACT: &str = "---\nname: pdf-extract\ndescription: Works with PDF files and PDF documents, pages and forms. Extracts text from PDF pages. Use when the user has a PDF document.\n---\n\n# PDF extract\n\n## Harvest figures\n\nUse pdftotext.\n";

/// Requests for pdf-extract in words its description lacks ("harvest"), so
/// pdf-tools wins them until a suggestion adds the word.
const SUITE: &str = "name: diag\ncases:\n  - query: \"harvest the invoice numbers from this pdf document\"\n    expect: [pdf-extract]\n  - query: \"harvest the totals out of a pdf file\"\n    expect: [pdf-extract]\n  - query: \"harvest every email address in the pdf pages\"\n    expect: [pdf-extract]\n  - query: \"harvest the dates from these pdf forms\"\n    expect: [pdf-extract]\n  - query: \"harvest figures from a pdf report\"\n    expect: [pdf-extract]\n  - query: \"harvest the names listed in this pdf\"\n    expect: [pdf-extract]\n  - query: \"harvest the table rows from the pdf\"\n    expect: [pdf-extract]\n  - query: \"harvest phone numbers from pdf documents\"\n    expect: [pdf-extract]\n  - query: \"merge and rotate these pdf pages\"\n    expect: [pdf-tools]\n  - query: \"what is the weather like tomorrow\"\n    expect: []\n";

#[test]
fn routing_diagnostics() {
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    harness.block_on(story(&harness));
}

async fn story(harness: &Harness) {
    let library = harness.library().to_path_buf();
    for (name, text) in [("pdf-tools", PDF_TOOLS), ("pdf-extract", PDF_EXTRACT)] {
        std::fs::create_dir_all(library.join(name)).unwrap();
        std::fs::write(library.join(name).join("SKILL.md"), text).unwrap();
    }
    let suite = library.join("evals/diag.yaml");
    std::fs::write(&suite, SUITE).unwrap();

    let app = harness.launch().await;
    app.wait_for("[data-skill=pdf-extract]").await;
    app.wait_for(".cm-line").await;

    // The collision is a library rule in the problems list.
    app.show_tab("problems").await;
    app.wait_for("[data-testid=health-rules] tr[data-code=HS502]")
        .await;

    // A failed case of the suite opens the contrast with the winner.
    app.show_tab("query").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.show_tab("evals").await;
    app.select("[data-testid=suite]", &suite.display().to_string())
        .await;
    app.click("[data-testid=run-eval]").await;
    app.wait_for("[data-testid=metrics]").await;

    // The confusion heatmap: the row of the losing skill lists its failed requests.
    let cell = "[data-testid=heatmap] [data-testid=heatmap-cell][data-expected=pdf-extract]";
    app.wait_for(cell).await;
    app.click(cell).await;
    app.wait_for_text(
        "[data-testid=heatmap] [data-testid=heatmap-case]",
        "harvest",
    )
    .await;
    app.screenshot("heatmap").await;

    app.click("[data-testid=case-row] [data-testid=why-lost]")
        .await;
    app.wait_for_visible("[data-testid=why-margin]").await;
    app.wait_for("[data-testid=why-expected-side][data-id=pdf-extract]")
        .await;
    app.wait_for_text("[data-testid=why-neither]", "harvest")
        .await;
    app.screenshot("why-it-lost").await;

    // Calibration reports before and after and stores the threshold.
    app.show_tab("evals").await;
    app.click("[data-testid=tune] summary").await;
    app.click("[data-testid=calibrate]").await;
    app.wait_for("[data-testid=calibration]").await;
    let settings = std::fs::read_to_string(library.join("evals/hone-settings.json"))
        .expect("calibration stores the threshold beside the suites");
    assert!(settings.contains("bm25"), "stored for bm25:\n{settings}");
    let calibrated: f64 = app
        .text_of("[data-testid=calibrated-threshold]")
        .await
        .unwrap()
        .trim()
        .parse()
        .unwrap();

    // Suggestions for the open skill; one applied is one undoable edit.
    app.click("[data-skill=pdf-extract]").await;
    app.wait_for_text("[data-testid=editor]", "Extracts text from PDF pages")
        .await;
    app.show_tab("evals").await;
    app.click("[data-testid=suggest]").await;
    app.wait_for("[data-testid=suggestion]").await;

    app.screenshot("suggestions").await;
    let before = app.editor_text().await;
    app.click("[data-testid=suggestion]:first-child [data-testid=apply-suggestion]")
        .await;
    app.wait_for("[data-testid=dirty]").await;
    let after = app.editor_text().await;
    assert_ne!(before, after, "the suggestion changed the description");
    app.click("[data-testid=run-eval]").await;
    app.wait_for_text("[data-metric=p_at_1] [data-testid=metric-delta]", "+")
        .await;
    assert_eq!(
        std::fs::read_to_string(library.join("pdf-extract/SKILL.md")).unwrap(),
        PDF_EXTRACT,
        "applied to the editor only, unsaved"
    );
    app.click("[data-testid=editor] .cm-content").await;
    let control = char::from(Key::Control);
    app.type_keys(&format!("{control}z{control}")).await;
    app.wait_for_gone("[data-testid=dirty]").await;

    // The map, with the request typed placed among the skills.
    app.show_tab("query").await;
    let hybrid = app
        .text_of("[data-testid=ranker] option[value=hybrid]")
        .await
        .unwrap_or_default();
    assert!(
        !hybrid.contains("missing"),
        "the map needs the embedding model: scripts/setup.sh installs it"
    );
    {
        app.select("[data-testid=ranker]", "hybrid").await;
        app.clear_and_type("[data-testid=query-input]", "harvest totals from a pdf")
            .await;
        app.click("[data-testid=map] summary").await;
        app.wait_for("[data-testid=map-point][data-id=pdf-extract]")
            .await;
        app.wait_for("[data-testid=map-request]").await;
        // The open skill is highlighted and the planted pair joined.
        app.wait_for("[data-testid=map-point][data-id=pdf-extract].open")
            .await;
        app.wait_for("[data-testid=map-edge]").await;
        app.script(
            "document.querySelector('[data-testid=map]').scrollIntoView()",
            vec![],
        )
        .await;
        app.screenshot("map").await;
    }

    // Started again, the window selects with the stored threshold.
    app.reload().await;
    app.show_tab("query").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.wait_for_value("[data-testid=threshold]", |v| {
        v.parse::<f64>()
            .is_ok_and(|v| (v - calibrated).abs() < 0.006)
    })
    .await;
    app.close().await;
}

/// Room for the local model to load and answer every held-out case with
/// the listing as it is and with each confirmed edit, on a busy machine.
const CONFIRM_DEADLINE: Duration = Duration::from_secs(900);

/// Suggestions confirmed by the agent chosen on the Evals tab (the local
/// model, the default): previewed with what it costs and that nothing
/// leaves the machine, then each confirmed edit carries the agent's delta
/// beside the offline one. A library of the two colliding skills and their
/// suite alone, so the confirmation asks a few dozen local requests, not the
/// bundled library's hundreds. Needs the local model (set-up installs it);
/// without it the test fails.
#[test]
fn suggestions_confirmed_by_the_local_agent() {
    let model = hone_core::llm::resolve_model_file(None);
    assert!(
        model.installed,
        "confirming suggestions needs the local model at {}: run `hone model install --llm` (scripts/setup.sh does)",
        model.path.display()
    );
    let library = tempfile::tempdir().unwrap();
    for (name, text) in [("pdf-tools", PDF_TOOLS), ("pdf-extract", PDF_EXTRACT)] {
        std::fs::create_dir_all(library.path().join(name)).unwrap();
        std::fs::write(library.path().join(name).join("SKILL.md"), text).unwrap();
    }
    std::fs::create_dir_all(library.path().join("evals")).unwrap();
    std::fs::write(library.path().join("evals/diag.yaml"), SUITE).unwrap();
    let Some(harness) = Harness::start_with(Some(library.path()), Painting::Composited) else {
        return;
    };
    harness.block_on(confirm_story(&harness));
}

async fn confirm_story(harness: &Harness) {
    let app = harness.launch().await;
    app.wait_for("[data-skill=pdf-extract]").await;
    app.show_tab("query").await;
    app.select("[data-testid=ranker]", "bm25").await;
    app.click("[data-skill=pdf-extract]").await;
    app.wait_for_text("[data-testid=editor]", "Extracts text from PDF pages")
        .await;
    app.show_tab("evals").await;
    app.click("[data-testid=tune] summary").await;
    app.click("[data-testid=suggest]").await;
    app.wait_for("[data-testid=suggestion]").await;

    app.click("[data-testid=confirm-with-agent]").await;
    app.wait_for_text_within(
        "[data-testid=confirm-privacy]",
        "nothing leaves",
        Duration::from_secs(120),
    )
    .await;
    let cost = app.text_of("[data-testid=confirm-cost]").await.unwrap();
    assert!(
        cost.contains("× 1 run"),
        "the local model runs once: {cost}"
    );
    assert!(cost.ends_with("$0."), "{cost}");
    app.screenshot("confirm-preview").await;
    app.click("[data-testid=confirm-run]").await;
    app.wait_for_text_within("[data-testid=agent-summary]", "confirmed", CONFIRM_DEADLINE)
        .await;
    let summary = app.text_of("[data-testid=agent-summary]").await.unwrap();
    assert!(!summary.contains("stopped"), "{summary}");
    app.wait_for("[data-testid=suggestion] [data-testid=agent-delta]")
        .await;
    app.close().await;
}
