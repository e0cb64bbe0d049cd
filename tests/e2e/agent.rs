//! The agent story: on a planted three-skill library, the Evals tab runs a
//! tiny suite with the `local` provider (Gemma 3 270M, on this machine):
//! the ranker picker offers the agent, "Run with agent" shows the cost
//! preview and says nothing leaves the machine, then the window shows the
//! agent's pick beside the offline pick for every case, the agreement figure,
//! and the confusion heatmap, whose cells list their cases. The test-query
//! panel's "Ask the agent" answers one request beside the offline ranking.
//!
//! The model is required: set-up installs it (`hone model install --llm`),
//! and without it this test fails rather than passes. A local request takes
//! seconds on a loaded 2-core machine, hence the generous deadlines (the
//! answers are cached on disk, so a re-run is quicker).

use std::time::{Duration, Instant};

use crate::harness::{Harness, Painting};

/// Room for the model to load and score three requests on a busy machine.
const RUN_DEADLINE: Duration = Duration::from_secs(900);

const SKILLS: [(&str, &str); 3] = [
    (
        "pdf-forms",
        "Fills in and reads PDF forms: text fields, checkboxes, signatures. Use when a PDF form must be completed.",
    ),
    (
        "deploy-app",
        "Deploys the web app to production and rolls it back. Use when shipping a release.",
    ),
    (
        "git-commits",
        "Writes git commit messages from staged changes. Use when committing code.",
    ),
];

const SUITE: &str = "name: agent\ncases:\n  - query: \"fill in the checkboxes of this PDF form\"\n    expect: [pdf-forms]\n  - query: \"ship the new release to production\"\n    expect: [deploy-app]\n  - query: \"write a commit message for my staged changes\"\n    expect: [git-commits]\n";

#[test]
fn the_agent_story() {
    let model = hone_core::llm::resolve_model_file(None);
    assert!(
        model.installed,
        "the agent story needs the local model at {}: run `hone model install --llm` (scripts/setup.sh does)",
        model.path.display()
    );
    let library = tempfile::tempdir().unwrap();
    for (name, description) in SKILLS {
        let dir = library.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nSteps.\n"),
        )
        .unwrap();
    }
    std::fs::create_dir_all(library.path().join("evals")).unwrap();
    std::fs::write(library.path().join("evals/agent.yaml"), SUITE).unwrap();
    let Some(harness) = Harness::start_with(Some(library.path()), Painting::Composited) else {
        return;
    };
    harness.block_on(story(&harness));
}

async fn story(harness: &Harness) {
    let app = harness.launch().await;
    app.wait_for("[data-skill=pdf-forms]").await;
    app.wait_for(".cm-line").await;

    // The ranker is chosen on the Evals tab; the agent is one of them.
    app.show_tab("evals").await;
    let suite = harness.library().join("evals/agent.yaml");
    app.select("[data-testid=suite]", &suite.display().to_string())
        .await;
    app.select("[data-testid=eval-ranker]", "agent").await;
    app.wait_for("[data-testid=agent-provider] option[value=local]")
        .await;
    app.select("[data-testid=agent-provider]", "local").await;

    // The preview first: calls, tokens, $0, and nothing leaves the machine.
    app.click("[data-testid=agent-run-button]").await;
    app.wait_for_text_within(
        "[data-testid=agent-privacy]",
        "nothing leaves",
        Duration::from_secs(120),
    )
    .await;
    let cost = app.text_of("[data-testid=agent-cost]").await.unwrap();
    assert!(cost.contains("3 cases × 1 run"), "{cost}");
    assert!(cost.ends_with("$0."), "{cost}");
    app.screenshot("agent-preview").await;

    let started = Instant::now();
    app.click("[data-testid=agent-confirm-run]").await;
    app.wait_for_text_within("[data-testid=agent-run]", "Agreement with", RUN_DEADLINE)
        .await;
    println!(
        "e2e: agent run of 3 cases with the local model: {} ms ({})",
        started.elapsed().as_millis(),
        app.text_of("[data-testid=agent-summary]")
            .await
            .unwrap_or_default()
    );

    // The agent column beside the offline pick: a skill (or none) for every case.
    app.wait_for_count("[data-testid=agent-row]", 3).await;
    let picks = app
        .script(
            "return [...document.querySelectorAll('[data-testid=agent-pick]')].map((td) => td.textContent.trim())",
            vec![],
        )
        .await;
    let picks: Vec<String> = serde_json::from_value(picks).unwrap();
    for pick in &picks {
        assert!(
            SKILLS.iter().any(|(name, _)| name == pick) || pick == "(none)",
            "the agent column shows {pick:?}"
        );
    }
    let offline = app
        .script(
            "return [...document.querySelectorAll('[data-testid=offline-pick]')].map((td) => td.textContent.trim())",
            vec![],
        )
        .await;
    assert_eq!(offline.as_array().unwrap().len(), 3);
    // The agreement figure is a share of the three cases.
    let agreement = app.text_of("[data-testid=agent-agreement]").await.unwrap();
    assert!(
        ["0%", "33%", "67%", "100%"]
            .iter()
            .any(|share| agreement.contains(&format!("{share} ("))),
        "{agreement}"
    );
    assert!(agreement.contains("of 3 cases"), "{agreement}");

    // The heatmap: its cells add up to the cases; a click lists a cell's cases.
    let counts = app
        .script(
            "return [...document.querySelectorAll('[data-testid=agent-heatmap] [data-testid=heatmap-cell]')].map((b) => Number(b.textContent))",
            vec![],
        )
        .await;
    let counts: Vec<u64> = serde_json::from_value(counts).unwrap();
    assert_eq!(counts.iter().sum::<u64>(), 3, "{counts:?}");
    app.click("[data-testid=agent-heatmap] [data-testid=heatmap-cell]")
        .await;
    app.wait_for("[data-testid=agent-heatmap] [data-testid=heatmap-case]")
        .await;
    app.screenshot("agent-run-light").await;
    app.select("[data-testid=theme]", "dark").await;
    app.wait_for("html[data-theme=dark]").await;
    app.screenshot("agent-run-dark").await;
    app.select("[data-testid=theme]", "light").await;

    // Ask the agent for one request in the test-query panel.
    app.show_tab("query").await;
    app.clear_and_type(
        "[data-testid=query-input]",
        "fill in the checkboxes of this PDF form",
    )
    .await;
    app.wait_for("[data-testid=result]").await;
    app.click("[data-testid=ask-agent] summary").await;
    app.click("[data-testid=ask-agent-button]").await;
    app.wait_for_text_within("[data-testid=agent-answer]", "Agent (local", RUN_DEADLINE)
        .await;
    let answer = app
        .text_of("[data-testid=agent-answer-pick]")
        .await
        .unwrap();
    assert!(
        SKILLS.iter().any(|(name, _)| *name == answer) || answer == "no skill",
        "{answer}"
    );
    app.screenshot("ask-agent").await;
    app.close().await;
}
