//! The `codex` provider against the real `codex` binary (installed by
//! `make test`), pointed at a scripted loopback model speaking the OpenAI
//! Responses API, in a network namespace with loopback only where one can
//! be made: a shell read of a `SKILL.md` (a pick), an answer with no read,
//! a stream broken mid-answer (a clear error, Codex's retries bounded), a
//! cancelled and a timed-out run, and a missing binary. And the `openai`
//! provider's codex style against the request the real Codex sends. No live
//! model is run.
#![cfg(unix)]

mod clients;

use std::path::Path;
use std::time::{Duration, Instant};

use hone_core::agent::codex::Codex;
use hone_core::agent::providers::{OpenAi, parse_openai};
use hone_core::agent::{
    AgentError, Answer, Choice, CodexLayout, HttpPolicy, Listing, ListingStyle, Provider,
};
use hone_core::cancel::Cancel;
use hone_core::clients::Client;
use hone_core::clients::claude_code::ListingSettings;
use hone_core::clients::script::{Action, Script, Step};
use hone_core::clients::standin::{Recorded, StandIn};
use hone_core::library::Library;
use hone_core::skill::Skill;

const MODEL: &str = "gpt-5";

fn library(dir: &Path) -> Library {
    clients::planted_library(dir, &[("deploy", "deploy", ""), ("pdf-tools", "pdf", "")])
}

/// One run of the provider against the real `codex` playing `action`.
struct Run {
    answer: Result<Answer, AgentError>,
    requests: Vec<Recorded>,
    /// The codex-style listing of the library in the provider's scratch
    /// project and `$CODEX_HOME`.
    listing: Listing,
    seconds: f64,
}

/// Asks once, with a scripted model playing `action`, Codex allowed
/// `retries` retries.
fn ask(dir: &Path, action: Action, retries: u32) -> Run {
    let codex = clients::installed(Client::Codex);
    let library = library(&dir.join("skills"));
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let first = Listing::new(&skills, ListingStyle::Codex, &ListingSettings::new(), MODEL);
    // The stand-in's port is part of the config, so it starts first; the
    // script's workspace (for relative paths) is not needed by Codex's steps.
    let script = Script {
        steps: vec![Step { action, when: None }],
        workspace: dir.to_path_buf(),
    };
    let standin = StandIn::start_with(Some((Client::Codex, script))).unwrap();
    let base_url = format!("http://127.0.0.1:{}/v1", standin.port);
    let provider = Codex::new(
        MODEL,
        Some(&codex),
        Some(&base_url),
        None,
        Duration::from_secs(120),
        retries,
    );
    provider.prepare(&first).unwrap();
    let listing = Listing::codex(
        &skills,
        MODEL,
        CodexLayout {
            project: provider.project_dir().unwrap(),
            codex_home: provider.codex_home().unwrap(),
        },
    );
    let started = Instant::now();
    let answer = provider.ask(&listing, "please help with this", &Cancel::new());
    let seconds = started.elapsed().as_secs_f64();
    Run {
        answer,
        requests: standin.recorded(),
        listing,
        seconds,
    }
}

/// The first agent turn Codex sent.
fn first_turn(requests: &[Recorded]) -> &Recorded {
    requests
        .iter()
        .find(|r| r.path.ends_with("/responses") && r.body["tools"].is_array())
        .expect("codex sent no agent turn")
}

#[test]
fn the_real_codex_picks_the_skill_whose_skill_md_it_reads() {
    if clients::rerun_in_loopback_namespace(
        "the_real_codex_picks_the_skill_whose_skill_md_it_reads",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // `cat '.agents/skills/deploy/SKILL.md'`, as the script reads a file.
    let read = ask(
        &dir.path().join("read"),
        Action::Read(".agents/skills/deploy/SKILL.md".into()),
        1,
    );
    assert_eq!(
        read.answer.unwrap().choice,
        Choice::Skill {
            name: "deploy".into()
        }
    );
    println!("one codex provider run to a pick: {:.2} s", read.seconds);
    // The real client listed the library as Hone predicts, byte for byte.
    let sent = hone_core::clients::codex::listing_in_request(&first_turn(&read.requests).body);
    assert_eq!(sent.as_deref(), read.listing.system.as_deref());

    // Any command naming the file counts; the folder `pdf-tools` is the skill `pdf`.
    let sed = ask(
        &dir.path().join("sed"),
        Action::Run("sed -n 1,200p .agents/skills/pdf-tools/SKILL.md".into()),
        1,
    );
    assert_eq!(
        sed.answer.unwrap().choice,
        Choice::Skill { name: "pdf".into() }
    );
}

#[test]
fn the_real_codex_answering_without_a_read_picks_nothing() {
    if clients::rerun_in_loopback_namespace("the_real_codex_answering_without_a_read_picks_nothing")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let none = ask(dir.path(), Action::Answer("No skill fits this.".into()), 1);
    let answer = none.answer.unwrap();
    assert!(
        matches!(&answer.choice, Choice::NoSkill { text } if text.contains("No skill fits")),
        "{:?}",
        answer.choice
    );
    // `turn.completed`'s usage: the stand-in bills 10 in and 20 out a turn.
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (10, 20)
    );
    println!(
        "one codex provider run without a pick: {:.2} s",
        none.seconds
    );
}

/// A stream cut after `response.created` and the item's start: Codex
/// reconnects as often as the provider's config allows, then fails the
/// turn, and the provider reports it (not a run without a pick).
#[test]
fn a_codex_stream_broken_mid_answer_is_a_clear_error_after_bounded_retries() {
    if clients::rerun_in_loopback_namespace(
        "a_codex_stream_broken_mid_answer_is_a_clear_error_after_bounded_retries",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broken = ask(dir.path(), Action::BreakStream("I will use".into()), 1);
    let error = broken.answer.unwrap_err().to_string();
    assert!(
        error.contains("`codex` gave up with an error") && error.contains("stream disconnected"),
        "{error}"
    );
    let turns = broken
        .requests
        .iter()
        .filter(|r| r.path.ends_with("/responses"))
        .count();
    assert_eq!(turns, 2, "one attempt and the one retry allowed");
}

#[test]
fn a_missing_codex_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let listing = Listing::new(&skills, ListingStyle::Codex, &ListingSettings::new(), MODEL);
    let provider = Codex::new(
        MODEL,
        Some(&dir.path().join("no-such-codex")),
        None,
        None,
        Duration::from_secs(5),
        0,
    );
    let error = provider
        .ask(&listing, "hello", &Cancel::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("cannot run") && error.contains("--codex-bin"),
        "{error}"
    );
}

/// The `openai` provider's codex style sends, in its developer message, the
/// skills section the real Codex sends (same project and `$CODEX_HOME`),
/// byte for byte, and Codex's shell tool as Codex describes it.
#[test]
fn the_openai_codex_style_sends_what_the_real_codex_sends() {
    if clients::rerun_in_loopback_namespace(
        "the_openai_codex_style_sends_what_the_real_codex_sends",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = ask(dir.path(), Action::Answer("ok".into()), 0);
    run.answer.unwrap();
    let real = &first_turn(&run.requests).body;
    let real_section = real["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["role"] == "developer")
        .filter_map(|item| item["content"][0]["text"].as_str())
        .find(|text| text.starts_with("<skills_instructions>"))
        .expect("no skills section in Codex's developer messages");
    let real_tool = real["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "exec_command")
        .expect("no exec_command tool in Codex's request");

    let openai = OpenAi::new(
        MODEL,
        None,
        Some("http://127.0.0.1:9/v1"),
        HttpPolicy::default(),
    );
    let body = openai.body(&run.listing, "please help with this");
    assert_eq!(body["messages"][0]["role"], "developer");
    assert_eq!(body["messages"][0]["content"].as_str(), Some(real_section));
    assert_eq!(body["messages"][1]["content"], "please help with this");
    let function = &body["tools"][0]["function"];
    assert_eq!(function["name"], real_tool["name"]);
    assert_eq!(function["description"], real_tool["description"]);
    assert_eq!(function["parameters"], real_tool["parameters"]);

    // The pick is read off the model's command, as in Codex.
    let project = run.listing.codex_layout.as_ref().unwrap().project.clone();
    let called = |cmd: String| {
        serde_json::json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "exec_command",
            "arguments": serde_json::json!({"cmd": cmd}).to_string()}}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    };
    let absolute = project.join(".agents/skills/pdf-tools/SKILL.md");
    let pick = parse_openai(&called(format!("cat {}", absolute.display())), &run.listing);
    assert_eq!(
        pick.unwrap().choice,
        Choice::Skill {
            name: "pdf-tools".into()
        }
    );
    let builtin = parse_openai(
        &called(format!(
            "sed -n 1,80p {}/skills/.system/skill-creator/SKILL.md",
            run.listing
                .codex_layout
                .as_ref()
                .unwrap()
                .codex_home
                .display()
        )),
        &run.listing,
    );
    assert_eq!(
        builtin.unwrap().choice,
        Choice::Skill {
            name: "skill-creator".into()
        }
    );
    assert!(
        run.listing.resolve("pdf-tools") == Some("pdf") && run.listing.is_builtin("skill-creator")
    );
    let looked_around = parse_openai(&called("ls -la".into()), &run.listing).unwrap();
    assert!(matches!(looked_around.choice, Choice::NoSkill { .. }));
}

/// A run cancelled, or past its timeout, is stopped and says so.
#[test]
fn a_cancelled_or_timed_out_codex_run_is_stopped() {
    if clients::rerun_in_loopback_namespace("a_cancelled_or_timed_out_codex_run_is_stopped") {
        return;
    }
    let codex = clients::installed(Client::Codex);
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let listing = Listing::new(&skills, ListingStyle::Codex, &ListingSettings::new(), MODEL);
    let standin = StandIn::start().unwrap();
    let base_url = format!("http://127.0.0.1:{}/v1", standin.port);
    let provider = |timeout| Codex::new(MODEL, Some(&codex), Some(&base_url), None, timeout, 0);
    let cancel = Cancel::new();
    cancel.cancel();
    let cancelled = provider(Duration::from_secs(120)).ask(&listing, "hello", &cancel);
    assert!(
        matches!(cancelled, Err(AgentError::Cancelled)),
        "{cancelled:?}"
    );
    let timed_out = provider(Duration::ZERO).ask(&listing, "hello", &Cancel::new());
    assert!(
        matches!(timed_out, Err(AgentError::Timeout)),
        "{timed_out:?}"
    );
}
