//! `hone bench` end to end through the real Claude Code binary, with the
//! scripted model on a loopback stand-in: the whole pipeline (workspaces,
//! arms, the agent's own tool calls and transcript, graders, statistics,
//! cache and output formats) runs with no model and no network.
//!
//! Claude Code is installed by `make test` (scripts/install-clients.sh);
//! without it these tests fail and say how to install it.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use hone_core::clients::capture;
use hone_core::clients::{Client, Environment};
use hone_testkit::git::git;
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
    git(&lib, &["init", "-q"]);
    git(&lib, &["add", "."]);
    git(&lib, &["commit", "-q", "-m", "v1"]);
    write(&lib.join("greet/SKILL.md"), SKILL_V2);
    git(&lib, &["commit", "-q", "-am", "v2"]);
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
    assert!(stderr.contains("over the ceiling"), "{stderr}");
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
    allowed_tools: [Write]
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

/// `hone bench --agent AGENT --scripted` on the greeting library with
/// `suite`, two runs a case and arm, checked for what every scripted agent
/// CLI must show: both arms measured, the skill loaded and helping; the
/// report, and the library's folder for more commands.
fn scripted_client_bench(client: Client, suite: &str) -> (Value, tempfile::TempDir) {
    require(client);
    let tmp = library();
    let path = tmp.path().join("suite.yaml");
    fs::write(&path, suite).unwrap();
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(tmp.path().join("lib/greet"))
        .arg(&path)
        .args(["--agent", client.as_str(), "--scripted", "--runs", "2"])
        .args(["--no-cache", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["agent"], client.as_str());
    let with = arm(&report, "with");
    assert_eq!(
        (with["measured"].as_u64(), with["passed"].as_u64()),
        (Some(2), Some(2)),
        "{report}"
    );
    assert_eq!(arm(&report, "without")["passed"], 0, "{report}");
    assert_eq!(report["lift"]["mean"].as_f64(), Some(1.0), "{report}");
    let run = &report["runs"][0];
    assert_eq!(run["transcript"]["skills_loaded"][0], "greet", "{run}");
    assert_eq!(run["transcript"]["final_reply"], "Done: wrote hello.txt");
    (report, tmp)
}

#[test]
fn codex_runs_both_arms_through_its_own_shell() {
    scripted_client_bench(Client::Codex, CODEX_SUITE);
}

/// The model the loopback APIs play: it loads the skill when it is offered,
/// then greets as the skill says; without it, greets plainly. Each answer
/// uses 1,000 input and 100 output tokens. `body` is a Messages or a Chat
/// Completions request; the answer is in the same wire format.
fn play(body: &Value) -> Value {
    use serde_json::json;
    let offered = body.get("tools").is_some();
    let chat = body["messages"][0]["role"] == "system";
    // Chat Completions carries the system prompt as its first message.
    let turn = body["messages"].as_array().map_or(0, Vec::len) - usize::from(chat);
    let call = offered && turn == 1;
    let text = if body.to_string().contains("Hello, NAME!") {
        "Hello, Ada!"
    } else {
        "hello ada"
    };
    if chat {
        let message = if call {
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "Skill", "arguments": "{\"skill\":\"greet\"}"}}]})
        } else {
            json!({"role": "assistant", "content": text})
        };
        return json!({"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": if call { "tool_calls" } else { "stop" }}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}});
    }
    let usage = json!({"input_tokens": 1000, "output_tokens": 100});
    if call {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "t1",
            "name": "Skill", "input": {"skill": "greet"}}], "stop_reason": "tool_use", "usage": usage})
    } else {
        json!({"id": "msg_2", "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "usage": usage})
    }
}

/// One HTTP request to a loopback API.
struct Request {
    method: String,
    path: String,
    headers: String,
    body: Vec<u8>,
}

/// Serves each connection on a thread of its own with `answer` (status,
/// content type, body), until the test ends.
fn serve(answer: impl Fn(Request) -> (u16, &'static str, String) + Send + Sync + 'static) -> u16 {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let answer = std::sync::Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                let _ = reader.read_line(&mut request_line);
                let mut parts = request_line.split_whitespace();
                let method = parts.next().unwrap_or_default().to_string();
                let path = parts.next().unwrap_or_default().to_string();
                let (mut length, mut headers) = (0, String::new());
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    headers.push_str(&line);
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let (status, content_type, text) = answer(Request {
                    method,
                    path,
                    headers,
                    body,
                });
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                );
            });
        }
    });
    port
}

/// A loopback Messages and Chat Completions API playing [`play`].
fn model_api() -> u16 {
    serve(|request| {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        (200, "application/json", play(&body).to_string())
    })
}

/// The greeting suite for an API agent: only the reply and the skill's
/// loading can be graded.
const API_SUITE: &str = "skill: greet\ncases:\n  - name: greets\n    prompt: Greet Ada\n    graders:\n      - {type: regex, pattern: 'Hello, Ada!'}\n      - {type: skill_loaded, arm: with-only}\n";

/// `hone bench` with an API agent (its key in `key_var`) at `base_url`,
/// two runs a case and arm.
fn bench_api(
    tmp: &Path,
    agent: &str,
    key_var: &str,
    base_url: &str,
    extra: &[&str],
) -> (Option<i32>, String, String) {
    let suite = tmp.join("api.yaml");
    fs::write(&suite, API_SUITE).unwrap();
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(tmp.join("lib/greet"))
        .arg(&suite)
        .args(["--agent", agent, "--runs", "2", "--format", "json"])
        .args(["--base-url", base_url])
        .args(extra)
        .env(key_var, "sk-test-secret")
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The report of an API agent's greeting suite: the lift is 1 and each arm
/// cost two runs of two 1,000-in, 100-out turns (with) or one (without).
fn assert_api_report(stdout: &str, agent: &str, input_price: f64, output_price: f64) -> Value {
    let report: Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(report["agent"], agent);
    assert_eq!(arm(&report, "with")["passed"], 2, "{report}");
    assert_eq!(arm(&report, "without")["passed"], 0, "{report}");
    assert_eq!(report["lift"]["mean"].as_f64(), Some(1.0));
    let with = arm(&report, "with");
    let expected = 2.0 * (2000.0 * input_price + 200.0 * output_price) / 1e6;
    assert!(
        (with["cost_usd"].as_f64().unwrap() - expected).abs() < 1e-9,
        "{with}"
    );
    assert!(report["lift_per_dollar"].as_f64().is_some());
    report
}

#[test]
fn the_messages_api_as_the_agent_with_a_skill_tool() {
    let tmp = library();
    let base = format!("http://127.0.0.1:{}", model_api());
    let (code, stdout, stderr) = bench_api(
        tmp.path(),
        "anthropic",
        "ANTHROPIC_API_KEY",
        &base,
        &["--model", "claude-haiku-4-5", "--no-cache"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("go to Anthropic's API"), "{stderr}");
    // Priced from the bundled table: Haiku 4.5 at $1 and $5 per million tokens.
    assert_api_report(&stdout, "anthropic", 1.0, 5.0);
}

#[test]
fn chat_completions_as_the_agent_with_a_skill_tool() {
    let tmp = library();
    let keys = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = keys.clone();
    let port = serve(move |request| {
        seen.lock().unwrap().push(request.headers.clone());
        assert_eq!(
            (request.method.as_str(), request.path.as_str()),
            ("POST", "/v1/chat/completions")
        );
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        (200, "application/json", play(&body).to_string())
    });
    let base = format!("http://127.0.0.1:{port}/v1");
    let (code, stdout, stderr) = bench_api(
        tmp.path(),
        "openai",
        "OPENAI_API_KEY",
        &base,
        &["--no-cache"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("go to OpenAI's API"), "{stderr}");
    // The default model, GPT-5 mini, at $0.25 and $2 per million tokens.
    assert!(stderr.contains("on gpt-5-mini"), "{stderr}");
    let report = assert_api_report(&stdout, "openai", 0.25, 2.0);
    assert_eq!(report["agent_version"], "chat-completions-api");
    // The key went in the authorization header only.
    let headers = keys.lock().unwrap();
    assert_eq!(
        headers.len(),
        6,
        "two turns with the skill, one without, twice"
    );
    assert!(
        headers
            .iter()
            .all(|h| h.contains("authorization: Bearer sk-test-secret"))
    );
    assert!(!stdout.contains("sk-test-secret") && !stderr.contains("sk-test-secret"));
}

/// Gemini CLI loads a skill with `activate_skill` and writes with
/// `write_file`; its tools are offered in `--approval-mode yolo`.
const GEMINI_SUITE: &str = r#"
name: greet-gemini
skill: greet
cases:
  - name: greets-ada
    prompt: "Greet Ada in hello.txt"
    allowed_tools: [Write]
    graders:
      - {type: file_matches, name: exclaims, path: hello.txt, pattern: "Hello, Ada!"}
      - {type: skill_loaded, arm: with-only}
      - {type: tool_used, tool: write_file}
    script:
      - skill: greet
      - {write: {path: hello.txt, content: "Hello, Ada!\n"}, when: loaded}
      - {write: {path: hello.txt, content: "hello ada\n"}, when: not-loaded}
      - answer: "Done: wrote hello.txt"
"#;

/// A case that may write but not run commands: the agent's command does not
/// run. Codex, whose commands are its only tool, cannot tell the two apart,
/// so it has only the second case.
const MAY_WRITE: &str = r#"
  - name: writes-but-runs-nothing
    prompt: "Greet Ada in hello.txt"
    allowed_tools: [Write]
    graders:
      - {type: file_exists, path: hello.txt}
      - {type: command, run: "test ! -e ran.txt"}
    script:
      - {write: {path: hello.txt, content: "Hello, Ada!\n"}}
      - run: touch ran.txt
      - answer: "Done"
"#;

/// A case that declares no tool: the agent can read, but not write.
const MAY_READ: &str = r#"
  - name: read-only
    prompt: "Greet Ada in hello.txt"
    graders:
      - {type: command, run: "test ! -e hello.txt"}
    script:
      - {write: {path: hello.txt, content: "Hello, Ada!\n"}}
      - answer: "Done"
"#;

/// `hone bench --agent AGENT --scripted` on `cases`: each case's graders
/// check that the agent could do no more than its `allowed_tools`, written
/// in Claude Code's syntax and translated for the agent.
fn the_agent_may_do_only_what_the_case_allows(client: Client, cases: &[&str]) {
    require(client);
    let tmp = library();
    let path = tmp.path().join("suite.yaml");
    fs::write(
        &path,
        format!("name: least\nskill: greet\ncases:{}", cases.concat()),
    )
    .unwrap();
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(tmp.path().join("lib/greet"))
        .arg(&path)
        .args(["--agent", client.as_str(), "--scripted", "--runs", "1"])
        .args(["--arms", "without", "--no-cache", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    for run in report["runs"].as_array().unwrap() {
        assert_eq!(run["outcome"], "passed", "{run}");
    }
    assert_eq!(report["runs"].as_array().unwrap().len(), cases.len());
}

#[test]
fn claude_code_may_do_only_what_the_case_allows() {
    the_agent_may_do_only_what_the_case_allows(Client::ClaudeCode, &[MAY_WRITE, MAY_READ]);
}

#[test]
fn codex_may_do_only_what_the_case_allows() {
    the_agent_may_do_only_what_the_case_allows(Client::Codex, &[MAY_READ]);
}

#[test]
fn gemini_may_do_only_what_the_case_allows() {
    the_agent_may_do_only_what_the_case_allows(Client::Gemini, &[MAY_WRITE, MAY_READ]);
}

#[test]
fn opencode_may_do_only_what_the_case_allows() {
    the_agent_may_do_only_what_the_case_allows(Client::Opencode, &[MAY_WRITE, MAY_READ]);
}

#[test]
fn gemini_runs_both_arms_with_its_own_tools() {
    scripted_client_bench(Client::Gemini, GEMINI_SUITE);
}

/// OpenCode loads a skill with its `skill` tool and writes with `write`;
/// its model speaks Chat Completions to the stand-in.
const OPENCODE_SUITE: &str = r#"
name: greet-opencode
skill: greet
cases:
  - name: greets-ada
    prompt: "Greet Ada in hello.txt"
    allowed_tools: [Write, "Bash(cat:*)"]
    graders:
      - {type: file_matches, name: exclaims, path: hello.txt, pattern: "Hello, Ada!"}
      - {type: skill_loaded, arm: with-only}
      - {type: tool_used, tool: write}
      - {type: tool_used, tool: bash, input_match: "cat hello.txt"}
    script:
      - skill: greet
      - {write: {path: hello.txt, content: "Hello, Ada!\n"}, when: loaded}
      - {write: {path: hello.txt, content: "hello ada\n"}, when: not-loaded}
      - run: cat hello.txt
      - answer: "Done: wrote hello.txt"
"#;

#[test]
fn opencode_runs_both_arms_with_its_own_tools() {
    let rg = std::process::Command::new("rg").arg("--version").output();
    assert!(
        rg.is_ok_and(|o| o.status.success()),
        "OpenCode's skill tool needs ripgrep on PATH: run scripts/setup.sh (it installs the Debian package)"
    );
    let (report, _tmp) = scripted_client_bench(Client::Opencode, OPENCODE_SUITE);
    let run = |arm: &str| {
        report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["arm"] == arm)
            .unwrap()
            .clone()
    };
    let with = run("with");
    let tools: Vec<&str> = with["transcript"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["skill", "write", "bash"], "{with}");
    assert_eq!(with["transcript"]["finished"], true);
    let without = run("without");
    assert_eq!(without["files"][0][1], "hello ada\n", "{without}");
}

/// What a loopback batch API does with each request it processes, in the
/// order processed; every request after the list is answered.
#[derive(Clone, Copy, PartialEq)]
enum Fate {
    Fail,
    Expire,
    Cancel,
}

/// One batch of a loopback batch API: its requests (`custom_id`, body),
/// how often it was polled, and its result lines once it ended.
struct LoopbackBatch {
    requests: Vec<(String, Value)>,
    polls: usize,
    lines: Option<(Vec<String>, Vec<String>, bool)>,
}

#[derive(Default)]
struct BatchServer {
    batches: Vec<LoopbackBatch>,
    files: Vec<String>,
    fates: std::collections::VecDeque<Fate>,
    /// Requests submitted over every batch.
    submitted: usize,
}

/// A loopback Anthropic Message Batches and OpenAI Batch API in their wire
/// formats, playing [`play`]. A batch is in progress at its first poll and
/// ended from the second on.
fn batch_api(fates: &[Fate]) -> (u16, std::sync::Arc<std::sync::Mutex<BatchServer>>) {
    use serde_json::json;
    let server = std::sync::Arc::new(std::sync::Mutex::new(BatchServer {
        fates: fates.iter().copied().collect(),
        ..BatchServer::default()
    }));
    let shared = server.clone();
    let port = serve(move |request| {
        let mut server = shared.lock().unwrap();
        assert!(
            request.headers.contains("x-api-key: sk-test-secret")
                || request
                    .headers
                    .contains("authorization: Bearer sk-test-secret"),
            "{}",
            request.headers
        );
        let host = request
            .headers
            .lines()
            .find_map(|l| {
                l.strip_prefix("host: ")
                    .or_else(|| l.strip_prefix("Host: "))
            })
            .unwrap_or_default()
            .trim()
            .to_string();
        let parts: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let answer = match (request.method.as_str(), parts.as_slice()) {
            ("POST", ["v1", "messages", "batches"]) => {
                let requests: Vec<(String, Value)> = body["requests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        (
                            r["custom_id"].as_str().unwrap().to_string(),
                            r["params"].clone(),
                        )
                    })
                    .collect();
                let number = server.add(requests);
                json!({"id": format!("msgbatch_{number}"), "type": "message_batch",
                    "processing_status": "in_progress", "results_url": null})
            }
            ("GET", ["v1", "messages", "batches", id]) => {
                let index = id.trim_start_matches("msgbatch_").parse::<usize>().unwrap() - 1;
                let ended = server.poll(index, true);
                json!({"id": id, "type": "message_batch",
                    "processing_status": if ended { "ended" } else { "in_progress" },
                    "results_url": ended.then(|| format!("http://{host}/v1/messages/batches/{id}/results"))})
            }
            ("GET", ["v1", "messages", "batches", id, "results"]) => {
                let index = id.trim_start_matches("msgbatch_").parse::<usize>().unwrap() - 1;
                let (lines, _, _) = server.batches[index].lines.clone().unwrap();
                return (200, "application/binary", lines.join("\n"));
            }
            ("POST", ["v1", "files"]) => {
                let form = String::from_utf8_lossy(&request.body).into_owned();
                assert!(form.contains("name=\"purpose\"\r\n\r\nbatch\r\n"), "{form}");
                let start = form.find("filename=\"batch.jsonl\"").unwrap();
                let content = &form[start..];
                let content = &content[content.find("\r\n\r\n").unwrap() + 4..];
                let content = &content[..content.find("\r\n--").unwrap()];
                server.files.push(content.to_string());
                json!({"id": format!("file-{}", server.files.len()), "object": "file",
                    "bytes": content.len(), "filename": "batch.jsonl", "purpose": "batch"})
            }
            ("POST", ["v1", "batches"]) => {
                assert_eq!(body["endpoint"], "/v1/chat/completions");
                assert_eq!(body["completion_window"], "24h");
                let file = body["input_file_id"].as_str().unwrap();
                let index = file.trim_start_matches("file-").parse::<usize>().unwrap() - 1;
                let requests: Vec<(String, Value)> = server.files[index]
                    .lines()
                    .map(|line| {
                        let line: Value = serde_json::from_str(line).unwrap();
                        assert_eq!(line["url"], "/v1/chat/completions");
                        (
                            line["custom_id"].as_str().unwrap().to_string(),
                            line["body"].clone(),
                        )
                    })
                    .collect();
                let number = server.add(requests);
                json!({"id": format!("batch_{number}"), "object": "batch",
                    "endpoint": "/v1/chat/completions", "input_file_id": file, "completion_window": "24h",
                    "status": "validating", "output_file_id": null, "error_file_id": null,
                    "request_counts": {"total": 0, "completed": 0, "failed": 0}})
            }
            ("GET", ["v1", "batches", id]) => {
                let index = id.trim_start_matches("batch_").parse::<usize>().unwrap() - 1;
                let ended = server.poll(index, false);
                let (_, errors, expired) = server.batches[index].lines.clone().unwrap_or_default();
                let status = match (ended, expired) {
                    (false, _) => "in_progress",
                    (true, true) => "expired",
                    (true, false) => "completed",
                };
                json!({"id": id, "object": "batch", "endpoint": "/v1/chat/completions", "status": status,
                    "output_file_id": ended.then(|| format!("out-{}", index + 1)),
                    "error_file_id": (ended && !errors.is_empty()).then(|| format!("err-{}", index + 1))})
            }
            ("GET", ["v1", "files", id, "content"]) => {
                let (kind, index) = id.split_once('-').unwrap();
                let (lines, errors, _) = server.batches[index.parse::<usize>().unwrap() - 1]
                    .lines
                    .clone()
                    .unwrap();
                let text = if kind == "out" { lines } else { errors };
                return (200, "application/octet-stream", text.join("\n"));
            }
            other => panic!("unexpected request {other:?}"),
        };
        (200, "application/json", answer.to_string())
    });
    (port, server)
}

impl BatchServer {
    /// A new batch of `requests`; its number, from 1.
    fn add(&mut self, requests: Vec<(String, Value)>) -> usize {
        self.submitted += requests.len();
        self.batches.push(LoopbackBatch {
            requests,
            polls: 0,
            lines: None,
        });
        self.batches.len()
    }

    /// Polls a batch; when it ends, its result lines are made: (results or
    /// output lines, error lines, whether a request expired).
    fn poll(&mut self, index: usize, anthropic: bool) -> bool {
        use serde_json::json;
        let fates: Vec<Option<Fate>> = {
            let batch = &mut self.batches[index];
            batch.polls += 1;
            if batch.polls < 2 || batch.lines.is_some() {
                return batch.polls >= 2;
            }
            (0..batch.requests.len())
                .map(|_| self.fates.pop_front())
                .collect()
        };
        let batch = &mut self.batches[index];
        let (mut lines, mut errors, mut expired) = (Vec::new(), Vec::new(), false);
        for ((id, body), fate) in batch.requests.iter().zip(fates) {
            expired |= fate == Some(Fate::Expire);
            if anthropic {
                let result = match fate {
                    None => json!({"type": "succeeded", "message": play(body)}),
                    Some(Fate::Fail) => json!({"type": "errored", "error": {"type": "error",
                        "error": {"type": "api_error", "message": "Internal server error"}}}),
                    Some(Fate::Expire) => json!({"type": "expired"}),
                    Some(Fate::Cancel) => json!({"type": "canceled"}),
                };
                lines.push(json!({"custom_id": id, "result": result}).to_string());
                continue;
            }
            match fate {
                None => lines.push(json!({"id": "batch_req_1", "custom_id": id, "error": null,
                    "response": {"status_code": 200, "request_id": "req_1", "body": play(body)}}).to_string()),
                Some(Fate::Fail) => errors.push(json!({"id": "batch_req_2", "custom_id": id, "error": null,
                    "response": {"status_code": 500, "request_id": "req_2",
                        "body": {"error": {"message": "The server had an error", "type": "server_error"}}}}).to_string()),
                Some(Fate::Expire) => errors.push(json!({"id": "batch_req_3", "custom_id": id, "response": null,
                    "error": {"code": "batch_expired",
                        "message": "This request could not be executed before the completion window expired."}}).to_string()),
                Some(Fate::Cancel) => errors.push(json!({"id": "batch_req_4", "custom_id": id, "response": null,
                    "error": {"code": "batch_cancelled",
                        "message": "This request was not executed because the batch was cancelled."}}).to_string()),
            }
        }
        batch.lines = Some((lines, errors, expired));
        true
    }
}

#[test]
fn anthropic_batches_resume_where_the_last_invocation_stopped() {
    let tmp = library();
    let cache = tmp.path().join("cache");
    let cache = cache.to_str().unwrap();
    // The first request the batch API processes is cancelled.
    let (port, server) = batch_api(&[Fate::Cancel]);
    let base = format!("http://127.0.0.1:{port}");
    let batch = ["--batch", "--model", "claude-haiku-4-5", "--cache", cache];
    let bench = |extra: &[&str]| {
        let args: Vec<&str> = batch.iter().chain(extra).copied().collect();
        bench_api(tmp.path(), "anthropic", "ANTHROPIC_API_KEY", &base, &args)
    };

    // The preview prices the batch at half.
    let (code, _, stderr) = bench(&["--preview"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("at the batch price (half)"), "{stderr}");

    // The first turn of the four runs goes in a batch; nothing is waited for.
    let (code, stdout, stderr) = bench(&[]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("submitted 4 turn(s)"), "{stderr}");
    assert!(
        stderr.contains("4 of 4 run(s) waiting in batch msgbatch_1"),
        "{stderr}"
    );
    assert!(stderr.contains("run the same command again"), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    let states: Vec<_> = fs::read_dir(tmp.path().join("cache/batches"))
        .unwrap()
        .collect();
    assert_eq!(states.len(), 1);

    // Run again while it is processing: nothing is submitted twice.
    let (code, _, stderr) = bench(&[]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(!stderr.contains("submitted"), "{stderr}");
    assert_eq!(server.lock().unwrap().batches.len(), 1);

    // Once it ended: the runs without the skill finish, those with it
    // called the Skill tool and their next turn goes in a second batch; the
    // cancelled request's run is an error, to be submitted again.
    let (code, _, stderr) = bench(&[]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("1 run(s) got no answer in their batch"),
        "{stderr}"
    );
    assert!(stderr.contains("msgbatch_2"), "{stderr}");

    // Waiting collects the rest, the cancelled run's turns included.
    let (code, stdout, stderr) = bench(&["--wait", "--poll", "0"]);
    assert_eq!(code, Some(0), "{stderr}");
    let report = assert_api_report(&stdout, "anthropic", 0.5, 2.5);
    assert!(
        report["notes"].to_string().contains("batch API"),
        "{report}"
    );
    // Every turn was submitted once, and the cancelled one once more: two
    // turns for each run with the skill, one for each without.
    assert_eq!(server.lock().unwrap().submitted, 2 * 2 + 2 + 1);

    // Everything is in the cache now, as if made call by call.
    let (code, _, stderr) = bench(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("4 runs (4 cached)"), "{stderr}");
    assert!(!stderr.contains("sk-test-secret"));
}

#[test]
fn openai_batch_requests_that_expired_or_failed_are_errors_then_retried() {
    let tmp = library();
    let cache = tmp.path().join("cache");
    let cache = cache.to_str().unwrap();
    let (port, server) = batch_api(&[Fate::Expire, Fate::Fail]);
    let base = format!("http://127.0.0.1:{port}/v1");
    let args = ["--batch", "--wait", "--poll", "0", "--cache", cache];
    let (code, stdout, stderr) = bench_api(tmp.path(), "openai", "OPENAI_API_KEY", &base, &args);
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let errors: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] == "error")
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(errors.len(), 2, "{report}");
    assert!(
        errors.iter().any(|e| e.contains("batch_expired")),
        "{errors:?}"
    );
    assert!(errors.iter().any(|e| e.contains("HTTP 500")), "{errors:?}");

    // The next invocation submits the failed runs' turns again.
    let (code, stdout, stderr) = bench_api(tmp.path(), "openai", "OPENAI_API_KEY", &base, &args);
    assert_eq!(code, Some(0), "{stderr}");
    // GPT-5 mini at half of $0.25 and $2 per million tokens.
    assert_api_report(&stdout, "openai", 0.125, 1.0);
    assert_eq!(server.lock().unwrap().submitted, 2 * 2 + 2 + 2);
    assert!(!stdout.contains("sk-test-secret") && !stderr.contains("sk-test-secret"));
}

#[test]
fn batch_is_for_api_agents_only() {
    let tmp = library();
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(tmp.path().join("lib/greet"))
        .args(["--agent", "codex", "--scripted", "--batch"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("use it with --agent anthropic or --agent openai"),
        "{stderr}"
    );
}

/// Two machines each run half of a suite into a cache folder of their own;
/// the folders copied together hold the whole benchmark.
#[test]
fn shards_run_on_two_machines_merge_by_copying_their_caches() {
    let tmp = library();
    let base = format!("http://127.0.0.1:{}", model_api());
    let mut made = Vec::new();
    for shard in ["1/2", "2/2"] {
        let cache = tmp
            .path()
            .join(format!("cache-{}", shard.replace('/', "-of-")));
        let args = ["--shard", shard, "--cache", cache.to_str().unwrap()];
        let (code, stdout, stderr) =
            bench_api(tmp.path(), "anthropic", "ANTHROPIC_API_KEY", &base, &args);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stderr.contains("2 runs (0 cached)"), "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        made.push(report["runs"].as_array().unwrap().len());
        // Copying is the merge: one file a run, named by its key.
        let merged = tmp.path().join("merged");
        fs::create_dir_all(&merged).unwrap();
        for file in fs::read_dir(&cache).unwrap() {
            let file = file.unwrap();
            fs::copy(file.path(), merged.join(file.file_name())).unwrap();
        }
    }
    assert_eq!(made, [2, 2]);
    let merged = tmp.path().join("merged");
    let args = ["--cache", merged.to_str().unwrap()];
    let (code, stdout, stderr) =
        bench_api(tmp.path(), "anthropic", "ANTHROPIC_API_KEY", &base, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("4 runs (4 cached)"), "{stderr}");
    assert_api_report(&stdout, "anthropic", 1.0, 5.0);
}

/// Ctrl+C while waiting for a batch stops waiting, not the batch: the
/// state is kept and the next invocation collects it.
#[cfg(unix)]
#[test]
fn ctrl_c_while_waiting_leaves_the_batch_to_the_next_invocation() {
    let tmp = library();
    let cache = tmp.path().join("cache");
    let (port, server) = batch_api(&[]);
    let base = format!("http://127.0.0.1:{port}");
    let suite = tmp.path().join("api.yaml");
    fs::write(&suite, API_SUITE).unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hone"))
        .arg("bench")
        .arg(tmp.path().join("lib/greet"))
        .arg(&suite)
        .args(["--agent", "anthropic", "--runs", "2", "--batch", "--wait"])
        .args(["--poll", "3600", "--base-url", &base, "--cache"])
        .arg(&cache)
        .env("ANTHROPIC_API_KEY", "sk-test-secret")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the batch is submitted, the command waits an hour before it polls
    // (a Ctrl+C only sets a flag: the state is saved either way).
    while server.lock().unwrap().batches.is_empty() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("4 of 4 run(s) waiting in batch msgbatch_1"),
        "{stderr}"
    );

    let cache = cache.to_str().unwrap();
    let args = ["--batch", "--wait", "--poll", "0", "--cache", cache];
    let (code, stdout, stderr) =
        bench_api(tmp.path(), "anthropic", "ANTHROPIC_API_KEY", &base, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_api_report(&stdout, "anthropic", 0.5, 2.5);
    assert_eq!(server.lock().unwrap().submitted, 2 * 2 + 2);
}

/// A stand-in for `client`'s provider that plays the first case of the
/// suite at `suite`, for a live run pointed at it. The run's scratch
/// workspace is not known here: paths stay relative, which Codex, Gemini
/// CLI and OpenCode resolve in their working folder.
fn provider_standin(client: Client, suite: &Path) -> hone_core::clients::standin::StandIn {
    let steps = hone_core::bench::TaskSuite::load(suite).unwrap().cases[0]
        .script
        .clone();
    let script = hone_core::clients::script::Script {
        steps,
        workspace: std::path::PathBuf::new(),
    };
    hone_core::clients::standin::StandIn::start_with(Some((client, script))).unwrap()
}

/// A live run (no `--scripted`) of an agent CLI whose scratch home holds no
/// login: refused before any run without the credential variable, and with
/// it, run against the provider the user's base-URL variable names. Here
/// that provider is the scripted stand-in on loopback, so the live path
/// (the user's key passed on, the client's own provider settings) is what
/// runs, with no model. Where the OS allows a network namespace, the run
/// is in one whose only way out is the provider: the client reaches the
/// stand-in on the host's loopback through Hone's egress proxy or not at
/// all.
fn runs_live_with_the_users_key(
    client: Client,
    suite_text: &str,
    key_var: &str,
    base_var: &str,
    base_path: &str,
) {
    require(client);
    let isolated = capture::namespaces_available();
    let tmp = library();
    let lib = tmp.path().join("lib");
    let suite = tmp.path().join("suite.yaml");
    fs::write(&suite, suite_text).unwrap();
    let bench = |vars: &[(&str, &str)]| {
        let mut command = Command::cargo_bin("hone").unwrap();
        command
            .arg("bench")
            .arg(lib.join("greet"))
            .arg(&suite)
            .args(["--agent", client.as_str(), "--runs", "1", "--jobs", "1"])
            .args(["--no-cache", "--format", "json"])
            .env_remove(key_var)
            .env_remove(base_var);
        for (name, value) in vars {
            command.env(name, value);
        }
        command.output().unwrap()
    };

    let output = bench(&[]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("signs in with {key_var}")),
        "{stderr}"
    );

    let standin = provider_standin(client, &suite);
    let base = format!("http://127.0.0.1:{}{base_path}", standin.port);
    let output = bench(&[(key_var, "sk-hone-live-test"), (base_var, &base)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("go to"),
        "a live run says where the work goes: {stderr}"
    );
    let reach = if isolated {
        format!("one way out is the provider at 127.0.0.1:{}", standin.port)
    } else {
        "not in a network namespace".to_string()
    };
    assert!(stderr.contains(&reach), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["scripted"], false, "{report}");
    assert_eq!(arm(&report, "with")["passed"], 1, "{report}");
    assert_eq!(arm(&report, "without")["passed"], 0, "{report}");
    assert!(
        !standin.recorded().is_empty(),
        "the client reached the provider it was given"
    );
}

#[test]
fn codex_runs_live_with_the_users_key() {
    runs_live_with_the_users_key(
        Client::Codex,
        CODEX_SUITE,
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "/v1",
    );
}

#[test]
fn opencode_runs_live_with_the_users_key() {
    // OpenCode's default live model is Anthropic's: the stand-in answers
    // Messages requests with OpenCode's own tools.
    runs_live_with_the_users_key(
        Client::Opencode,
        OPENCODE_SUITE,
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "",
    );
}

/// A live run in its namespace reaches its provider and nothing else: a
/// command the agent runs that asks for another service on the host's
/// loopback is refused by the egress proxy (or finds nothing listening), the
/// service sees no connection, and the run's status names what was refused.
#[test]
fn a_live_run_reaches_its_provider_and_nothing_else() {
    require_claude();
    assert!(
        capture::namespaces_available(),
        "this test needs `unshare --net` (root, or unprivileged user namespaces)"
    );
    let other = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let other_port = other.local_addr().unwrap().port();
    other.set_nonblocking(true).unwrap();
    let suite_text = format!(
        r#"
name: reach
skill: greet
cases:
  - name: asks-elsewhere
    prompt: "Fetch the other service"
    allowed_tools: [Bash]
    graders:
      - {{type: file_matches, path: reach.txt, pattern: "403"}}
    script:
      - run: "curl -s -m 10 -o /dev/null -w '%{{http_code}}' http://127.0.0.1:{other_port}/ > reach.txt; true"
      - answer: "Done"
"#
    );
    let tmp = library();
    let suite = tmp.path().join("suite.yaml");
    fs::write(&suite, &suite_text).unwrap();
    let standin = provider_standin(Client::ClaudeCode, &suite);
    let output = Command::cargo_bin("hone")
        .unwrap()
        .arg("bench")
        .arg(tmp.path().join("lib/greet"))
        .arg(&suite)
        .args(["--agent", "claude-code", "--arms", "without", "--runs", "1"])
        .args(["--no-cache", "--format", "json"])
        .env("ANTHROPIC_API_KEY", "sk-hone-live-test")
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", standin.port),
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let run = &report["runs"][0];
    assert_eq!(run["outcome"], "passed", "{run}");
    assert!(
        run["status"]
            .as_str()
            .unwrap()
            .contains(&format!("it tried to reach 127.0.0.1:{other_port}")),
        "{run}"
    );
    assert!(
        other.accept().is_err(),
        "the other service was reached from inside the run"
    );
}

#[test]
fn gemini_runs_live_with_the_users_key() {
    runs_live_with_the_users_key(
        Client::Gemini,
        GEMINI_SUITE,
        "GEMINI_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "",
    );
}
