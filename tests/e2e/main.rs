//! End-to-end tests of the desktop app: the real `hone-app` binary in a real
//! window on a private Xvfb display, driven over WebDriver by `tauri-driver`
//! and WebKitGTK's `WebKitWebDriver`.
//!
//! One app session walks through the editing story in order (each step
//! builds on the last, and starting a WebKit window costs seconds): open the
//! library, break a description and see the finding at its line, repair it
//! with the quick fix, edit in the form and see the YAML follow, save and read
//! the file back, change the file from outside and see the window follow, and
//! meet the conflict banner when both sides changed. Screenshots go to
//! `target/tmp/e2e-screenshots/`, or with `HONE_UPDATE_SCREENSHOTS=1` to the
//! README's `docs/screenshots/`; timings are printed, never asserted.
//!
//! A missing tool (Xvfb, tauri-driver, WebKitWebDriver, the built UI) fails
//! the tests with what to install; `HONE_E2E=0` skips them instead.

mod agent;
mod benchmark;
mod clients;
mod diagnostics;
mod distribution;
mod harness;
mod health;
mod integrity;
mod keyboard;
mod layout;
mod listing;
mod long_tasks;
mod measure;
mod serving;
mod tuning;
mod welcome;

use std::path::Path;
use std::time::{Duration, Instant};

use harness::Harness;

const SAMPLE: &str = "---\nname: e2e-sample\ndescription: Formats calendar dates for reports. Use when a date appears in a report.\nlicense: Apache-2.0\n---\n\n# Dates\n\n![A dot](assets/dot.png)\n\nWrite dates as YYYY-MM-DD.\n";

/// A 1×1 PNG, the image the sample's body shows.
const DOT_PNG: &[u8] = &[
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0,
    0, 0, 31, 21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 218, 99, 100, 248, 207, 80, 15, 0, 3,
    134, 1, 128, 90, 52, 125, 107, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

#[test]
fn the_editing_story() {
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    harness.block_on(story(&harness));
}

async fn story(harness: &Harness) {
    let sample_dir = harness.library().join("e2e-sample");
    std::fs::create_dir_all(&sample_dir).unwrap();
    std::fs::write(sample_dir.join("SKILL.md"), SAMPLE).unwrap();
    std::fs::create_dir_all(sample_dir.join("assets")).unwrap();
    std::fs::write(sample_dir.join("assets/dot.png"), DOT_PNG).unwrap();
    let skill_count = harness.skill_count();
    // A folder outside the library, reachable from it through a symlink.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), harness.library().join("escape")).unwrap();

    let started = Instant::now();
    let app = harness.launch().await;
    // Open the bundled library: every skill is listed.
    app.wait_for_count("[data-testid=skill-list] li", skill_count)
        .await;
    println!(
        "e2e: start to listed library: {} ms",
        started.elapsed().as_millis()
    );
    app.screenshot("library").await;

    // Open the sample and break its description with an unquoted `: `.
    app.click("[data-skill=e2e-sample]").await;
    app.wait_for_text("[data-testid=editor]", "Formats calendar dates")
        .await;
    // The preview shows the body's image, served from the skill's folder.
    assert_eq!(app.preview_image_width().await, 1);
    app.click_line_end("Formats calendar dates").await;
    let typed = Instant::now();
    app.type_keys(" Note: keep ISO").await;
    app.wait_for("[data-testid=problems] li.error[data-line='3']")
        .await;
    println!(
        "e2e: keystroke to diagnostic shown: {} ms",
        typed.elapsed().as_millis()
    );
    app.screenshot("diagnostic").await;

    // Repair it with the rule's quick fix.
    app.click("[data-testid=problems] li.error[data-line='3'] button.fix")
        .await;
    app.wait_for_gone("[data-testid=problems] li.error").await;
    let text = app.editor_text().await;
    assert!(
        text.contains("description: \"Formats calendar dates for reports. Use when a date appears in a report. Note: keep ISO\""),
        "the fix quotes the description:\n{text}"
    );

    // Edit in the form: the YAML follows.
    app.clear_and_type("#field-license", "MIT").await;
    app.wait_for_text("[data-testid=editor]", "license: MIT")
        .await;
    app.screenshot("form").await;

    // The form is built from the engine's field table: Claude Code's `effort`
    // offers its levels, `model` suggests `inherit`.
    let choices = |css: &str| {
        format!("return [...document.querySelectorAll('{css} option')].map(o => o.value)")
    };
    assert_eq!(
        app.script(&choices("#field-effort"), vec![]).await,
        serde_json::json!(["", "low", "medium", "high", "xhigh", "max"])
    );
    assert_eq!(
        app.script(&choices("#suggest-model"), vec![]).await,
        serde_json::json!(["inherit"])
    );

    // Save and read the file back.
    app.click("[data-testid=save]").await;
    app.wait_for_gone("[data-testid=dirty]").await;
    let on_disk = std::fs::read_to_string(sample_dir.join("SKILL.md")).unwrap();
    assert!(
        on_disk.contains("license: MIT") && on_disk.contains("Note: keep ISO\""),
        "{on_disk}"
    );

    // Another editor saves the file (write a temporary file, rename it over).
    let changed = Instant::now();
    replace_file(
        &sample_dir.join("SKILL.md"),
        &on_disk.replace("YYYY-MM-DD", "ISO 8601"),
    );
    app.wait_for_text("[data-testid=editor]", "ISO 8601").await;
    println!(
        "e2e: change on disk to window updated: {} ms",
        changed.elapsed().as_millis()
    );

    // Both sides change: the banner offers a choice, nothing is overwritten.
    app.click_line_end("Write dates as").await;
    app.type_keys(" Mine.").await;
    app.wait_for("[data-testid=dirty]").await;
    let theirs = std::fs::read_to_string(sample_dir.join("SKILL.md")).unwrap() + "Theirs.\n";
    replace_file(&sample_dir.join("SKILL.md"), &theirs);
    app.wait_for("[data-testid=conflict-banner]").await;
    app.screenshot("conflict").await;
    assert_eq!(
        std::fs::read_to_string(sample_dir.join("SKILL.md")).unwrap(),
        theirs
    );
    app.click("[data-testid=take-theirs]").await;
    app.wait_for_gone("[data-testid=conflict-banner]").await;
    app.wait_for_text("[data-testid=editor]", "Theirs.").await;
    assert!(!app.editor_text().await.contains("Mine."));

    // The commands themselves refuse paths outside the library, whatever the page asks.
    refuses_escapes(&app, harness.library(), outside.path()).await;

    app.close().await;
}

/// Calls commands directly with `../` and symlink escapes: each is refused
/// and nothing is written outside the library.
async fn refuses_escapes(app: &harness::App, library: &Path, outside: &Path) {
    let outside_name = outside.file_name().unwrap().to_string_lossy();
    let climbing = format!(
        "{}/e2e-sample/../../{outside_name}/secret.txt",
        library.display()
    );
    let through_link = format!("{}/escape/secret.txt", library.display());
    let attempts = [
        ("open_skill", serde_json::json!({ "path": climbing })),
        ("open_skill", serde_json::json!({ "path": through_link })),
        (
            "read_resource",
            serde_json::json!({ "path": "/etc/passwd" }),
        ),
        (
            "save_skill",
            serde_json::json!({ "path": format!("{}/escape/SKILL.md", library.display()), "text": "x", "expected": null }),
        ),
        (
            "create_skill",
            serde_json::json!({ "root": format!("{}/escape", library.display()), "name": "planted" }),
        ),
        (
            "delete_skill",
            serde_json::json!({ "dir": outside.display().to_string() }),
        ),
    ];
    for (command, args) in attempts {
        let outcome = app.invoke(command, args.clone()).await;
        assert!(
            outcome
                .as_ref()
                .is_err_and(|e| e.contains("outside the opened library")),
            "{command} {args} must be refused, got {outcome:?}"
        );
    }
    let mut left: Vec<_> = std::fs::read_dir(outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["secret.txt"],
        "nothing was written outside the library"
    );
}

/// Saves like most editors do: write a sibling file, then rename it over.
fn replace_file(path: &Path, text: &str) {
    let temp = path.with_extension("md.swp-e2e");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, path).unwrap();
    std::thread::sleep(Duration::from_millis(10));
}
