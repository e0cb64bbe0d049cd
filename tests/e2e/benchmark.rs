//! Issue 41 in the window: the Benchmark tab runs a two-case task suite
//! through the real Claude Code binary with the scripted model (a loopback
//! stand-in that follows each case's script), in both arms, and shows the
//! lift; the case where the skill never loads is set apart as "measured
//! nothing". The report is kept in the library, the comparison with it
//! appears, and the query panel's "+ Task case" appends the request tried
//! to the suite.
//!
//! Claude Code comes from scripts/install-clients.sh (as for `hone bench`'s
//! own tests); the `hone` CLI beside the app isolates each run.

use std::path::Path;
use std::time::Duration;

use hone_core::clients::capture;
use hone_core::clients::{Client, Environment};

use crate::harness::{Harness, Painting};

const SKILL: &str = "---\nname: greet\ndescription: Writes greetings into hello.txt. Use when asked to greet someone.\n---\nWrite the greeting to hello.txt as `Hello, NAME!`.\n";

/// With the skill the scripted model loads it and writes what it asks for;
/// without, a worse greeting. The second case never loads the skill. The
/// nonce makes the cases new to the run cache, so every run is made.
fn suite(nonce: u128) -> String {
    format!(
        r#"# Greeting tasks
name: greet-tasks
skill: greet
cases:
  - name: greets-ada
    prompt: "Greet Ada in hello.txt"
    files: {{nonce.txt: "{nonce}"}}
    allowed_tools: [Write, "Bash(cat:*)"]
    graders:
      - {{type: file_matches, name: exclaims, path: hello.txt, pattern: "Hello, Ada!"}}
      - {{type: skill_loaded, arm: with-only}}
    script:
      - skill: greet
      - {{write: {{path: hello.txt, content: "Hello, Ada!\n"}}, when: loaded}}
      - {{write: {{path: hello.txt, content: "hello ada\n"}}, when: not-loaded}}
      - answer: "Done: wrote hello.txt"
  - name: never-loads
    prompt: "Say hi"
    files: {{notes.txt: "{nonce}"}}
    graders:
      - {{type: command, run: "test -f notes.txt"}}
    script:
      - answer: "hi"
"#
    )
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_benchmark_story() {
    let env = Environment::current();
    assert!(
        capture::find_installed(Client::ClaudeCode, &env).is_some(),
        "Claude Code is not installed in {}: run scripts/install-clients.sh",
        capture::clients_dir(&env).display()
    );
    let library = tempfile::tempdir().unwrap();
    let root = library.path();
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let suite_file = root.join("greet/evals/tasks/greet.yaml");
    write(&root.join("greet/SKILL.md"), SKILL);
    write(&suite_file, &suite(nonce));
    let Some(harness) = Harness::start_with(Some(root), Painting::Composited) else {
        return;
    };
    harness.block_on(async {
        let app = harness.launch().await;
        app.resize(1500, 950).await;
        app.click("[data-skill=greet]").await;
        // A wide inspector, so each arm's runs sit side by side.
        app.script(
            "localStorage.setItem('hone.layout.widths', JSON.stringify({ sidebar: 180, form: 200, inspector: 860 })); return null",
            vec![],
        )
        .await;
        app.reload().await;
        app.show_tab("bench").await;
        app.wait_for_count("[data-testid=bench-cases] li", 2).await;
        app.wait_for_text("[data-testid=bench-skill]", "greet")
            .await;

        // An agent that cannot run tasks says why, and nothing can start.
        app.select("[data-testid=bench-agent]", "copilot").await;
        app.wait_for_text("[data-testid=bench-agent-problem]", "cannot run task evals")
            .await;
        assert!(app.is_disabled("[data-testid=bench-preview]").await);
        app.select("[data-testid=bench-agent]", "claude-code").await;

        // A live run estimated over the ceiling is refused before it starts.
        app.clear_and_type("[data-testid=bench-model]", "claude-haiku-4-5")
            .await;
        app.clear_and_type("[data-testid=bench-max-cost]", "0.01").await;
        app.click("[data-testid=bench-preview]").await;
        app.wait_for_text("[data-testid=bench-over-ceiling]", "over the ceiling of $0.01")
            .await;
        assert!(app.is_disabled("[data-testid=bench-run]").await);
        // It says what a live run could reach: its provider, nothing else.
        app.wait_for_text(
            "[data-testid=bench-isolation]",
            "one way out is the provider at api.anthropic.com:443",
        )
        .await;
        app.click("[data-testid=bench-back]").await;
        app.clear_and_type("[data-testid=bench-model]", "").await;
        app.clear_and_type("[data-testid=bench-max-cost]", "").await;

        // The preview says what runs and that nothing leaves the machine.
        app.clear_and_type("[data-testid=bench-runs]", "2").await;
        app.click("[data-testid=bench-scripted]").await;
        app.click("[data-testid=bench-preview]").await;
        app.wait_for_text("[data-testid=bench-cost]", "8 runs")
            .await;
        app.wait_for_text(
            "[data-testid=bench-destination]",
            "Nothing leaves this machine",
        )
        .await;

        // The real agent runs both arms; the lift is read from the tab.
        app.click("[data-testid=bench-run]").await;
        app.wait_for("[data-testid=bench-running]").await;
        app.wait_for_text_within(
            "[data-testid=bench-lift]",
            "Lift +1.00",
            Duration::from_secs(600),
        )
        .await;
        assert_eq!(
            app.attribute_of("[data-testid=bench-lift]", "data-lift")
                .await
                .as_deref(),
            Some("1.00")
        );
        app.wait_for_text("[data-testid=bench-lift]", "The skill helps")
            .await;
        app.wait_for_text(
            "[data-testid=bench-not-loaded]",
            "Measured nothing — 2 of 4 runs of “with”: the skill did not load",
        )
        .await;
        app.wait_for_text("tr[data-arm=with] [data-testid=bench-pass]", "100%")
            .await;
        app.wait_for_text("tr[data-arm=without] [data-testid=bench-pass]", "50%")
            .await;
        app.click("[data-testid=bench-case][data-case=greets-ada] summary")
            .await;
        app.wait_for_text(
            "[data-testid=bench-case][data-case=greets-ada]",
            "Hello, Ada!",
        )
        .await;
        app.screenshot("benchmark").await;

        // Kept in the library, the report is what later runs compare with.
        app.click("[data-testid=bench-keep]").await;
        app.wait_for_text("[data-testid=bench-compare]", "Lift")
            .await;
        let kept = root.join("evals/bench-runs/greet__evals__tasks__greet.json");
        let kept: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
        assert_eq!(kept["lift"]["mean"], 1.0);

        // The request tried in the query panel becomes a task case.
        app.show_tab("query").await;
        app.clear_and_type("[data-testid=query-input]", "Greet Grace politely")
            .await;
        app.click("[data-testid=add-task-open]").await;
        app.click("[data-testid=add-task-button]").await;
        app.wait_for_text("[data-testid=add-task-note]", "Added to")
            .await;
        let text = std::fs::read_to_string(&suite_file).unwrap();
        assert!(text.starts_with("# Greeting tasks\n"), "{text}");
        assert!(
            text.contains("  - name: greet-grace-politely\n    prompt: \"Greet Grace politely\"\n"),
            "{text}"
        );
        app.show_tab("bench").await;
        app.wait_for_count("[data-testid=bench-cases] li", 3).await;

        // Cancel stops the next runs and keeps the finished ones. New cases
        // (a new nonce), so nothing is answered from the cache.
        write(&suite_file, &suite(nonce + 1));
        app.reload().await;
        app.show_tab("bench").await;
        app.wait_for_count("[data-testid=bench-cases] li", 2).await;
        app.clear_and_type("[data-testid=bench-runs]", "5").await;
        app.click("[data-testid=bench-scripted]").await;
        app.click("[data-testid=bench-preview]").await;
        app.wait_for_text("[data-testid=bench-cost]", "20 runs")
            .await;
        app.click("[data-testid=bench-run]").await;
        app.wait_for_text_within(
            "[data-testid=bench-progress-text]",
            "/ 20 runs",
            Duration::from_secs(300),
        )
        .await;
        app.click("[data-testid=bench-cancel]").await;
        app.wait_for_text_within(
            "[data-testid=bench-stopped]",
            "cancelled: the finished runs are kept",
            Duration::from_secs(300),
        )
        .await;
        app.close().await;
    });
}
