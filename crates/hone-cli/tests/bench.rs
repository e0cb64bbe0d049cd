//! `hone bench` end to end through the real Claude Code binary, with the
//! scripted model on a loopback stand-in: the whole pipeline (workspaces,
//! arms, the agent's own tool calls and transcript, graders, statistics,
//! cache and output formats) runs with no model and no network.
//!
//! Claude Code is installed by `make test` (scripts/install-clients.sh);
//! without it these tests fail and say how to install it.

use std::fs;
use std::path::Path;
use std::process::Command as Process;

use assert_cmd::Command;
use hone_core::clients::capture;
use hone_core::clients::{Client, Environment};
use serde_json::Value;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn require(client: Client) {
    let env = Environment::current();
    assert!(
        capture::find_installed(client, &env).is_some(),
        "{} is not installed in {}: run scripts/install-clients.sh (make test does)",
        client.display_name(),
        capture::clients_dir(&env).display()
    );
}

fn require_claude() {
    require(Client::ClaudeCode);
}

const SKILL_V1: &str = "---\nname: greet\ndescription: Writes greetings into hello.txt. Use when asked to greet someone.\n---\nWrite `Hi NAME`.\n";
const SKILL_V2: &str = "---\nname: greet\ndescription: Writes greetings into hello.txt. Use when asked to greet someone.\n---\nWrite the greeting to hello.txt as `Hello, NAME!`.\n";

/// The scripted model loads the skill when it is listed and then writes the
/// greeting the skill asks for; without the skill it writes a worse one.
/// The second case's script never loads the skill.
const SUITE: &str = r#"
name: greet-tasks
skill: greet
cases:
  - name: greets-ada
    prompt: "Greet Ada in hello.txt"
    allowed_tools: [Write, "Bash(cat:*)"]
    graders:
      - {type: file_matches, name: exclaims, path: hello.txt, pattern: "Hello, Ada!"}
      - {type: regex, name: says-done, pattern: "(?i)done"}
      - {type: skill_loaded, arm: with-only}
      - {type: tool_order, before: Skill, after: Write, arm: with-only}
      - {type: tool_used, tool: Bash, input_match: "cat hello"}
    script:
      - skill: greet
      - {write: {path: hello.txt, content: "Hello, Ada!\n"}, when: loaded}
      - {write: {path: hello.txt, content: "hello ada\n"}, when: not-loaded}
      - run: cat hello.txt
      - answer: "Done: wrote hello.txt"
  - name: never-loads
    prompt: "Say hi"
    files: {notes.txt: "a fixture\n"}
    graders:
      - {type: command, run: "test -f notes.txt"}
    script:
      - answer: "hi"
"#;

/// A git repository holding the library, with the skill at two versions.
fn library() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    write(&lib.join("greet/SKILL.md"), SKILL_V1);
    write(&lib.join("greet/evals/tasks/greet.yaml"), SUITE);
    let git = |args: &[&str]| {
        let status = Process::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(&lib)
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}: {status:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "v1"]);
    write(&lib.join("greet/SKILL.md"), SKILL_V2);
    git(&["commit", "-q", "-am", "v2"]);
    tmp
}

fn bench(lib: &Path, cache: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(lib.join("greet"))
        .args(["--scripted", "--runs", "2", "--jobs", "2", "--cache"])
        .arg(cache)
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn arm<'a>(report: &'a Value, label: &str) -> &'a Value {
    report["arms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["label"] == label)
        .unwrap_or_else(|| panic!("no arm {label} in {report}"))
}

#[test]
fn the_real_agent_runs_both_arms_and_the_lift_is_measured() {
    require_claude();
    let tmp = library();
    let lib = tmp.path().join("lib");
    let cache = tmp.path().join("cache");
    let (code, stdout, stderr) = bench(
        &lib,
        &cache,
        &[
            "--baseline",
            "git:HEAD~1",
            "--format",
            "json",
            "--min",
            "lift=0.5",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}\n{stdout}");
    assert!(stderr.contains("nothing leaves this machine"), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["agent"], "claude-code");
    assert_eq!(report["scripted"], true);

    // With the skill: the agent loaded it and then wrote what it asks for.
    let with = arm(&report, "with");
    assert_eq!(with["runs"], 4, "{with}");
    assert_eq!(with["passed"], 2, "{with}");
    assert_eq!(with["measured"], 2, "{with}");
    // The case whose script never loads the skill measured nothing.
    assert_eq!(with["not_loaded"], 2, "{with}");
    let without = arm(&report, "without");
    assert_eq!(
        (without["measured"].as_u64(), without["passed"].as_u64()),
        (Some(4), Some(2))
    );
    // The earlier version from git was planted and loaded.
    let baseline = arm(&report, "git:HEAD~1");
    assert_eq!(baseline["passed"], 2, "{baseline}");

    let lift = &report["lift"];
    assert_eq!(lift["mean"].as_f64(), Some(1.0), "{lift}");
    assert_eq!(
        lift["cases"], 1,
        "only the case measured in both arms counts"
    );

    // The run's transcript came from the agent itself.
    let run = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["case"] == "greets-ada" && r["arm"] == "with")
        .unwrap();
    let tools: Vec<&str> = run["transcript"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["Skill", "Write", "Bash"], "{run}");
    assert_eq!(run["transcript"]["final_reply"], "Done: wrote hello.txt");
    assert_eq!(run["files"][0][0], "hello.txt");
    assert_eq!(run["files"][0][1], "Hello, Ada!\n");
    let case = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "greets-ada")
        .unwrap();
    assert_eq!(case["never_discriminating"][0], "says-done", "{case}");

    // Again: every run comes from the cache; the text report says the same.
    let (code, stdout, stderr) = bench(&lib, &cache, &["--baseline", "git:HEAD~1"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("12 runs (12 cached)"), "{stderr}");
    assert!(stdout.contains("lift +1.00"), "{stdout}");
    assert!(
        stdout.contains("measured nothing in 2 run(s): the skill did not load"),
        "{stdout}"
    );
}

#[test]
fn junit_a_failed_gate_and_a_refused_cost_ceiling() {
    require_claude();
    let tmp = library();
    let lib = tmp.path().join("lib");
    let cache = tmp.path().join("cache");
    let (code, stdout, stderr) = bench(&lib, &cache, &["--format", "junit", "--min", "pass=1.01"]);
    assert_eq!(code, Some(1), "a failed gate exits 1: {stderr}");
    assert!(stdout.starts_with("<?xml"), "{stdout}");
    assert!(stdout.contains("name=\"greets-ada [without]\""), "{stdout}");
    assert!(stdout.contains("exclaims: hello.txt: no match"), "{stdout}");

    // A live run over the ceiling is refused before anything runs.
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(lib.join("greet"))
        .args([
            "--model",
            "claude-haiku-4-5",
            "--max-cost",
            "0.0001",
            "--no-cache",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("over --max-cost"), "{stderr}");
    assert!(stderr.contains("go to Claude Code's provider"), "{stderr}");
}

#[test]
fn the_bundled_suite_shows_the_skill_helping_with_the_scripted_model() {
    require_claude();
    let tmp = tempfile::tempdir().unwrap();
    let skills = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(&skills)
        .args(["--scripted", "--runs", "1", "--format", "json", "--cache"])
        .arg(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["skill"], "git-commit-messages");
    assert_eq!(arm(&report, "with")["pass_rate"], 1.0, "{report}");
    assert_eq!(arm(&report, "without")["pass_rate"], 0.0, "{report}");
    assert_eq!(report["lift"]["verdict"], "helps", "{report}");
}

/// Codex loads a skill by reading its SKILL.md and does everything through
/// its shell tool, inside its own sandbox.
const CODEX_SUITE: &str = r#"
name: greet-codex
skill: greet
cases:
  - name: greets-ada
    prompt: "Greet Ada in hello.txt"
    graders:
      - {type: file_matches, name: exclaims, path: hello.txt, pattern: "Hello, Ada!"}
      - {type: skill_loaded, arm: with-only}
      - {type: tool_used, tool: exec_command, input_match: "hello.txt"}
    script:
      - skill: greet
      - {write: {path: hello.txt, content: "Hello, Ada!\n"}, when: loaded}
      - {write: {path: hello.txt, content: "hello ada\n"}, when: not-loaded}
      - answer: "Done: wrote hello.txt"
"#;

#[test]
fn codex_runs_both_arms_through_its_own_shell() {
    require(Client::Codex);
    let tmp = library();
    let lib = tmp.path().join("lib");
    let suite = tmp.path().join("codex.yaml");
    fs::write(&suite, CODEX_SUITE).unwrap();
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(lib.join("greet"))
        .arg(&suite)
        .args([
            "--agent",
            "codex",
            "--scripted",
            "--runs",
            "2",
            "--no-cache",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["agent"], "codex");
    let with = arm(&report, "with");
    assert_eq!(
        (with["measured"].as_u64(), with["passed"].as_u64()),
        (Some(2), Some(2)),
        "{report}"
    );
    let without = arm(&report, "without");
    assert_eq!(without["passed"], 0, "{report}");
    assert_eq!(report["lift"]["mean"].as_f64(), Some(1.0), "{report}");
    let run = &report["runs"][0];
    assert_eq!(run["transcript"]["skills_loaded"][0], "greet", "{run}");
    assert_eq!(run["transcript"]["final_reply"], "Done: wrote hello.txt");

    // A live Codex run is refused with the reason.
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(lib.join("greet"))
        .arg(&suite)
        .args(["--agent", "codex", "--preview"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("only with --scripted"));
}
