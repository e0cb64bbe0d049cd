//! `hone prompt --client` and `hone clients` from the command line.

use assert_cmd::Command;

// Only `run` is needed here; the bundled library's path is not.
#[allow(dead_code)]
mod common;

/// A scratch project (a git root) and home with one Gemini skill each, one
/// of them with a byte-order mark, which Gemini CLI drops.
fn planted() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join(".gemini/skills/kept")).unwrap();
    std::fs::write(
        project.join(".gemini/skills/kept/SKILL.md"),
        "---\nname: kept\ndescription: Kept <as is>.\n---\nBody\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.path().join("home/.gemini/skills/bom")).unwrap();
    std::fs::write(
        root.path().join("home/.gemini/skills/bom/SKILL.md"),
        "\u{feff}---\nname: bom\ndescription: Dropped.\n---\n",
    )
    .unwrap();
    root
}

#[test]
fn prompt_with_a_client_prints_the_prediction_as_json() {
    let root = planted();
    let (code, stdout, _) = common::run(
        Command::cargo_bin("hone")
            .unwrap()
            .env("HOME", root.path().join("home"))
            .args(["prompt", "--client", "gemini", "--format", "json"])
            .arg(root.path().join("project")),
    );
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["client"], "gemini");
    let entries = json["entries"].as_array().unwrap();
    let kept = entries.iter().find(|e| e["name"] == "kept").unwrap();
    assert_eq!(kept["builtin"], false);
    assert!(
        kept["text"]
            .as_str()
            .unwrap()
            .contains("<description>Kept <as is>.</description>")
    );
    assert_eq!(entries.iter().filter(|e| e["builtin"] == true).count(), 2);
    let left_out = json["left_out"].as_array().unwrap();
    assert!(
        left_out
            .iter()
            .any(|l| l["path"].as_str().unwrap().ends_with("bom/SKILL.md")
                && l["reason"].as_str().unwrap().contains("byte-order mark"))
    );
}

#[test]
fn prompt_with_a_client_refuses_a_library_format() {
    let root = planted();
    let (code, _, stderr) = common::run(
        Command::cargo_bin("hone")
            .unwrap()
            .args(["prompt", "--client", "codex", "--format", "agentskills"])
            .arg(root.path().join("project")),
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("--format is text or json"), "{stderr}");
}

#[test]
fn clients_lists_every_modelled_client() {
    let (code, stdout, _) = common::run(
        Command::cargo_bin("hone")
            .unwrap()
            .args(["clients", "list", "--format", "json"]),
    );
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["client"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["claude-code", "codex", "gemini", "opencode", "copilot"]
    );
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| r["modelled_version"].is_string())
    );
}

/// `hone clients show` runs the installed Gemini CLI (the fastest of the
/// five) on scratch copies of the project, offline, and finds its listing
/// byte-identical to the prediction. The clients are installed by `make
/// test`, so a missing one fails rather than skips.
#[test]
fn clients_show_runs_the_installed_client_and_compares() {
    use hone_core::clients::{Client, Environment, capture};
    let env = Environment::current();
    let clients_dir = capture::clients_dir(&env);
    assert!(
        capture::find_installed(Client::Gemini, &env).is_some(),
        "Gemini CLI is not installed in {}: run scripts/install-clients.sh (make test does)",
        clients_dir.display()
    );
    let root = planted();
    let (code, stdout, stderr) = common::run(
        Command::cargo_bin("hone")
            .unwrap()
            .env("HOME", root.path().join("home"))
            .env("HONE_CLIENTS_DIR", &clients_dir)
            .args(["clients", "show", "--client", "gemini", "--format", "json"])
            .arg(root.path().join("project")),
    );
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["identical"], true, "{stdout}");
    // Two built-ins and the project's skill; the home's has a BOM.
    assert_eq!(json["entries_compared"], 3, "{stdout}");
    assert!(
        json["captured"]
            .as_str()
            .unwrap()
            .contains("<name>kept</name>")
    );
    assert!(
        json["note"]
            .as_str()
            .unwrap()
            .contains("Nothing left this machine")
    );
}
