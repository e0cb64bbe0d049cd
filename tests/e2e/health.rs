//! Library health in the window: the target chosen in the Problems panel is
//! written to the library's `evals/hone-settings.json` and is the one the
//! window opens with next time; Token costs draws the listing against its
//! budget (with the cut-off line) and the open skill's stages; the skill
//! list groups a nested collection under its folder, and a group collapses;
//! a conflict between unsaved edits and a change on disk is merged hunk by
//! hunk (mine on one, theirs on the other), and only Save writes the file.
//! Screenshots of the charts, the grouping and the merge, light and dark.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::harness::{App, Harness};

const MERGE_SAMPLE: &str = "---\nname: merge-sample\ndescription: Sorts grocery lists by aisle. Use when the user shares a shopping list.\n---\n\n# Groceries\n\nLine one.\n\nLine two.\n\nLine three.\n\nLine four.\n";

fn collection_skill(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Handles {name} chores for the team. Use when the user asks about {name}.\n---\n\n# {name}\n\nSteps.\n"
    )
}

/// Waits until the file at `path` holds `needle` (the app writes it off the
/// window's thread); generous, for a loaded machine.
fn wait_for_file(path: &Path, needle: &str) -> String {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} never held {needle:?}: {text}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Replaces a file as another editor saves it: a new file renamed over it.
fn replace_file(path: &Path, text: &str) {
    let temporary = path.with_extension("tmp~");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

#[test]
fn the_library_health_story() {
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    harness.block_on(story(&harness));
}

async fn story(harness: &Harness) {
    let library = harness.library().to_path_buf();
    for name in ["alpha-tool", "beta-tool"] {
        let dir = library.join("team").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), collection_skill(name)).unwrap();
    }
    let merge_file = library.join("merge-sample/SKILL.md");
    std::fs::create_dir_all(merge_file.parent().unwrap()).unwrap();
    std::fs::write(&merge_file, MERGE_SAMPLE).unwrap();
    let settings = library.join("evals/hone-settings.json");

    let app = harness.launch().await;
    app.wait_for("[data-testid=current-skill]").await;
    app.wait_for_gone(".banner[role=status]").await;

    // The target: the engine's default until chosen, then remembered on disk.
    app.click("[data-testid=tab-problems]").await;
    app.wait_for("[data-testid=health-totals]").await;
    assert_eq!(
        app.value_of("[data-testid=health-target]").await,
        "agentskills"
    );
    app.select("[data-testid=health-target]", "claude-api")
        .await;
    wait_for_file(&settings, "\"target\": \"claude-api\"");
    app.wait_for_value("[data-testid=health-target]", |v| v == "claude-api")
        .await;

    // Token costs as pictures, with what each number counts.
    app.click("[data-testid=tab-costs]").await;
    app.wait_for("[data-testid=stage-chart] [data-testid=stage-metadata]")
        .await;
    app.wait_for_text("[data-testid=stage-chart]", "always loaded")
        .await;
    app.wait_for("[data-testid=listing-chart] [data-skill=merge-sample]")
        .await;
    app.wait_for("[data-testid=listing-cutoff]").await;
    // A window so small the listing overflows: some entries fall past the line.
    app.select("[data-testid=context-window]", "8000").await;
    app.wait_for("[data-testid=listing-chart] [data-past-budget=true]")
        .await;
    app.wait_for_text("[data-testid=sidebar-legend]", "stage-1 tokens")
        .await;
    app.screenshot("costs-charts-light").await;

    // Grouping by folder: the collection is a group of its own, and collapses.
    app.click("[data-testid=skill-grouping]").await;
    app.wait_for("[data-group=team]").await;
    app.wait_for("[data-testid=skill-list] [data-skill=alpha-tool]")
        .await;
    app.screenshot("grouping-light").await;
    app.click("[data-group=team] button").await;
    app.wait_for_gone("[data-testid=skill-list] [data-skill=alpha-tool]")
        .await;
    app.wait_for("[data-testid=skill-list] [data-skill=merge-sample]")
        .await;

    merge(&app, &merge_file).await;
    app.close().await;

    // Started again: the window opens with the library's own target.
    let app = harness.launch().await;
    app.wait_for("[data-testid=current-skill]").await;
    app.click("[data-testid=tab-problems]").await;
    app.wait_for_value("[data-testid=health-target]", |v| v == "claude-api")
        .await;
    app.select("[data-testid=theme]", "dark").await;
    app.wait_for("html[data-theme=dark]").await;
    app.click("[data-testid=tab-costs]").await;
    app.wait_for("[data-testid=listing-chart]").await;
    app.screenshot("costs-charts-dark").await;
    app.click("[data-testid=skill-grouping]").await;
    app.wait_for("[data-group=team]").await;
    app.screenshot("grouping-dark").await;
    app.close().await;
}

/// Unsaved edits against a change on disk, merged: mine on the first hunk,
/// theirs on the second; the file is written only by Save merged.
async fn merge(app: &App, file: &Path) {
    app.click("[data-testid=skill-list] [data-skill=merge-sample]")
        .await;
    app.wait_for_text("[data-testid=current-skill]", "merge-sample")
        .await;
    app.click_line_end("Line two.").await;
    app.type_keys(" Mine.").await;
    app.wait_for("[data-testid=dirty]").await;
    let theirs = MERGE_SAMPLE.replace("Line four.", "Line four. Theirs.");
    replace_file(file, &theirs);
    app.wait_for("[data-testid=conflict-banner]").await;
    app.click("[data-testid=show-both]").await;
    app.wait_for("[data-testid=merge-view] .cm-editor").await;
    app.wait_for_count("[data-testid=hunk-take-theirs]", 2)
        .await;
    app.wait_for_text("[data-testid=merge-hunks]", "2 hunks")
        .await;
    app.screenshot("merge-light").await;
    // Nothing is written by looking.
    assert_eq!(std::fs::read_to_string(file).unwrap(), theirs);

    app.click("[data-testid=hunk-take-mine]").await;
    app.wait_for_count("[data-testid=hunk-take-theirs]", 1)
        .await;
    app.click("[data-testid=hunk-take-theirs]").await;
    app.wait_for_text("[data-testid=merge-hunks]", "Every hunk decided")
        .await;
    assert_eq!(std::fs::read_to_string(file).unwrap(), theirs);
    app.click("[data-testid=merge-save]").await;
    app.wait_for_gone("[data-testid=merge-view]").await;
    app.wait_for_gone("[data-testid=dirty]").await;
    let saved = std::fs::read_to_string(file).unwrap();
    assert_eq!(
        saved,
        MERGE_SAMPLE
            .replace("Line two.", "Line two. Mine.")
            .replace("Line four.", "Line four. Theirs."),
        "mine on the first hunk, theirs on the second"
    );
    app.wait_for_gone("[data-testid=conflict-banner]").await;
}
