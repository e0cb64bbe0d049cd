//! `hone tokens` and `hone prompt` end to end, on a library made on the spot.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn write_skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir.join("references")).unwrap();
    let text = format!(
        "---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSee references/guide.md.\n"
    );
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    std::fs::write(dir.join("references/guide.md"), "A short guide.\n").unwrap();
    std::fs::write(dir.join("icon.bin"), [0u8, 1, 2, 3]).unwrap();
}

fn library() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(
        &tmp.path().join("alpha"),
        "alpha",
        "Does alpha things. Use when asked about alpha.",
    );
    write_skill(&tmp.path().join("beta"), "beta", "Does beta things & more.");
    tmp
}

fn hone() -> Command {
    Command::cargo_bin("hone").unwrap()
}

#[test]
fn json_report_has_the_documented_shape() {
    let lib = library();
    let out = hone()
        .args(["tokens", "--format", "json"])
        .arg(lib.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["tokenizer"]["name"], "o200k");
    assert_eq!(json["tokenizer"]["exact"], true);
    let skills = json["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 2);
    let alpha = &skills[0];
    assert_eq!(alpha["id"], "alpha");
    assert!(alpha["metadata"]["agentskills"]["tokens"].as_u64().unwrap() > 0);
    assert!(
        alpha["metadata"]["claude_code"]["text"]
            .as_str()
            .unwrap()
            .starts_with("- alpha: ")
    );
    assert!(alpha["instructions"]["tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        alpha["resources"]["files"][0]["path"],
        "references/guide.md"
    );
    assert_eq!(alpha["resources"]["binary"][0]["path"], "icon.bin");
    let catalog = &json["catalog"];
    assert_eq!(catalog["skills"], 2);
    assert!(
        catalog["agentskills"]["text"]
            .as_str()
            .unwrap()
            .contains("Does beta things &amp; more.")
    );
    // Claude Code's default model: 1M tokens × 3 characters a token × 1%.
    assert_eq!(catalog["budget"]["model"], "claude-opus-5-5");
    assert_eq!(catalog["budget"]["budget_chars"], 30_000);
    assert_eq!(catalog["budget"]["builtins"].as_array().unwrap().len(), 13);
    assert_eq!(catalog["budget"]["dropped"].as_array().unwrap().len(), 0);
}

#[test]
fn text_report_marks_claude_counts_as_estimates() {
    let lib = library();
    let out = hone()
        .args(["tokens", "--tokenizer", "claude"])
        .arg(lib.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("instructions"), "{text}");
    assert!(text.contains('~'), "{text}");
    assert!(text.contains("claude (estimate)"), "{text}");
    assert!(text.contains("icon.bin"), "{text}");
}

/// The model sets the budget (a 200K window at 4 characters a token for
/// the 4.5 generation); past it, the library's descriptions go while
/// Claude Code's own skills keep theirs.
#[test]
fn the_model_sets_the_budget_and_small_ones_drop_descriptions() {
    let lib = library();
    let json_for = |budget: Option<&str>| -> Value {
        let mut command = hone();
        command
            .args(["tokens", "--format", "json", "--model", "claude-haiku-4-5"])
            .arg(lib.path())
            .env("HOME", lib.path().join("no-home"))
            .env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET");
        if let Some(budget) = budget {
            command.env("SLASH_COMMAND_TOOL_CHAR_BUDGET", budget);
        }
        serde_json::from_slice(&command.output().unwrap().stdout).unwrap()
    };
    let haiku = json_for(None);
    let budget = &haiku["catalog"]["budget"];
    assert_eq!(budget["model"], "claude-haiku-4-5");
    assert_eq!(budget["budget_chars"], 8_000);
    assert_eq!(budget["chars_per_token"], 4);
    let tight = json_for(Some("100"));
    let budget = &tight["catalog"]["budget"];
    assert_eq!(budget["dropped"], serde_json::json!(["alpha", "beta"]));
    assert!(budget["listing"].as_str().unwrap().contains("- init: "));
    let out = hone()
        .args(["tokens", "--model", "gpt-5"])
        .arg(lib.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "not a Claude model");
}

#[test]
fn raw_counts_files() {
    let lib = library();
    let file = lib.path().join("alpha/references/guide.md");
    let out = hone()
        .args(["tokens", "--raw", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["files"][0]["tokens"], 4);
    assert_eq!(json["tokens"], 4);
}

#[test]
fn unknown_tokenizer_is_a_usage_error() {
    let lib = library();
    let out = hone()
        .args(["tokens", "--tokenizer", "nope"])
        .arg(lib.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tokenizer"));
}

#[test]
fn prompt_prints_both_forms() {
    let lib = library();
    let out = hone().arg("prompt").arg(lib.path()).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("<available_skills>\n<skill>\n<name>\nalpha\n</name>"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("</available_skills>"));
    let out = hone()
        .args(["prompt", "--format", "claude-code"])
        .arg(lib.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(
            "The following skills are available for use with the Skill tool:\n\n- alpha: Does alpha things. Use when asked about alpha.\n- beta: Does beta things & more.\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n- init: "),
        "Claude Code's own skills: {text}"
    );
}

/// Claude Code's listing: the budget is skillListingBudgetFraction of the
/// model's window (`--model claude-sonnet-4-5[1m]`: 1M tokens at 4
/// characters a token), and the library's `.claude/settings.json`
/// (skillOverrides, CHANGELOG 2.1.129) says which skills fall to a bare name.
#[test]
fn listing_reads_settings_and_the_window() {
    let lib = library();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(lib.path().join(".claude")).unwrap();
    std::fs::write(
        lib.path().join(".claude/settings.json"),
        r#"{"skillOverrides": {"beta": "name-only"}, "skillListingBudgetFraction": 0.02}"#,
    )
    .unwrap();
    let out = hone()
        .args([
            "tokens",
            "--format",
            "json",
            "--model",
            "claude-sonnet-4-5[1m]",
        ])
        .arg(lib.path())
        .env("HOME", home.path())
        .env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET")
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let budget = &json["catalog"]["budget"];
    assert_eq!(budget["budget_chars"], 80_000);
    let beta = budget["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "beta")
        .unwrap();
    assert_eq!(beta["status"], "name-only");
    assert_eq!(beta["reason"], "skillOverrides: name-only");
    let out = hone()
        .args(["prompt", "--format", "claude-code"])
        .arg(lib.path())
        .env("HOME", home.path())
        .env("SLASH_COMMAND_TOOL_CHAR_BUDGET", "20")
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(
        listing.contains("- beta\n") || listing.ends_with("- beta\n"),
        "{listing}"
    );
    let notes = String::from_utf8_lossy(&out.stderr);
    assert!(notes.contains("at risk: alpha"), "{notes}");
}

/// `--client` adds each client's listing of the library, from its profile,
/// per model: its own skills, its budget, what drops past it.
#[test]
fn clients_listings_come_from_their_profiles_per_model() {
    let lib = library();
    let json_for = |args: &[&str]| -> Value {
        let out = hone()
            .args(["tokens", "--format", "json"])
            .arg(lib.path())
            .args(args)
            .env("HOME", lib.path().join("no-home"))
            .env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let plain = json_for(&[]);
    assert!(plain.get("clients").is_none(), "unchanged without --client");

    let both = json_for(&["--client", "claude-code", "--client", "opencode"]);
    let clients = both["clients"].as_array().unwrap();
    assert_eq!(clients[0]["client"], "claude-code");
    assert_eq!(clients[0]["model"], "claude-opus-5-5");
    assert_eq!(clients[0]["builtins"], 13);
    assert_eq!(clients[0]["entries"], 15);
    assert_eq!(clients[0]["budget"]["budget_chars"], 30_000);
    assert_eq!(clients[1]["client"], "opencode");
    assert!(clients[1]["budget"].is_null());

    let small = json_for(&["--client", "claude-code", "--model", "claude-haiku-4-5"]);
    let budget = &small["clients"][0]["budget"];
    assert_eq!(budget["context_window_tokens"], 200_000);
    assert_eq!(budget["budget_chars"], 8_000);

    let out = hone()
        .args(["tokens", "--model", "x"])
        .arg(lib.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "without --client, --model is a Claude model"
    );
}
