//! Issue 40 in the window: the Clients tab from the client profiles. The
//! bundled library, with one skill planted that says what Claude Code's own
//! `code-review` says: Claude Code's verdicts and entries, its built-ins
//! marked and the collision in the problems list (HS208); the budget line for
//! two models; a capture of Claude Code cancelled as it runs; Gemini CLI's
//! verdicts, whose entries name the files; then a capture from the installed
//! Gemini CLI, offline, beside the prediction.

use std::time::{Duration, Instant};

use hone_core::clients::{Client, Environment, capture};

use crate::harness::Harness;

/// A description close to Claude Code's built-in `code-review` (HS208's own example).
const REVIEW: &str = "---\nname: review-my-diff\ndescription: Reviews the current diff or a pull request for correctness bugs. Use when asked to review a PR or a branch.\n---\n\nRead the diff, then the tests.\n";

#[test]
fn the_clients_story() {
    let env = Environment::current();
    assert!(
        capture::find_installed(Client::Gemini, &env).is_some(),
        "Gemini CLI is not installed in {}: run scripts/install-clients.sh (make test does)",
        capture::clients_dir(&env).display()
    );
    let Some(harness) = Harness::start_or_skip() else {
        return;
    };
    let planted = harness.library().join("review-my-diff");
    std::fs::create_dir_all(&planted).unwrap();
    std::fs::write(planted.join("SKILL.md"), REVIEW).unwrap();
    // Checked for Claude Code, whose rules HS208 belongs to.
    std::fs::write(
        harness.library().join("evals/hone-settings.json"),
        "{\"target\": \"claude-code\"}\n",
    )
    .unwrap();
    harness.block_on(async {
        let app = harness.launch().await;
        app.wait_for("[data-skill=review-my-diff]").await;

        // The collision with the built-in, in the problems list.
        app.show_tab("problems").await;
        app.wait_for_text("[data-testid=health-rules]", "HS208")
            .await;

        // Claude Code (the default client) and its default model.
        app.show_tab("clients").await;
        let verdicts = "[data-testid=client-verdicts]";
        app.wait_for_text(
            &format!("{verdicts} li[data-client-skill=git-commit-messages][data-verdict=loads]"),
            "- git-commit-messages: ",
        )
        .await;
        app.wait_for_text(
            "[data-testid=client-builtins] li[data-builtin=code-review]",
            "Built-in",
        )
        .await;
        app.wait_for_text("[data-testid=client-summary]", "load as written")
            .await;
        app.wait_for_text("[data-testid=client-budget]", "30,000 characters")
            .await;
        // A smaller window at 4 characters a token: a smaller budget.
        app.select("[data-testid=client-model]", "claude-haiku-4-5")
            .await;
        app.wait_for_text("[data-testid=client-budget]", "8,000 characters")
            .await;
        app.wait_for_text("[data-testid=client-summary]", "claude-haiku-4-5")
            .await;
        app.wait_for_text("[data-testid=client-budget]", "over:")
            .await;
        app.wait_for(&format!("{verdicts} li[data-verdict=hidden]"))
            .await;
        app.screenshot("clients").await;

        // A capture can be stopped: Claude Code, cancelled as soon as it runs.
        app.click("[data-testid=capture-run]").await;
        app.wait_for("[data-testid=capture-progress]").await;
        app.click("[data-testid=capture-cancel]").await;
        app.wait_for_text("[data-testid=client-capture]", "cancelled")
            .await;
        app.wait_for("[data-testid=capture-run]").await;

        // Gemini CLI: no budget, entries with the file's path.
        app.click("[data-testid=client-gemini]").await;
        app.wait_for_text("[data-testid=client-budget]", "No listing budget")
            .await;
        let entry = format!("{verdicts} li[data-client-skill=review-my-diff]");
        app.wait_for_text(&entry, "<location>").await;
        app.wait_for_text(&entry, ".gemini/skills/review-my-diff/SKILL.md")
            .await;
        app.wait_for("[data-testid=client-builtins] li[data-builtin=skill-creator]")
            .await;

        // The installed Gemini CLI, offline, beside the prediction.
        app.click("[data-testid=capture-run]").await;
        app.wait_for("[data-testid=capture-progress]").await;
        let started = Instant::now();
        app.wait_for_text_within(
            "[data-testid=capture-note]",
            "Nothing left this machine",
            Duration::from_secs(150),
        )
        .await;
        eprintln!(
            "capture of Gemini CLI on the bundled library: {:.1} s in the window",
            started.elapsed().as_secs_f64()
        );
        app.wait_for_text("[data-testid=capture-summary]", "entries identical")
            .await;
        app.wait_for("[data-testid=capture-all]").await;
        // Gemini CLI's order is its file walk's: byte-identical, or the
        // same entries in another order, never other entries.
        let summary = app
            .text_of("[data-testid=capture-summary]")
            .await
            .unwrap_or_default();
        if !summary.contains("byte-identical") {
            app.wait_for_text("[data-testid=capture-reordered]", "in another order")
                .await;
        }
        app.wait_for_gone("[data-testid=capture-differences]").await;
        app.screenshot("clients-capture").await;
        app.close().await;
    });
}
