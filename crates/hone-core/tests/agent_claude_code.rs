//! The `claude-code` provider against the real `claude` binary (installed by
//! `make test`), driven by a scripted loopback model speaking the Messages
//! API, in a network namespace with loopback only where one can be made:
//! a `Skill` call, a `Read` of a `SKILL.md`, an answer with no call (and the
//! cost and usage of its `result` event), a stream broken mid-answer (a
//! clear error, Claude Code's retries bounded), and a run that dies before
//! its answer. No live model is run.
#![cfg(unix)]

mod clients;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use hone_core::agent::claude_code::ClaudeCode;
use hone_core::agent::{AgentError, Answer, Choice, Listing, ListingStyle, Provider};
use hone_core::cancel::Cancel;
use hone_core::clients::Client;
use hone_core::clients::claude_code::ListingSettings;
use hone_core::clients::script::{Action, Script, Step};
use hone_core::clients::standin::{Recorded, StandIn};
use hone_core::library::Library;
use hone_core::skill::Skill;

const MODEL: &str = "claude-sonnet-4-5";

fn library(dir: &Path) -> Library {
    clients::planted_library(
        dir,
        &[
            ("deploy", "deploy", ""),
            ("pdf-tools", "pdf", ""),
            ("secret", "secret", "disable-model-invocation: true\n"),
        ],
    )
}

fn listing_of(library: &Library) -> Listing {
    let skills: Vec<&Skill> = library.skills.iter().collect();
    Listing::new(
        &skills,
        ListingStyle::ClaudeCode,
        &ListingSettings::new(),
        MODEL,
    )
}

/// One run of the provider against the real `claude` playing `action`.
struct Run {
    answer: Result<Answer, AgentError>,
    requests: Vec<Recorded>,
    /// Kept so that its scratch project outlives the run.
    provider: ClaudeCode,
    /// `cwd|arguments` of each start of `claude`.
    calls: String,
}

/// Asks once, with a scripted model playing `action`. The provider starts a
/// wrapper that logs its folder and arguments and starts the real `claude`
/// with a scratch `$HOME`, pointed at the stand-in (and given
/// `extra_args`, to make it fail).
fn ask(dir: &Path, label: &str, action: Action, retries: u32, extra_args: &str) -> Run {
    let claude = clients::installed(Client::ClaudeCode);
    let library = library(&dir.join(label).join("skills"));
    let listing = listing_of(&library);
    let case = dir.join(label);
    let home = case.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let wrapper = case.join("claude");
    let provider = ClaudeCode::new(MODEL, Some(&wrapper), Duration::from_secs(120), retries);
    provider.prepare(&listing).unwrap();
    let script = Script {
        steps: vec![Step { action, when: None }],
        workspace: provider.project_dir().unwrap().to_path_buf(),
    };
    let standin = StandIn::start_with(Some((Client::ClaudeCode, script))).unwrap();
    let log = case.join("calls.log");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nprintf '%s|%s\\n' \"$PWD\" \"$*\" >> '{log}'\n\
             export HOME='{home}' XDG_CONFIG_HOME='{home}/.config' ANTHROPIC_BASE_URL='http://127.0.0.1:{port}' \
             ANTHROPIC_API_KEY=loopback CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1\n\
             exec '{claude}' \"$@\" {extra_args}\n",
            log = log.display(),
            home = home.display(),
            port = standin.port,
            claude = claude.display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let answer = provider.ask(&listing, "please help with this", &Cancel::new());
    if extra_args.is_empty() {
        // The real client sent the listing Hone predicts for the model.
        let sent = standin
            .recorded()
            .iter()
            .find_map(|r| hone_core::clients::claude_code::listing_in_request(&r.body));
        assert_eq!(sent.as_deref(), listing.system.as_deref(), "{label}");
    }
    Run {
        answer,
        requests: standin.recorded(),
        provider,
        calls: std::fs::read_to_string(&log).unwrap_or_default(),
    }
}

#[test]
fn the_real_claude_code_picks_by_skill_call_or_skill_md_read() {
    if clients::rerun_in_loopback_namespace(
        "the_real_claude_code_picks_by_skill_call_or_skill_md_read",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let skill = ask(dir.path(), "skill", Action::Skill("deploy".into()), 1, "");
    assert_eq!(
        skill.answer.unwrap().choice,
        Choice::Skill {
            name: "deploy".into()
        }
    );
    // A `Read` of `.claude/skills/pdf-tools/SKILL.md` is the skill named `pdf`.
    let read = ask(
        dir.path(),
        "read",
        Action::Read(".claude/skills/pdf-tools/SKILL.md".into()),
        1,
        "",
    );
    assert_eq!(
        read.answer.unwrap().choice,
        Choice::Skill { name: "pdf".into() }
    );

    // The scratch project holds the whole library where Claude Code lists
    // skills, a disabled skill and the skills' other files included.
    let project = read.provider.project_dir().unwrap();
    for folder in ["deploy", "pdf-tools", "secret"] {
        let skill = project.join(".claude/skills").join(folder);
        assert!(skill.join("SKILL.md").is_file(), "{}", skill.display());
        assert!(skill.join("references/guide.md").is_file());
    }
    // The run happened in that project, headless, in stream-json, with the
    // model and the turn bound.
    assert_eq!(read.calls.lines().count(), 1, "{}", read.calls);
    let (cwd, args) = read.calls.trim_end().split_once('|').unwrap();
    assert_eq!(
        Path::new(cwd).canonicalize().unwrap(),
        project.canonicalize().unwrap()
    );
    assert!(
        args.contains("--print --output-format stream-json --verbose --max-turns 3"),
        "{args}"
    );
    assert!(args.contains(&format!("--model {MODEL}")), "{args}");
}

#[test]
fn the_real_claude_code_answering_without_a_call_picks_nothing_and_reports_its_cost() {
    if clients::rerun_in_loopback_namespace(
        "the_real_claude_code_answering_without_a_call_picks_nothing_and_reports_its_cost",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let none = ask(
        dir.path(),
        "none",
        Action::Answer("No skill fits this.".into()),
        1,
        "",
    );
    let answer = none.answer.unwrap();
    assert!(
        matches!(&answer.choice, Choice::NoSkill { text } if text.contains("No skill fits")),
        "{:?}",
        answer.choice
    );
    // The `result` event's usage (the stand-in bills 10 in, 20 out) and the
    // cost Claude Code computed from it.
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (10, 20)
    );
    assert!(answer.cost_usd.is_some_and(|usd| usd > 0.0), "{answer:?}");
}

/// A stream cut after `message_start` and part of the text: Claude Code
/// retries as often as the provider allows, then gives up, and the provider
/// reports its error (not a run without a pick).
#[test]
fn a_stream_broken_mid_answer_is_a_clear_error_after_bounded_retries() {
    if clients::rerun_in_loopback_namespace(
        "a_stream_broken_mid_answer_is_a_clear_error_after_bounded_retries",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broken = ask(
        dir.path(),
        "broken",
        Action::BreakStream("I will use".into()),
        1,
        "",
    );
    let error = broken.answer.unwrap_err().to_string();
    assert!(
        error.contains("`claude` gave up with an error") && error.contains("API Error"),
        "{error}"
    );
    // One streamed attempt and the one retry allowed.
    let streamed = broken
        .requests
        .iter()
        .filter(|r| r.body["tools"].is_array() && r.body["stream"] == true)
        .count();
    assert_eq!(streamed, 2, "{:#?}", broken.requests.len());
}

/// `claude` ending without a `result` (here on an argument it refuses) is
/// an error that quotes what it printed.
#[test]
fn a_claude_that_ends_without_an_answer_is_a_clear_error() {
    if clients::rerun_in_loopback_namespace("a_claude_that_ends_without_an_answer_is_a_clear_error")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let crash = ask(
        dir.path(),
        "crash",
        Action::Answer("unused".into()),
        1,
        "--no-such-option",
    );
    let error = crash.answer.unwrap_err().to_string();
    assert!(
        error.contains("before its answer was complete") && error.contains("no-such-option"),
        "{error}"
    );
}

#[test]
fn a_missing_claude_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let listing = listing_of(&library);
    let provider = ClaudeCode::new(
        "",
        Some(&dir.path().join("no-such-claude")),
        Duration::from_secs(5),
        0,
    );
    let error = provider
        .ask(&listing, "hello", &Cancel::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("cannot run") && error.contains("--claude-bin"),
        "{error}"
    );
}
