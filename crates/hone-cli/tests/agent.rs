//! `--ranker agent` end to end: `hone eval` and `hone search` against a
//! loopback server speaking the chat-completions wire format, on the bundled
//! library and its suites (skill-creator trigger-eval JSON included).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;

use assert_cmd::Command;
use common::{run, skills};
use serde_json::{Value, json};

/// A loopback chat-completions server: it loads `git-commit-messages` for
/// requests about commits and answers in text otherwise. Returns its base
/// URL and the count of requests it received.
fn server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                    if line.trim().is_empty() {
                        break;
                    }
                    if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body: Value = serde_json::from_slice(&body).unwrap();
                let request = body["messages"][0]["content"]
                    .as_str()
                    .unwrap_or("")
                    .to_lowercase();
                let message = if request.contains("commit") {
                    json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "Skill", "arguments": "{\"skill\":\"git-commit-messages\"}"}}]})
                } else {
                    json!({"role": "assistant", "content": "I can help with that directly."})
                };
                let answer = json!({"id": "c", "object": "chat.completion", "model": "m",
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 2000, "completion_tokens": 15}})
                .to_string();
                let mut out = stream;
                let _ = write!(
                    out,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            });
        }
    });
    (url, count)
}

#[test]
fn eval_with_the_agent_reports_rates_confusion_agreement_and_reuses_its_cache() {
    let (url, count) = server();
    let cache = tempfile::tempdir().unwrap();
    let suite = skills().join("evals/trigger-evals/git-commit-messages.json");
    let eval = |extra: &[&str]| {
        let mut cmd = Command::cargo_bin("hone").unwrap();
        cmd.env_remove("OPENAI_API_KEY")
            .env("HONE_AGENT_CACHE", cache.path())
            .arg("eval")
            .arg(skills())
            .arg(&suite)
            .args([
                "--ranker",
                "agent",
                "--provider",
                "openai",
                "--base-url",
                &url,
            ])
            .args(["--model", "gpt-4.1-mini", "--runs", "2", "--format", "json"])
            .args(extra);
        run(&mut cmd)
    };
    let (code, stdout, stderr) = eval(&[]);
    assert!(code == 0 || code == 1, "{stderr}");
    assert!(stderr.contains("agent: openai gpt-4.1-mini"), "{stderr}");
    assert!(stderr.contains("estimated $"), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["ranker"], "agent");
    let cases = report["cases"].as_array().unwrap().len();
    let agent = &report["agent"];
    assert_eq!(agent["runs"], 2);
    assert_eq!(agent["calls"].as_u64().unwrap() as usize, cases * 2);
    assert_eq!(agent["answers_from_cache"], 0);
    assert_eq!(agent["partial"], false);
    assert!(agent["spent_usd"].as_f64().unwrap() > 0.0);
    assert_eq!(agent["agreement"][0]["ranker"], "bm25");
    assert!(agent["agreement"][0]["share"].as_f64().is_some());
    assert!(!report["confusion"].as_array().unwrap().is_empty());
    let served = count.load(Ordering::SeqCst);
    assert_eq!(served, cases * 2);

    // Unchanged: every answer comes from the cache and nothing is sent.
    let (_, stdout, stderr) = eval(&[]);
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(again["agent"]["calls"], 0, "{stderr}");
    assert_eq!(
        again["agent"]["answers_from_cache"].as_u64().unwrap() as usize,
        cases * 2
    );
    for metric in ["p_at_1", "mrr", "false_positive_rate", "accuracy"] {
        assert_eq!(
            again["metrics"][metric], report["metrics"][metric],
            "{metric}"
        );
    }
    assert_eq!(count.load(Ordering::SeqCst), served);

    // Over the cost limit: refused before anything is sent.
    let (code, _, stderr) = eval(&["--refresh", "--max-cost", "0.0001"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("over --max-cost") && stderr.contains("nothing was sent"),
        "{stderr}"
    );
    assert_eq!(count.load(Ordering::SeqCst), served);
}

#[test]
fn search_with_the_agent_shows_trigger_rates() {
    let (url, _) = server();
    let cache = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(Command::cargo_bin("hone")
        .unwrap()
        .env_remove("OPENAI_API_KEY")
        .env("HONE_AGENT_CACHE", cache.path())
        .arg("search")
        .arg(skills())
        .arg("write a commit message for this diff")
        .args([
            "--ranker",
            "agent",
            "--provider",
            "openai",
            "--base-url",
            &url,
        ])
        .args([
            "--model",
            "llama3.2",
            "--runs",
            "3",
            "--format",
            "json",
            "--explain",
        ]));
    assert_eq!(code, 0, "{stderr}");
    let output: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(output["ranker"], "agent");
    assert_eq!(output["selected"], "git-commit-messages");
    assert_eq!(output["matches"][0]["confidence"], 1.0);
    assert_eq!(output["matches"][0]["explanation"]["picks"], 3);
    assert!(stderr.contains("no price for `llama3.2`"), "{stderr}");
}

#[test]
fn suggestions_confirmed_by_the_agent_show_its_held_out_delta_within_the_cost_limit() {
    let (url, count) = server();
    let cache = tempfile::tempdir().unwrap();
    let suite = skills().join("evals/trigger-evals/git-commit-messages.json");
    let suggest = |extra: &[&str]| {
        let mut cmd = Command::cargo_bin("hone").unwrap();
        cmd.env_remove("OPENAI_API_KEY")
            .env("HONE_AGENT_CACHE", cache.path())
            .arg("eval")
            .arg(skills())
            .arg(&suite)
            .args(["--ranker", "bm25", "--suggest", "git-commit-messages"])
            .args(["--confirm-with", "agent", "--confirm-top", "2"])
            .args(["--provider", "openai", "--base-url", &url])
            .args(["--confirm-model", "gpt-4.1-mini", "--runs", "1"])
            .args(extra);
        run(&mut cmd)
    };
    // Over the cost limit: refused before anything is sent.
    let (code, _, stderr) = suggest(&["--max-cost", "0.000001"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("over --max-cost"), "{stderr}");
    assert_eq!(count.load(Ordering::SeqCst), 0);

    let (code, stdout, stderr) = suggest(&["--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("agent: openai gpt-4.1-mini"), "{stderr}");
    let found: Value = serde_json::from_str(&stdout).unwrap();
    let agent = &found["agent"];
    assert_eq!(agent["provider"], "openai");
    let confirmed = agent["confirmed"].as_u64().unwrap() as usize;
    let candidates = found["candidates"].as_array().unwrap();
    assert_eq!(confirmed, candidates.len().min(2), "{found:#}");
    // The original listing and each confirmed edit, over the held-out cases.
    let held_out = found["held_out_cases"].as_u64().unwrap() as usize;
    assert_eq!(
        agent["calls"].as_u64().unwrap() as usize,
        held_out * (1 + confirmed)
    );
    assert_eq!(count.load(Ordering::SeqCst), held_out * (1 + confirmed));
    assert!(agent["held_out_accuracy"].as_f64().is_some());
    for (i, candidate) in candidates.iter().enumerate() {
        assert_eq!(candidate["agent_held_out_delta"].is_number(), i < confirmed);
    }

    // The text report shows the agent's delta beside the offline one; the
    // unedited listing's answers now come from the cache.
    let (code, stdout, stderr) = suggest(&[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Agent openai gpt-4.1-mini"), "{stdout}");
    if confirmed > 0 {
        assert!(stdout.contains("  agent "), "{stdout}");
    }
}

#[test]
fn the_agent_needs_a_provider_a_model_and_a_key() {
    let (code, _, stderr) = run(Command::cargo_bin("hone")
        .unwrap()
        .arg("search")
        .arg(skills())
        .arg("hello")
        .args(["--ranker", "agent"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--provider anthropic, openai, claude-code"),
        "{stderr}"
    );
    let (code, _, stderr) = run(Command::cargo_bin("hone")
        .unwrap()
        .env_remove("ANTHROPIC_API_KEY")
        .arg("search")
        .arg(skills())
        .arg("hello")
        .args([
            "--ranker",
            "agent",
            "--provider",
            "anthropic",
            "--model",
            "claude-haiku-4-5",
        ]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("ANTHROPIC_API_KEY, which is not set"),
        "{stderr}"
    );
}

/// `--provider local` with the installed Gemma 3 270M (installed by the
/// README's test command; without it this fails and says how to install
/// it): a full ranking for every case from one run, nothing spent, and an
/// unchanged re-run answered from the cache. The model's taste is not
/// asserted.
#[test]
fn eval_with_the_local_model_ranks_every_skill_and_reuses_its_cache() {
    let location = hone_core::llm::resolve_model_file(None);
    assert!(
        location.installed,
        "no local language model at {}: run `hone model install --llm` (`make test` does)",
        location.path.display()
    );
    let work = tempfile::tempdir().unwrap();
    let suite = work.path().join("two.yaml");
    std::fs::write(
        &suite,
        "name: two\ncases:\n  - query: \"write a commit message for this diff\"\n    expect: [git-commit-messages]\n  - query: \"what is the capital of France?\"\n    expect: []\n    kind: negative\n",
    )
    .unwrap();
    let cache = work.path().join("cache");
    let eval = || {
        let mut cmd = Command::cargo_bin("hone").unwrap();
        cmd.env("HONE_AGENT_CACHE", &cache)
            .arg("eval")
            .arg(skills())
            .arg(&suite)
            .args([
                "--ranker",
                "agent",
                "--provider",
                "local",
                "--format",
                "json",
            ]);
        run(&mut cmd)
    };
    let (code, stdout, stderr) = eval();
    assert!(code == 0 || code == 1, "{stderr}");
    assert!(stderr.contains("agent: local gemma-3-270m"), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["ranker"], "agent");
    let agent = &report["agent"];
    assert_eq!(agent["runs"], 1, "the local model is deterministic");
    assert_eq!(agent["calls"], 2);
    assert_eq!(agent["spent_usd"].as_f64().unwrap_or(0.0), 0.0);
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for case in cases {
        assert!(case["error"].is_null(), "{case}");
    }

    let (_, stdout, stderr) = eval();
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(again["agent"]["calls"], 0, "{stderr}");
    assert_eq!(again["agent"]["answers_from_cache"], 2);
    for metric in ["p_at_1", "mrr", "false_positive_rate", "accuracy"] {
        assert_eq!(
            again["metrics"][metric], report["metrics"][metric],
            "{metric}"
        );
    }
}
