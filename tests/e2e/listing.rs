//! Claude Code's listing for the model the author picks (a bare name and
//! why, the skills at risk, that the drop order depends on use, the
//! client's own skills counted first) and the compatibility matrix of the
//! open skill, whose findings lead to their lines. The library is built
//! here: a `.claude/settings.json` with a small `skillListingBudgetFraction`
//! puts the listing over budget for claude-sonnet-4-5 (200K tokens at 4
//! characters a token) and within it for the default model (1M at 3), and
//! names one skill `name-only`.

use std::path::Path;

use crate::harness::{Harness, Painting};

/// 0.004 of the window: 3,200 characters for claude-sonnet-4-5, 12,000 for
/// the default model; the listing below, Claude Code's own skills (about
/// 6,200) included, is about 8,000.
const SETTINGS: &str =
    r#"{"skillListingBudgetFraction": 0.004, "skillOverrides": {"bare-one": "name-only"}}"#;

/// No `description`: Claude Code lists the body's first line, the spec's
/// validator refuses the skill (HS201).
const NO_DESCRIPTION: &str = "---\nname: no-desc\n---\n\nTurns meeting notes into action items.\n";

fn skill(name: &str) -> String {
    let filler =
        "It reads the request, checks the inputs and explains each step it takes. ".repeat(4);
    format!(
        "---\nname: {name}\ndescription: Handles {name} tasks. Use when the user asks about {name}. {filler}\n---\n\nBody of {name}.\n"
    )
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_listing_and_clients_story() {
    let library = tempfile::tempdir().unwrap();
    let root = library.path();
    write(&root.join(".claude/settings.json"), SETTINGS);
    for name in ["alpha", "beta", "gamma", "bare-one"] {
        write(&root.join(name).join("SKILL.md"), &skill(name));
    }
    write(&root.join("no-desc/SKILL.md"), NO_DESCRIPTION);
    let Some(harness) = Harness::start_with(Some(root), Painting::Composited) else {
        return;
    };
    harness.block_on(async {
        let app = harness.launch().await;
        app.wait_for("[data-skill=alpha]").await;
        app.show_tab("costs").await;

        // claude-sonnet-4-5: over budget; the override's bare name with its
        // reason, the others at risk, and the order left to use.
        app.select("[data-testid=costs-model]", "claude-sonnet-4-5")
            .await;
        let bare = "[data-testid=listing] tr[data-skill=bare-one][data-status=name-only]";
        app.wait_for_text(bare, "skillOverrides: name-only").await;
        app.wait_for_text(bare, "Bare name").await;
        app.wait_for("[data-testid=listing] tr[data-skill=alpha][data-status=at-risk]")
            .await;
        app.wait_for_text("[data-testid=listing-at-risk]", "depends on use")
            .await;
        app.wait_for_text("[data-testid=listing-budget]", "its budget is 3,200")
            .await;
        app.wait_for_text("[data-testid=listing-settings]", "settings.json")
            .await;
        app.screenshot("listing-200k").await;

        // The default model, 1M tokens at 3 characters a token: within
        // budget; only the override still lists a bare name.
        app.select("[data-testid=costs-model]", "").await;
        app.wait_for_text("[data-testid=listing-budget]", "its budget is 12,000")
            .await;
        app.wait_for_gone("[data-testid=listing-at-risk]").await;
        app.wait_for_gone("[data-testid=listing] tr[data-skill=alpha]")
            .await;
        app.wait_for(bare).await;

        // The skill without a description, per client.
        app.click("[data-skill=no-desc]").await;
        app.wait_for_text("[data-testid=editor]", "meeting notes")
            .await;
        app.show_tab("clients").await;
        let refused = "[data-testid=compat] li[data-target=agentskills][data-verdict=refused]";
        app.wait_for_text(refused, "Refused").await;
        app.wait_for_text(refused, "HS201").await;
        app.wait_for(
            "[data-testid=compat] li[data-target=claude-code][data-verdict=loads-with-changes]",
        )
        .await;
        app.wait_for("[data-testid=compat] li[data-target=claude-api][data-verdict=refused]")
            .await;
        app.screenshot("compatibility").await;
        // A finding leads to its line in the editor.
        app.click(&format!("{refused} button.finding")).await;
        app.wait_for_focus_in("[data-testid=editor]").await;
        app.close().await;
    });
}
