//! Library health in the window: the target chosen in the Problems panel is
//! written to the library's `evals/hone-settings.json` and is the one the
//! window opens with next time; Token costs draws the listing against its
//! budget (with the cut-off line) and the open skill's stages; the skill
//! list groups a nested collection under its folder, and a group collapses;
//! a conflict between unsaved edits and a change on disk is merged hunk by
//! hunk (mine on one, theirs on the other), and only Save writes the file.
//! The listing sorts largest first and back; every skill's stages are bars
//! that sort and open the skill; the skill list sorts by tokens and says
//! when a filter empties it; tooltips name shortcuts, timings stay in the
//! status line. Screenshots of the charts, the grouping and
//! the merge, light and dark.

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
    app.show_tab("problems").await;
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
    // Click to open: a skill the panel lists opens in the editor.
    app.wait_for("[data-testid=health-skills] tr[data-skill]")
        .await;
    app.wait_for_gone("[data-testid=problems-panel] [role=status]")
        .await;
    let open = app
        .text_of("[data-testid=current-skill]")
        .await
        .unwrap_or_default();
    let listed = app
        .script(
            "return [...document.querySelectorAll('[data-testid=health-skills] tr[data-skill]')].map((r) => r.dataset.skill);",
            vec![],
        )
        .await;
    let listed: Vec<String> = serde_json::from_value(listed).unwrap();
    let other = listed
        .iter()
        .find(|id| open.trim() != id.as_str())
        .unwrap_or_else(|| panic!("a listed skill other than {open:?}: {listed:?}"));
    app.click(&format!(
        "[data-testid=health-skills] tr[data-skill=\"{other}\"] button"
    ))
    .await;
    app.wait_for_text("[data-testid=current-skill]", other)
        .await;

    // Token costs as pictures, with what each number counts.
    app.show_tab("costs").await;
    app.wait_for("[data-testid=stage-chart] [data-testid=stage-metadata]")
        .await;
    app.wait_for_text("[data-testid=stage-chart]", "always loaded")
        .await;
    app.wait_for("[data-testid=listing-chart] [data-skill=merge-sample]")
        .await;
    app.wait_for("[data-testid=listing-cutoff]").await;
    // A model with a 200K window counts 4 characters a token: 8,000, most of
    // it taken by Claude Code's own skills, so the library's overflow.
    app.select("[data-testid=costs-model]", "claude-sonnet-4-5")
        .await;
    app.wait_for("[data-testid=listing-chart] [data-past-budget=true]")
        .await;
    app.wait_for_text("[data-testid=sidebar-legend]", "stage-1 tokens")
        .await;
    app.screenshot("costs-charts-light").await;

    // Sorted largest first, in the engine's order: still marked past the
    // budget, still with the line; and back to listing order.
    app.click("[data-testid=listing-order-cost]").await;
    let sorted = numbers_of(&app, "[data-testid=listing-chart] g[data-skill]", "chars").await;
    assert!(sorted.len() > 1, "bars: {sorted:?}");
    assert!(
        sorted.windows(2).all(|w| w[0] >= w[1]),
        "largest first: {sorted:?}"
    );
    app.wait_for("[data-testid=listing-chart] [data-past-budget=true]")
        .await;
    app.wait_for("[data-testid=listing-cutoff]").await;
    app.wait_for_text("[data-testid=listing-budget]", "is 8,000")
        .await;
    painted(&app).await;
    app.screenshot("listing-sorted-light").await;
    app.click("[data-testid=listing-order-listing]").await;
    let listed = numbers_of(&app, "[data-testid=listing-chart] g[data-skill]", "chars").await;
    assert_eq!(listed.len(), sorted.len());
    assert_ne!(listed, sorted, "listing order is not the sorted order here");

    // Every skill by stage, largest first, with what each stage counts; a
    // click on a bar opens the skill.
    app.wait_for("[data-testid=library-stage-chart] [data-skill=alpha-tool]")
        .await;
    app.wait_for_text("[data-testid=library-stage-chart]", "read on demand")
        .await;
    let totals = numbers_of(
        &app,
        "[data-testid=library-stage-chart] button[data-skill]",
        "total",
    )
    .await;
    assert_eq!(
        totals.len(),
        harness.skill_count_deep(),
        "one bar per skill"
    );
    assert!(
        totals.windows(2).all(|w| w[0] >= w[1]),
        "by total: {totals:?}"
    );
    app.select("[data-testid=stage-sort]", "instructions").await;
    show(&app, "[data-testid=library-stage-chart]").await;
    painted(&app).await;
    app.screenshot("library-stages-light").await;
    app.click("[data-testid=library-stage-chart] [data-skill=alpha-tool]")
        .await;
    app.wait_for_text("[data-testid=current-skill]", "alpha-tool")
        .await;

    // The skill list sorts by the number it shows (stage-1 tokens).
    app.select("[data-testid=skill-order]", "tokens").await;
    let shown: Vec<u64> = serde_json::from_value(
        app.script(
            "return [...document.querySelectorAll('[data-testid=skill-list] .tokens')].map((e) => Number(e.textContent.replace(/\\D/g, '')));",
            vec![],
        )
        .await,
    )
    .unwrap();
    assert!(shown.len() > 1, "{shown:?}");
    assert!(
        shown.windows(2).all(|w| w[0] >= w[1]),
        "by tokens: {shown:?}"
    );
    app.select("[data-testid=skill-order]", "name").await;

    // An empty list says why.
    let filter = "input[aria-label='Filter skills']";
    app.clear_and_type(filter, "no-skill-is-called-this").await;
    app.wait_for_text(".sidebar", "No skill matches the filter.")
        .await;
    // Backspace on the emptied field: the filter is cleared.
    app.clear_and_type(filter, "\u{e003}").await;
    app.wait_for("[data-testid=skill-list] [data-skill=merge-sample]")
        .await;

    // Shortcuts are in the tooltips; developer timings are in the status
    // line, not in the panels.
    let title = app
        .attribute_of("[data-testid=tab-costs]", "title")
        .await
        .unwrap_or_default();
    assert!(title.contains("Ctrl+"), "the tab's tooltip: {title:?}");
    app.wait_for("footer.status-line [data-testid=engine-time]")
        .await;
    let inspector = app.text_of(".inspector").await.unwrap_or_default();
    assert!(
        !inspector.contains(" ms"),
        "a timing in a panel: {inspector}"
    );

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

    merge(&app, &merge_file, "merge-light").await;
    app.close().await;

    // Started again: the window opens with the library's own target. The
    // merge sample is as it was, to be merged again in dark.
    std::fs::write(&merge_file, MERGE_SAMPLE).unwrap();
    let app = harness.launch().await;
    app.wait_for("[data-testid=current-skill]").await;
    app.show_tab("problems").await;
    app.wait_for_value("[data-testid=health-target]", |v| v == "claude-api")
        .await;
    app.select("[data-testid=theme]", "dark").await;
    app.wait_for("html[data-theme=dark]").await;
    app.show_tab("costs").await;
    app.wait_for("[data-testid=listing-chart]").await;
    app.screenshot("costs-charts-dark").await;
    app.click("[data-testid=listing-order-cost]").await;
    app.wait_for("[data-testid=listing-order-cost]:checked")
        .await;
    painted(&app).await;
    app.screenshot("listing-sorted-dark").await;
    app.wait_for("[data-testid=library-stage-chart] [data-skill=alpha-tool]")
        .await;
    show(&app, "[data-testid=library-stage-chart]").await;
    painted(&app).await;
    app.screenshot("library-stages-dark").await;
    merge(&app, &merge_file, "merge-dark").await;
    app.click("[data-testid=skill-grouping]").await;
    app.wait_for("[data-group=team]").await;
    app.screenshot("grouping-dark").await;
    app.close().await;
}

/// Waits for two frames, so that a screenshot shows what the page holds (a
/// screenshot right after a change may show the frame before it).
async fn painted(app: &App) {
    app.script(
        "return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));",
        vec![],
    )
    .await;
}

/// Scrolls the element at `css` into view, for a screenshot.
async fn show(app: &App, css: &str) {
    app.script(
        "document.querySelector(arguments[0]).scrollIntoView({ block: 'start' });",
        vec![css.into()],
    )
    .await;
}

/// The numbers a chart's bars carry in `data-<attribute>`, top to bottom.
async fn numbers_of(app: &App, css: &str, attribute: &str) -> Vec<u64> {
    let found = app
        .script(
            "return [...document.querySelectorAll(arguments[0])].map((e) => Number(e.dataset[arguments[1]]));",
            vec![css.into(), attribute.into()],
        )
        .await;
    serde_json::from_value(found).unwrap_or_else(|e| panic!("{css} {attribute}: {e}"))
}

/// Unsaved edits against a change on disk, merged: mine on the first hunk,
/// theirs on the second; the file is written only by Save merged.
async fn merge(app: &App, file: &Path, screenshot: &str) {
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
    app.screenshot(screenshot).await;
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
