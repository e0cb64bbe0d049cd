//! The HTTP providers against a loopback server that answers in each
//! provider's real wire format: tool calls, no call, text only, 429 with
//! `retry-after`, 500, a hang past the timeout, truncated and malformed JSON.
//! Every failure ends in a retry or a clear per-case error, and every earlier
//! answer is kept.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hone_core::agent::providers::{Anthropic, OpenAi, Secret};
use hone_core::agent::{
    Answer, AnswerCache, Budget, Choice, EvalOptions, HttpPolicy, Listing, ListingStyle, Price,
    Provider, Session, evaluate,
};
use hone_core::cancel::Cancel;
use hone_core::clients::claude_code::ListingSettings;
use hone_core::eval::{self, Identities, Suite};
use hone_core::library::{Filters, Library};
use hone_core::skill::Skill;
use hone_core::tokens::Tokenizer;
use serde_json::{Value, json};

const KEY: &str = "sk-ant-test-DO-NOT-LEAK-4242";

/// What the server sends back for one request.
#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
    /// Wait this long before answering (a hang when past the client's timeout).
    delay: Duration,
    /// Announce the whole body but send half of it, then close.
    truncate: bool,
}

impl Reply {
    fn ok(body: Value) -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
            truncate: false,
        }
    }

    fn status(status: u16, body: Value) -> Reply {
        Reply {
            status,
            ..Reply::ok(body)
        }
    }
}

/// One request as the server received it.
#[derive(Clone, Debug)]
struct Received {
    path: String,
    headers: HashMap<String, String>,
    body: Value,
}

type Responder = dyn Fn(&Received, usize) -> Reply + Send + Sync;

/// A loopback HTTP/1.1 server; the responder sees each request and how many
/// times the same request text came before.
struct Server {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    fn start(responder: impl Fn(&Received, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let responder: Arc<Responder> = Arc::new(responder);
        let log = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, seen, responder) =
                    (Arc::clone(&log), Arc::clone(&seen), Arc::clone(&responder));
                std::thread::spawn(move || {
                    let _ = handle(stream, &log, &seen, responder.as_ref());
                });
            }
        });
        Server { url, received }
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn handle(
    stream: TcpStream,
    log: &Mutex<Vec<Received>>,
    seen: &Mutex<HashMap<String, usize>>,
    responder: &Responder,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let mut headers = HashMap::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request = Received {
        path,
        headers,
        body,
    };
    let text = request_text(&request);
    let before = {
        let mut seen = seen.lock().unwrap();
        let count = seen.entry(text).or_default();
        *count += 1;
        *count - 1
    };
    log.lock().unwrap().push(request.clone());
    let reply = responder(&request, before);
    std::thread::sleep(reply.delay);
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    let body = if reply.truncate {
        &reply.body[..reply.body.len() / 2]
    } else {
        &reply.body
    };
    out.write_all(body.as_bytes())?;
    out.flush()
}

/// The user's request in an Anthropic or OpenAI body.
/// The user's request: the last user message's text, or its last text
/// block (Claude Code's shape puts a reminder before it).
fn request_text(request: &Received) -> String {
    let content = request.body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .map(|m| &m["content"]);
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .last()
            .and_then(|b| b["text"].as_str())
            .unwrap_or("")
            .to_owned(),
        _ => String::new(),
    }
}

fn anthropic_tool_call(skill: &str, usage: Value) -> Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [
            {"type": "text", "text": "I'll load the skill for this."},
            {"type": "tool_use", "id": "toolu_01", "name": "Skill", "input": {"skill": skill}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": usage
    })
}

fn anthropic_text(text: &str) -> Value {
    json!({
        "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 900, "output_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    })
}

fn small_usage() -> Value {
    json!({"input_tokens": 900, "output_tokens": 30, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn anthropic_error(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// A small library: three listed skills and one the model must never see.
fn library(dir: &Path) -> Library {
    let skills = [
        (
            "pdf",
            "description: Fill, merge and extract text from PDF files and forms.",
        ),
        (
            "deploy",
            "description: Deploy the web app to production with the release checklist.",
        ),
        (
            "review",
            "description: Review a pull request for bugs, style and missing tests.",
        ),
        (
            "secret",
            "description: Internal maintenance.\ndisable-model-invocation: true",
        ),
    ];
    for (name, frontmatter) in skills {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\n{frontmatter}\n---\n# {name}\n"),
        )
        .unwrap();
    }
    Library::open(&[dir.to_path_buf()], &Filters::default()).unwrap()
}

fn listing_of(library: &Library, style: ListingStyle) -> Listing {
    let skills: Vec<&Skill> = library.skills.iter().collect();
    Listing::new(&skills, style, &ListingSettings::new(), "claude-sonnet-4-5")
}

fn fast_policy() -> HttpPolicy {
    HttpPolicy {
        timeout: Duration::from_secs(5),
        retries: 2,
        backoff: Duration::from_millis(20),
        max_wait: Duration::from_secs(2),
    }
}

fn anthropic(server: &Server, policy: HttpPolicy) -> Anthropic {
    Anthropic::new(
        "claude-test",
        Secret::new(KEY),
        Some(&server.url),
        policy,
        true,
    )
}

fn session<'a>(
    provider: &'a dyn Provider,
    listing: &'a Listing,
    cache: Option<&'a AnswerCache>,
    runs: usize,
) -> Session<'a> {
    Session {
        provider,
        listing,
        cache,
        read_cache: true,
        runs,
    }
}

fn requests(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| (*t).to_owned()).collect()
}

#[test]
fn anthropic_sends_the_listing_as_the_skill_tool_and_reads_picks_and_text() {
    let server = Server::start(|request, _| match request_text(request).as_str() {
        "fill in this pdf form" => Reply::ok(anthropic_tool_call("pdf", small_usage())),
        _ => Reply::ok(anthropic_text("Hello! How can I help?")),
    });
    let dir = tempfile::tempdir().unwrap();
    let library = library(dir.path());
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let provider = anthropic(&server, fast_policy());
    let asked = session(&provider, &listing, None, 1).ask_all(
        &requests(&["fill in this pdf form", "hi there"]),
        2,
        None,
        &Cancel::new(),
        &|_, _| {},
    );
    let first = asked.answers[0][0].clone().unwrap().unwrap();
    assert_eq!(first.choice, Choice::Skill { name: "pdf".into() });
    assert_eq!(first.usage.input_tokens, 900);
    let second = asked.answers[1][0].clone().unwrap().unwrap();
    assert!(matches!(second.choice, Choice::NoSkill { ref text } if text.contains("Hello")));

    let received = server.received();
    assert_eq!(received.len(), 2);
    let request = &received[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.headers["x-api-key"], KEY);
    assert_eq!(request.headers["anthropic-version"], "2023-06-01");
    // Claude Code's shape for a model up to the 4.6 generation: its fixed
    // `Skill` tool, and the listing (its own skills after the library's) in a
    // `<system-reminder>` before the request, the cached prefix's end.
    let tool = &request.body["tools"][0];
    assert_eq!(tool["name"], "Skill");
    assert_eq!(
        tool["description"],
        hone_core::clients::claude_code::skill_tool().description
    );
    assert_eq!(tool["input_schema"]["required"][0], "skill");
    assert!(tool["input_schema"]["properties"]["args"].is_object());
    assert_eq!(request.body["messages"].as_array().unwrap().len(), 1);
    let user = &request.body["messages"][0];
    assert_eq!(user["role"], "user");
    let reminder = user["content"][0]["text"].as_str().unwrap();
    assert!(reminder.starts_with(
        "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- "
    ));
    assert!(reminder.contains("\n- pdf: Fill, merge and extract text"));
    assert!(
        reminder.contains("\n- code-review: "),
        "the client's own skills"
    );
    assert!(reminder.ends_with("\n</system-reminder>"));
    assert!(
        !reminder.contains("secret"),
        "disable-model-invocation skills are absent"
    );
    assert_eq!(user["content"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(user["content"][1]["text"], "fill in this pdf form");
    assert!(request.body.get("system").is_none());
}

/// Recent Claude models get the listing in a `system` message after the
/// request, as Claude Code sends it; a built-in the model picks is reported
/// as the client's, not as an unknown skill.
#[test]
fn the_claude_code_listing_follows_the_request_for_recent_models() {
    let server =
        Server::start(|_, _| Reply::ok(anthropic_tool_call("security-review", small_usage())));
    let dir = tempfile::tempdir().unwrap();
    let library = library(dir.path());
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let listing = Listing::new(
        &skills,
        ListingStyle::ClaudeCode,
        &ListingSettings::new(),
        "claude-opus-5-5",
    );
    let provider = Anthropic::new(
        "claude-opus-5-5",
        Secret::new(KEY),
        Some(&server.url),
        fast_policy(),
        true,
    );
    let asked = session(&provider, &listing, None, 1).ask_all(
        &requests(&["review my branch for security problems"]),
        1,
        None,
        &Cancel::new(),
        &|_, _| {},
    );
    let answers: Vec<Answer> = asked.answers[0]
        .iter()
        .flatten()
        .flatten()
        .cloned()
        .collect();
    let matches = hone_core::agent::aggregate(&listing, &answers);
    assert_eq!(matches[0].id, "security-review");
    assert_eq!(
        hone_core::rank::builtin_client(&matches[0].key),
        Some(hone_core::clients::Client::ClaudeCode)
    );
    let body = &server.received()[0].body;
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"][0]["text"],
        "review my branch for security problems"
    );
    assert_eq!(messages[1]["role"], "system");
    let listing_text = messages[1]["content"][0]["text"].as_str().unwrap();
    assert!(
        listing_text
            .starts_with("The following skills are available for use with the Skill tool:\n\n")
    );
    assert!(listing_text.contains("\n- security-review: "));
    assert_eq!(body["tools"][0]["cache_control"]["type"], "ephemeral");
}

#[test]
fn the_agentskills_listing_goes_in_the_system_prompt() {
    let server = Server::start(|_, _| Reply::ok(anthropic_tool_call("review", small_usage())));
    let dir = tempfile::tempdir().unwrap();
    let library = library(dir.path());
    let listing = listing_of(&library, ListingStyle::Agentskills);
    let provider = anthropic(&server, fast_policy());
    let asked = session(&provider, &listing, None, 1).ask_all(
        &requests(&["check my PR"]),
        1,
        None,
        &Cancel::new(),
        &|_, _| {},
    );
    assert!(asked.answers[0][0].as_ref().unwrap().is_ok());
    let body = &server.received()[0].body;
    let system = body["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("<available_skills>") && system.contains("<name>\nreview\n</name>"));
    assert!(!system.contains("secret"));
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert!(
        !body["tools"][0]["description"]
            .as_str()
            .unwrap()
            .contains("<name>")
    );
}

#[test]
fn rate_limits_and_server_errors_are_retried_honouring_retry_after() {
    let server = Server::start(
        |request, before| match (request_text(request).as_str(), before) {
            ("rate limited", 0) => Reply {
                headers: vec![("retry-after", "1".into())],
                ..Reply::status(
                    429,
                    anthropic_error(
                        "rate_limit_error",
                        "Number of requests has exceeded your rate limit",
                    ),
                )
            },
            ("server error", 0) => {
                Reply::status(500, anthropic_error("api_error", "Internal server error"))
            }
            ("overloaded", 0 | 1) => {
                Reply::status(529, anthropic_error("overloaded_error", "Overloaded"))
            }
            _ => Reply::ok(anthropic_tool_call("deploy", small_usage())),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let library = library(dir.path());
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let provider = anthropic(&server, fast_policy());
    let asked = session(&provider, &listing, None, 1).ask_all(
        &requests(&["rate limited", "server error", "overloaded"]),
        3,
        None,
        &Cancel::new(),
        &|_, _| {},
    );
    for answers in &asked.answers {
        let answer = answers[0].clone().unwrap().unwrap();
        assert_eq!(
            answer.choice,
            Choice::Skill {
                name: "deploy".into()
            }
        );
    }
    assert_eq!(asked.retries, 4);
    assert_eq!(server.received().len(), 7);
}

#[test]
fn a_hang_past_the_timeout_ends_in_a_clear_error_and_other_answers_are_kept() {
    let server = Server::start(|request, _| match request_text(request).as_str() {
        "hangs" => Reply {
            delay: Duration::from_secs(4),
            ..Reply::ok(anthropic_tool_call("pdf", small_usage()))
        },
        _ => Reply::ok(anthropic_tool_call("pdf", small_usage())),
    });
    let dir = tempfile::tempdir().unwrap();
    let library = library(dir.path());
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let provider = anthropic(
        &server,
        HttpPolicy {
            timeout: Duration::from_millis(500),
            retries: 1,
            ..fast_policy()
        },
    );
    let asked = session(&provider, &listing, None, 1).ask_all(
        &requests(&["fine", "hangs"]),
        2,
        None,
        &Cancel::new(),
        &|_, _| {},
    );
    assert!(asked.answers[0][0].as_ref().unwrap().is_ok());
    let error = asked.answers[1][0].clone().unwrap().unwrap_err();
    assert_eq!(error, "gave up after 2 attempts; last: the call timed out");
    assert_eq!(asked.failed_calls, 1);
}

/// A suite in YAML with one case per request.
fn suite(dir: &Path, cases: &[(&str, &str)]) -> Vec<Suite> {
    let mut yaml = String::from("cases:\n");
    for (query, expect) in cases {
        let expect = if expect.is_empty() {
            "[]".to_owned()
        } else {
            format!("[{expect}]")
        };
        yaml.push_str(&format!("  - query: {query:?}\n    expect: {expect}\n"));
    }
    let path = dir.join("routing.yaml");
    std::fs::write(&path, yaml).unwrap();
    vec![Suite::load(&path).unwrap()]
}

fn eval_options(budget: Option<Budget>) -> EvalOptions {
    EvalOptions {
        threshold: 0.5,
        library: "lib".into(),
        jobs: 2,
        budget,
    }
}

#[test]
fn truncated_and_malformed_answers_fail_their_case_only_and_answers_are_cached() {
    let server = Server::start(|request, _| match request_text(request).as_str() {
        "truncated" => Reply {
            truncate: true,
            ..Reply::ok(anthropic_tool_call("pdf", small_usage()))
        },
        "malformed" => Reply {
            body: r#"{"id": "msg_03", "type": "message", "content": [{"type": "tool_use", "#.into(),
            ..Reply::ok(Value::Null)
        },
        "bad tool input" => Reply::ok(json!({
            "type": "message",
            "content": [{"type": "tool_use", "id": "t", "name": "Skill", "input": {"skill_name": 3}}],
            "usage": small_usage()
        })),
        "nothing fits" => Reply::ok(anthropic_text("I can answer that directly.")),
        _ => Reply::ok(anthropic_tool_call("pdf", small_usage())),
    });
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let suites = suite(
        dir.path(),
        &[
            ("merge these pdfs", "pdf"),
            ("truncated", "pdf"),
            ("malformed", "deploy"),
            ("bad tool input", "review"),
            ("nothing fits", ""),
        ],
    );
    let suites = eval::resolve_suites(&suites, &Identities::from_library(&library)).unwrap();
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let provider = anthropic(&server, fast_policy());
    let cache = AnswerCache::new(dir.path().join("cache"));
    let run = |server_calls_before: usize| {
        let session = session(&provider, &listing, Some(&cache), 1);
        let requests: Vec<String> = suites[0].cases.iter().map(|c| c.query.clone()).collect();
        let estimate = session.estimate(&requests, None);
        let result = evaluate(
            &session,
            &suites,
            estimate,
            &eval_options(None),
            &Cancel::new(),
            &|_, _| {},
        );
        (result, server.received().len() - server_calls_before)
    };
    let (first, calls) = run(0);
    let report = &first.report;
    let failures: HashMap<&str, &str> = report
        .cases
        .iter()
        .filter_map(|c| Some((c.query.as_str(), c.failure.as_deref()?)))
        .collect();
    assert!(
        report.cases[0].passed && report.cases[4].passed,
        "{failures:?}"
    );
    assert!(
        failures["truncated"].contains("gave up after 3 attempts; last: connection failed"),
        "{failures:?}"
    );
    assert!(
        failures["malformed"].contains("malformed answer: the answer is not valid JSON"),
        "{failures:?}"
    );
    assert!(
        failures["bad tool input"].contains("a Skill call without a `skill` name"),
        "{failures:?}"
    );
    // Truncation is retried (a broken transfer); malformed JSON is not.
    assert_eq!(calls, 3 + 1 + 1 + 1 + 1);
    assert_eq!(first.agent.answers_from_cache, 0);
    // The confusion table names what was picked instead.
    assert!(
        report
            .confusion
            .iter()
            .any(|c| c.expected == "deploy" && c.picked == "(error)")
    );

    // A re-run takes the good answers from the cache and retries only the failures.
    let (second, calls) = run(calls);
    assert_eq!(second.agent.answers_from_cache, 2);
    assert_eq!(second.agent.estimate.cached_answers, 2);
    assert_eq!(calls, 3 + 1 + 1);
    assert_eq!(
        second.report.metrics.overall.p_at_1,
        first.report.metrics.overall.p_at_1
    );
}

#[test]
fn openai_chat_completions_tool_calls_no_call_and_bad_arguments() {
    let server = Server::start(|request, _| {
        let message = match request_text(request).as_str() {
            "ship it" => json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "Skill", "arguments": "{\"skill\": \"deploy\"}"}}]}),
            "bad arguments" => json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": "call_2", "type": "function",
                "function": {"name": "Skill", "arguments": "{\"skill\": \"dep"}}]}),
            _ => json!({"role": "assistant", "content": "Sure, here is how."}),
        };
        Reply::ok(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "llama3.2",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1600, "completion_tokens": 20, "total_tokens": 1620,
                      "prompt_tokens_details": {"cached_tokens": 1536}}
        }))
    });
    let dir = tempfile::tempdir().unwrap();
    let library = library(dir.path());
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    // A local server needs no key: no authorization header is sent.
    let provider = OpenAi::new(
        "llama3.2",
        None,
        Some(&format!("{}/v1/", server.url)),
        fast_policy(),
    );
    let asked = session(&provider, &listing, None, 1).ask_all(
        &requests(&["ship it", "tell me a joke", "bad arguments"]),
        1,
        None,
        &Cancel::new(),
        &|_, _| {},
    );
    let answer = asked.answers[0][0].clone().unwrap().unwrap();
    assert_eq!(
        answer.choice,
        Choice::Skill {
            name: "deploy".into()
        }
    );
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.cache_read_tokens),
        (64, 1536)
    );
    assert!(matches!(
        asked.answers[1][0].clone().unwrap().unwrap().choice,
        Choice::NoSkill { .. }
    ));
    let error = asked.answers[2][0].clone().unwrap().unwrap_err();
    assert!(error.contains("arguments are not JSON"), "{error}");
    let received = server.received();
    assert_eq!(received[0].path, "/v1/chat/completions");
    assert!(!received[0].headers.contains_key("authorization"));
    let function = &received[0].body["tools"][0]["function"];
    assert_eq!(function["name"], "Skill");
    // The listing goes in a system message; the tool is Claude Code's own.
    let messages = received[0].body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("- deploy: Deploy the web app")
    );

    // With a key, it travels as a bearer token.
    let keyed = OpenAi::new(
        "gpt-4.1-mini",
        Some(Secret::new("sk-openai-xyz")),
        Some(&format!("{}/v1", server.url)),
        fast_policy(),
    );
    session(&keyed, &listing, None, 1).ask_all(
        &requests(&["ship it"]),
        1,
        None,
        &Cancel::new(),
        &|_, _| {},
    );
    assert_eq!(
        server.received()[3].headers["authorization"],
        "Bearer sk-openai-xyz"
    );
}

#[test]
fn keys_never_reach_reports_errors_or_the_cache() {
    let server = Server::start(|request, _| match request_text(request).as_str() {
        "denied" => Reply::status(
            401,
            anthropic_error("authentication_error", "invalid x-api-key"),
        ),
        _ => Reply::ok(anthropic_tool_call("pdf", small_usage())),
    });
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let suites = suite(
        dir.path(),
        &[("merge these pdfs", "pdf"), ("denied", "pdf")],
    );
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let provider = anthropic(&server, fast_policy());
    let cache = AnswerCache::new(dir.path().join("cache"));
    let session = session(&provider, &listing, Some(&cache), 3);
    let estimate = session.estimate(&[], None);
    let result = evaluate(
        &session,
        &suites,
        estimate,
        &eval_options(None),
        &Cancel::new(),
        &|_, _| {},
    );
    let report = serde_json::to_string(&result).unwrap();
    assert!(report.contains("HTTP 401: invalid x-api-key"), "{report}");
    assert!(!report.contains(KEY));
    assert!(!format!("{:?}", Secret::new(KEY)).contains(KEY));
    let mut files = 0;
    for entry in walkdir::WalkDir::new(cache.dir()) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            files += 1;
            let text = std::fs::read_to_string(entry.path()).unwrap();
            assert!(
                !text.contains(KEY) && !text.contains("merge these pdfs"),
                "{text}"
            );
        }
    }
    assert_eq!(files, 3, "one answer per run of the good request");
}

#[test]
fn the_cost_limit_stops_before_it_is_exceeded() {
    let server = Server::start(|_, _| Reply::ok(anthropic_tool_call("pdf", small_usage())));
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let cases: Vec<(String, &str)> = (0..10)
        .map(|i| (format!("merge pdf number {i}"), "pdf"))
        .collect();
    let cases: Vec<(&str, &str)> = cases.iter().map(|(q, e)| (q.as_str(), *e)).collect();
    let suites = suite(dir.path(), &cases);
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let provider = anthropic(&server, fast_policy());
    let session = session(&provider, &listing, None, 1);
    // Each answer costs 900 input and 30 output tokens: $0.00105 at these prices.
    let price = Price {
        input: 1.0,
        output: 5.0,
        cache_write: 1.25,
        cache_read: 0.1,
        min_cache_tokens: 4096,
    };
    let budget = Budget {
        max_usd: 0.004,
        price,
        per_call_usd: 0.00105,
    };
    let estimate = session.estimate(&[], None);
    let result = evaluate(
        &session,
        &suites,
        estimate,
        &eval_options(Some(budget)),
        &Cancel::new(),
        &|_, _| {},
    );
    let agent = &result.agent;
    assert!(agent.partial);
    assert!(
        agent
            .stopped
            .as_deref()
            .unwrap()
            .contains("cost limit of $0.00")
    );
    assert_eq!(agent.calls, 3);
    assert!(agent.spent_usd.unwrap() <= 0.004);
    assert_eq!(agent.cases_not_run, 7);
    assert_eq!(result.report.cases.len(), 3);
}

#[test]
fn cancelling_keeps_finished_answers_and_marks_the_report_partial() {
    let cancel = Cancel::new();
    let trigger = cancel.clone();
    let server = Server::start(move |request, _| {
        if request_text(request) == "case 2" {
            trigger.cancel();
        }
        Reply::ok(anthropic_tool_call("pdf", small_usage()))
    });
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let suites = suite(
        dir.path(),
        &[
            ("case 1", "pdf"),
            ("case 2", "pdf"),
            ("case 3", "pdf"),
            ("case 4", "pdf"),
        ],
    );
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let provider = anthropic(&server, fast_policy());
    let cache = AnswerCache::new(dir.path().join("cache"));
    let session = session(&provider, &listing, Some(&cache), 1);
    let options = EvalOptions {
        jobs: 1,
        ..eval_options(None)
    };
    let estimate = session.estimate(&[], None);
    let result = evaluate(&session, &suites, estimate, &options, &cancel, &|_, _| {});
    assert!(result.agent.partial);
    assert_eq!(result.agent.stopped.as_deref(), Some("cancelled"));
    // The call in flight when Ctrl+C came finished and was kept.
    assert_eq!(result.report.cases.len(), 2);
    let rerun = Session {
        read_cache: true,
        ..session
    };
    assert_eq!(
        rerun
            .estimate(&requests(&["case 1", "case 2", "case 3", "case 4"]), None)
            .cached_answers,
        2
    );
}

/// Figures: calls and tokens of a 100-case suite over the bundled 17-skill
/// library with and without prompt caching, computed from the requests the
/// loopback server received. Billing follows Anthropic's documented rules:
/// a marked prefix (tools, then system) is written once at 1.25× the input
/// price, then read at 0.1×. Run with `--nocapture` to see the table.
#[test]
fn figures_anthropic_100_cases_with_and_without_prompt_caching() {
    let tokenizer = Tokenizer::claude();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let library = Library::open(std::slice::from_ref(&root), &Filters::default()).unwrap();
    assert_eq!(library.skills.len(), 17, "the bundled library");
    let listing = listing_of(&library, ListingStyle::ClaudeCode);
    let mut queries = Vec::new();
    for file in eval::suite::suite_files(&root.join("evals")).unwrap() {
        queries.extend(
            Suite::load(&file)
                .unwrap()
                .cases
                .into_iter()
                .map(|c| c.query),
        );
    }
    queries.sort();
    queries.dedup();
    let queries: Vec<String> = queries
        .iter()
        .cycle()
        .take(100)
        .enumerate()
        .map(|(i, q)| format!("{q} (#{i})"))
        .collect();
    println!(
        "| prompt caching | calls | listing tokens / call | request tokens (all) | input tokens sent | billed input-token equivalent |"
    );
    println!("|---|---|---|---|---|---|");
    let mut billed_totals = Vec::new();
    for caching in [false, true] {
        let server = Server::start(|_, _| Reply::ok(anthropic_tool_call("pdf", small_usage())));
        let provider = Anthropic::new(
            "claude-test",
            Secret::new(KEY),
            Some(&server.url),
            fast_policy(),
            caching,
        );
        session(&provider, &listing, None, 1).ask_all(
            &queries,
            4,
            None,
            &Cancel::new(),
            &|_, _| {},
        );
        let received = server.received();
        let (mut listing_tokens, mut request_tokens, mut billed, mut cached_before) =
            (0u64, 0u64, 0f64, false);
        for request in &received {
            // The cached prefix: the tools, then the reminder that carries
            // the listing before the request.
            let reminder = &request.body["messages"][0]["content"][0];
            let prefix = request.body["tools"].to_string() + &reminder.to_string();
            let prefix_tokens = tokenizer.count(&prefix) as u64;
            let request_part = tokenizer.count(&request_text(request)) as u64;
            listing_tokens = prefix_tokens;
            request_tokens += request_part;
            let marked = reminder.get("cache_control").is_some();
            billed += request_part as f64
                + prefix_tokens as f64
                    * match (marked, cached_before) {
                        (false, _) => 1.0,
                        (true, false) => 1.25,
                        (true, true) => 0.1,
                    };
            cached_before |= marked;
        }
        let sent = listing_tokens * received.len() as u64 + request_tokens;
        println!(
            "| {} | {} | {listing_tokens} | {request_tokens} | {sent} | {billed:.0} |",
            if caching { "on" } else { "off" },
            received.len()
        );
        assert_eq!(received.len(), 100);
        billed_totals.push(billed);
    }
    assert!(billed_totals[1] < billed_totals[0] / 3.0);
}
