//! Keyboard-first (issue 19): a whole journey without the mouse. Find a
//! skill with Ctrl+P, break its YAML in the text, go to the problem with F8
//! and fix it with Ctrl+., save with Ctrl+S, try a request in the test-query
//! panel (Ctrl+4), run the eval suite (Ctrl+Enter, Ctrl+5), switch the
//! theme from the command palette (Ctrl+Shift+P), and end by exporting the
//! library as a pack (the palette's "Export a pack…", Tab to the file name,
//! type it, Tab to Export, Enter).

use fantoccini::key::Key;

use crate::harness::{App, Harness};

const SAMPLE: &str = "---\nname: kbd-sample\ndescription: Formats calendar dates for reports. Use when a date appears in a report.\nlicense: MIT\n---\n\n# Dates\n\nWrite dates as YYYY-MM-DD.\n";

#[test]
fn the_keyboard_only_story() {
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    harness.block_on(story(&harness));
}

pub(crate) fn key(k: Key) -> String {
    String::from(char::from(k))
}

/// `keys` typed with `modifiers` held (WebDriver toggles a modifier each time it is sent).
pub(crate) fn chord(modifiers: &[Key], keys: &str) -> String {
    let held: String = modifiers.iter().map(|m| key(*m)).collect();
    format!("{held}{keys}{held}")
}

async fn story(harness: &Harness) {
    let file = harness.library().join("kbd-sample/SKILL.md");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, SAMPLE).unwrap();
    let app = harness.launch().await;
    app.wait_for("[data-testid=current-skill]").await;
    app.wait_for_gone(".banner[role=status]").await;

    // Open: Ctrl+P, the skill's name, Enter: it opens with the caret in its text.
    app.type_keys(&chord(&[Key::Control], "p")).await;
    app.wait_for_focus_in("[data-testid=skill-filter]").await;
    app.type_keys("kbd-sample").await;
    app.type_keys(&key(Key::Enter)).await;
    app.wait_for_text("[data-testid=current-skill]", "kbd-sample")
        .await;
    app.wait_for_focus_in(".cm-editor").await;

    // Edit: the end of the description line gets an unquoted `: `.
    let down = key(Key::Down);
    app.type_keys(&chord(&[Key::Control], &key(Key::Home)))
        .await;
    app.type_keys(&format!("{down}{down}{}", key(Key::End).repeat(4)))
        .await;
    app.type_keys(" Note: keep ISO").await;
    app.wait_for("[data-testid=problems] li.error[data-line='3']")
        .await;

    // Fix: F8 goes to the problem, Ctrl+. applies its quick fix.
    app.type_keys(&chord(&[Key::Control], &key(Key::Home)))
        .await;
    app.type_keys(&key(Key::F8)).await;
    app.type_keys(&chord(&[Key::Control], ".")).await;
    app.wait_for_gone("[data-testid=problems] li.error").await;

    // Save: Ctrl+S.
    app.type_keys(&chord(&[Key::Control], "s")).await;
    app.wait_for_gone("[data-testid=dirty]").await;
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(
        saved.contains("Note: keep ISO\""),
        "the fixed text is saved:\n{saved}"
    );

    // Query: Ctrl+4 shows the panel with the caret in the request.
    app.type_keys(&chord(&[Key::Control], "4")).await;
    app.wait_for_focus_in("[data-testid=query-input]").await;
    app.type_keys("format calendar dates for a report").await;
    app.wait_for("[data-testid=result][data-id=kbd-sample]")
        .await;

    // Run evals: Ctrl+Enter from another tab, before the Evals panel was
    // ever shown, shows it and runs the suite; then Ctrl+4 and Ctrl+5 go
    // back and forth, and Ctrl+Enter runs it again from the Evals tab.
    app.type_keys(&chord(&[Key::Control], &key(Key::Enter)))
        .await;
    app.wait_for("[data-testid=tab-evals][aria-selected=true]")
        .await;
    app.wait_for("[data-testid=metrics]").await;
    app.type_keys(&chord(&[Key::Control], "4")).await;
    app.wait_for_focus_in("[data-testid=query-input]").await;
    app.type_keys(&chord(&[Key::Control], "5")).await;
    app.wait_for("[data-testid=tab-evals][aria-selected=true]")
        .await;
    app.type_keys(&chord(&[Key::Control], &key(Key::Enter)))
        .await;
    app.wait_for("[data-testid=metrics]").await;

    // The command palette: every command with its shortcut; Enter runs one.
    palette(&app).await;

    // Export: from the palette, then Tab and type only.
    let out = tempfile::tempdir().unwrap();
    let pack = out.path().join("kbd-export.zip");
    app.type_keys(&chord(&[Key::Control, Key::Shift], "p"))
        .await;
    app.wait_for_focus_in("[data-testid=palette-input]").await;
    app.type_keys("export a pack").await;
    app.type_keys(&key(Key::Enter)).await;
    app.wait_for_focus_in("[data-testid=export-dialog]").await;
    tab_to(&app, "[data-testid=export-output]").await;
    app.type_keys(&pack.to_string_lossy()).await;
    tab_to(&app, "[data-testid=export-button]").await;
    app.type_keys(&key(Key::Enter)).await;
    app.wait_for_text("[data-testid=export-path]", "kbd-export.zip")
        .await;
    assert!(pack.is_file(), "{} is written", pack.display());
    app.screenshot("export-keyboard").await;
    app.close().await;
}

/// Presses Tab until the focus is in `css`, as a user reading the focus ring would.
async fn tab_to(app: &App, css: &str) {
    for _ in 0..20 {
        if app.focus_is_in(css).await {
            return;
        }
        app.type_keys(&key(Key::Tab)).await;
    }
    assert!(app.focus_is_in(css).await, "Tab never reaches {css}");
}

async fn palette(app: &App) {
    app.type_keys(&chord(&[Key::Control, Key::Shift], "p"))
        .await;
    app.wait_for_focus_in("[data-testid=palette-input]").await;
    let listed = app
        .script(
            "return [...document.querySelectorAll('[data-command]')].map((li) => li.textContent)",
            vec![],
        )
        .await;
    let listed = listed.to_string();
    for expected in [
        "Show Evals",
        "Ctrl+5",
        "Next problem",
        "F8",
        "Run the eval suite",
        "Ctrl+Enter",
    ] {
        assert!(
            listed.contains(expected),
            "the palette lists {expected}: {listed}"
        );
    }
    app.type_keys("dark theme").await;
    app.type_keys(&key(Key::Enter)).await;
    app.wait_for_gone("[data-testid=palette]").await;
    app.wait_for("html[data-theme=dark]").await;
    app.screenshot("palette-dark").await;
}
