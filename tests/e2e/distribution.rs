//! Issue 43 in the window: the library exported as a Claude Code plugin
//! (the validator's checks shown before anything is written, the version
//! raised by a patch), then a skill installed into two clients of a scratch
//! project from the "Install into…" dialog: the plan says where each file
//! goes, the project's `skills-lock.json` is written, a copy edited by hand
//! is kept until the user replaces it, and a copy is uninstalled.

use std::path::Path;

use crate::harness::{Harness, Painting};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const PACKAGE: &str = r#"{"package": {"name": "team-skills", "version": "1.0.0", "description": "Our team's skills.", "author": {"name": "Ada"}, "license": "MIT"}}"#;

#[test]
fn the_distribution_story() {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().join("team-skills");
    write(
        &root.join("pdf-forms/SKILL.md"),
        "---\nname: pdf-forms\ndescription: Fills in PDF forms. Use when the user asks to fill a PDF form.\n---\n\nRead the form's fields first.\n",
    );
    write(&root.join("pdf-forms/reference.md"), "# Field types\n");
    write(
        &root.join("release-notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Writes release notes from merged changes. Use when preparing a release.\n---\n\nGroup changes by area.\n",
    );
    write(&root.join("evals/hone-settings.json"), PACKAGE);
    let project = scratch.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let plugin = scratch.path().join("dist/team-plugin");
    std::fs::create_dir_all(plugin.parent().unwrap()).unwrap();

    let Some(harness) = Harness::start_with(Some(&root), Painting::Composited) else {
        return;
    };
    harness.block_on(async {
        let app = harness.launch().await;
        app.wait_for("[data-skill=pdf-forms]").await;

        // Export the library as a plugin: checked first, then written.
        app.click("[data-testid=open-export]").await;
        app.select("[data-testid=export-format]", "plugin").await;
        app.wait_for("[data-testid=export-whole-library]").await;
        app.wait_for("[data-testid=export-check][data-verdict=passes]")
            .await;
        app.select("[data-testid=export-bump]", "patch").await;
        app.clear_and_type("[data-testid=export-output]", &plugin.display().to_string())
            .await;
        app.click("[data-testid=export-button]").await;
        app.wait_for_text("[data-testid=export-summary]", "team-skills@1.0.1")
            .await;
        app.wait_for_text("[data-testid=export-summary]", "team-skills:pdf-forms")
            .await;
        app.screenshot("export-plugin").await;
        let manifest: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(plugin.join(".claude-plugin/plugin.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(manifest["version"], "1.0.1");
        assert!(plugin.join("skills/pdf-forms/reference.md").is_file());
        assert!(
            std::fs::read_to_string(root.join("evals/hone-settings.json"))
                .unwrap()
                .contains("1.0.1"),
            "the library's version is raised"
        );
        app.click("[data-testid=export-dialog] .buttons button:first-child")
            .await;
        app.wait_for_gone("[data-testid=export-dialog]").await;

        // Install the open skill into Claude Code's folder of the project.
        app.click("[data-skill=pdf-forms]").await;
        app.click("[data-testid=open-install]").await;
        app.wait_for("[data-testid=install-dialog]").await;
        app.clear_and_type(
            "[data-testid=install-project]",
            &project.display().to_string(),
        )
        .await;
        app.wait_for("[data-testid=install-plan] [data-plan-skill=pdf-forms][data-action=add]")
            .await;
        app.wait_for_text("[data-testid=install-plan]", ".claude/skills/pdf-forms")
            .await;
        app.wait_for_text("[data-testid=install-plan]", "reference.md")
            .await;
        app.wait_for_text("[data-testid=install-lockfile]", "skills-lock.json")
            .await;
        assert!(!project.join(".claude").exists(), "the plan writes nothing");
        app.click("[data-testid=install-button]").await;
        app.wait_for_text("[data-testid=install-done]", "pdf-forms: added")
            .await;

        // And into Codex's, with its provenance recorded.
        app.select("[data-testid=install-client]", "codex").await;
        app.click("[data-testid=install-provenance]").await;
        app.wait_for_text("[data-testid=install-plan]", ".agents/skills/pdf-forms")
            .await;
        app.wait_for_text("[data-testid=install-plan]", "records:")
            .await;
        app.click("[data-testid=install-button]").await;
        app.wait_for_text("[data-testid=install-done]", ".agents/skills/pdf-forms")
            .await;
        let codex_copy =
            std::fs::read_to_string(project.join(".agents/skills/pdf-forms/SKILL.md")).unwrap();
        assert!(
            codex_copy.contains("metadata:\n  local-path: "),
            "{codex_copy}"
        );
        let lock: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(project.join("skills-lock.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(lock["skills"]["pdf-forms"]["sourceType"], "local");
        assert_eq!(lock["skills"]["pdf-forms"]["source"], "../team-skills");

        // A copy edited by hand is kept, with what differs, until replaced.
        write(
            &project.join(".claude/skills/pdf-forms/reference.md"),
            "edited by hand\n",
        );
        app.click("[data-testid=install-provenance]").await;
        app.select("[data-testid=install-client]", "claude-code")
            .await;
        app.wait_for("[data-testid=install-plan] [data-plan-skill=pdf-forms][data-action=keep]")
            .await;
        app.wait_for_text("[data-testid=install-plan]", "1 changed")
            .await;
        app.wait_for_text(
            "[data-testid=install-differs]",
            "pdf-forms is installed there",
        )
        .await;
        app.screenshot("install").await;
        app.click("[data-testid=install-replace]").await;
        app.wait_for_text("[data-testid=install-done]", "pdf-forms: replaced")
            .await;
        assert_eq!(
            std::fs::read_to_string(project.join(".claude/skills/pdf-forms/reference.md")).unwrap(),
            "# Field types\n"
        );

        // Uninstall the Codex copy: gone, and nothing else is, not even the
        // lockfile's entry, which Claude Code's copy still needs.
        app.select("[data-testid=install-client]", "codex").await;
        app.wait_for("[data-testid=install-plan] [data-plan-skill=pdf-forms][data-action=keep]")
            .await;
        app.click("[data-testid=install-uninstall]").await;
        app.wait_for_text("[data-testid=install-removed]", "pdf-forms: removed")
            .await;
        assert!(!project.join(".agents/skills/pdf-forms").exists());
        assert!(project.join(".claude/skills/pdf-forms/SKILL.md").is_file());
        let lock: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(project.join("skills-lock.json")).unwrap(),
        )
        .unwrap();
        assert!(
            lock["skills"]["pdf-forms"].is_object(),
            "Claude Code's copy keeps its lockfile entry: {lock}"
        );
        app.close().await;
    });
}
