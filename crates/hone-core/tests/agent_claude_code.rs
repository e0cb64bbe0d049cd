//! The `claude-code` provider against stream-json transcripts in the format
//! `claude --print --output-format stream-json --verbose` writes (one JSON
//! object a line: a `system` `init` event, `assistant` and `user` messages
//! whose content blocks are Messages API blocks, then a `result` event with
//! `total_cost_usd` and `usage`), replayed by a stand-in executable (for the
//! crash and the cost fields); and against the real `claude` binary, driven
//! by a scripted loopback model. No live model was run.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use hone_core::agent::claude_code::ClaudeCode;
use hone_core::agent::{Cancel, Choice, Listing, ListingStyle, Provider, Session};
use hone_core::catalog::ListingSettings;
use hone_core::library::{Filters, Library};
use hone_core::skill::Skill;

/// Replays `<request>.jsonl` from its folder, with `PROJECT` replaced by the
/// folder it runs in, records that folder and its arguments, and exits 1
/// when `<request>.fail` exists (a crash).
const STAND_IN: &str = r#"#!/bin/sh
here="$(dirname "$0")"
request="$(cat)"
printf '%s|%s\n' "$PWD" "$*" >> "$here/calls.log"
sed "s#PROJECT#$PWD#g" "$here/$request.jsonl"
if [ -f "$here/$request.fail" ]; then
  echo "API Error: Connection error." >&2
  exit 1
fi
"#;

const INIT: &str = r#"{"type":"system","subtype":"init","cwd":"PROJECT","session_id":"5f0c","tools":["Task","Bash","Glob","Grep","Read","Edit","Write","Skill"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","slash_commands":[],"apiKeySource":"none","output_style":"default","uuid":"a1"}"#;

fn assistant(content: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{content}],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":4,"cache_creation_input_tokens":6120,"cache_read_input_tokens":11000,"output_tokens":25}}}},"parent_tool_use_id":null,"session_id":"5f0c","uuid":"b2"}}"#
    )
}

const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":4210,"duration_api_ms":3900,"num_turns":1,"result":"Here is a haiku about autumn leaves.","session_id":"5f0c","total_cost_usd":0.0312,"usage":{"input_tokens":4,"cache_creation_input_tokens":6120,"cache_read_input_tokens":11000,"output_tokens":40},"permission_denials":[],"uuid":"c3"}"#;

fn transcripts(dir: &Path) {
    let write = |name: &str, lines: &[String]| {
        std::fs::write(dir.join(format!("{name}.jsonl")), lines.join("\n") + "\n").unwrap();
    };
    write(
        "skill call",
        &[
            INIT.into(),
            assistant(r#"{"type":"text","text":"I'll use the deploy skill for this."}"#),
            assistant(r#"{"type":"tool_use","id":"toolu_01","name":"Skill","input":{"skill":"deploy"}}"#),
            r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"Launching skill: deploy"}]},"parent_tool_use_id":null,"session_id":"5f0c"}"#.into(),
            RESULT.into(),
        ],
    );
    write(
        "read first",
        &[
            INIT.into(),
            assistant(
                r#"{"type":"tool_use","id":"toolu_02","name":"Glob","input":{"pattern":"**/*.pdf"}}"#,
            ),
            assistant(
                r#"{"type":"tool_use","id":"toolu_03","name":"Read","input":{"file_path":"PROJECT/.claude/skills/pdf-tools/SKILL.md"}}"#,
            ),
            RESULT.into(),
        ],
    );
    write(
        "no skill",
        &[
            INIT.into(),
            assistant(r#"{"type":"text","text":"Here is a haiku about autumn leaves."}"#),
            RESULT.into(),
        ],
    );
    // The process dies mid-line.
    write(
        "crash",
        &[
            INIT.into(),
            r#"{"type":"assistant","message":{"id":"msg_01","content":[{"type":"te"#.into(),
        ],
    );
    std::fs::write(dir.join("crash.fail"), "").unwrap();
}

fn library(dir: &Path) -> Library {
    for (folder, name, extra) in [
        ("deploy", "deploy", ""),
        ("pdf-tools", "pdf", ""),
        ("secret", "secret", "disable-model-invocation: true\n"),
    ] {
        let skill = dir.join(folder);
        std::fs::create_dir_all(skill.join("references")).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill.\n{extra}---\n# {name}\n"),
        )
        .unwrap();
        std::fs::write(skill.join("references").join("guide.md"), "# Guide\n").unwrap();
    }
    Library::open(&[dir.to_path_buf()], &Filters::default()).unwrap()
}

#[test]
fn claude_code_picks_come_from_the_first_skill_call_or_skill_md_read() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let stand_in = bin.join("claude");
    std::fs::write(&stand_in, STAND_IN).unwrap();
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    transcripts(&bin);
    let library = library(&dir.path().join("skills"));
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let listing = Listing::new(
        &skills,
        ListingStyle::ClaudeCode,
        &ListingSettings::new(),
        "claude-sonnet-4-5",
    );
    let provider = ClaudeCode::new("sonnet", Some(&stand_in), Duration::from_secs(60));
    let session = Session {
        provider: &provider,
        listing: &listing,
        cache: None,
        read_cache: false,
        runs: 1,
    };
    let requests: Vec<String> = ["skill call", "read first", "no skill", "crash"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let asked = session.ask_all(&requests, 2, None, &Cancel::new(), &|_, _| {});
    let answer = |i: usize| asked.answers[i][0].clone().unwrap();

    let skill_call = answer(0).unwrap();
    assert_eq!(
        skill_call.choice,
        Choice::Skill {
            name: "deploy".into()
        }
    );
    // A `Read` of `.claude/skills/pdf-tools/SKILL.md` is the skill named `pdf`.
    assert_eq!(
        answer(1).unwrap().choice,
        Choice::Skill { name: "pdf".into() }
    );
    let no_skill = answer(2).unwrap();
    assert!(matches!(&no_skill.choice, Choice::NoSkill { text } if text.contains("haiku")));
    assert_eq!(no_skill.cost_usd, Some(0.0312));
    assert_eq!(no_skill.usage.cache_read_tokens, 11000);
    let crash = answer(3).unwrap_err();
    assert!(
        crash.contains("before its answer was complete")
            && crash.contains("API Error: Connection error."),
        "{crash}"
    );

    // The scratch project holds the whole library where Claude Code lists skills.
    let project = provider.project_dir().unwrap().to_path_buf();
    for folder in ["deploy", "pdf-tools", "secret"] {
        let skill = project.join(".claude/skills").join(folder);
        assert!(skill.join("SKILL.md").is_file(), "{}", skill.display());
        assert!(skill.join("references/guide.md").is_file());
    }
    // Every run happened in that project, headless, in stream-json.
    let calls = std::fs::read_to_string(bin.join("calls.log")).unwrap();
    assert_eq!(calls.lines().count(), 4);
    for line in calls.lines() {
        let (cwd, args) = line.split_once('|').unwrap();
        assert_eq!(
            Path::new(cwd).canonicalize().unwrap(),
            project.canonicalize().unwrap()
        );
        assert!(
            args.contains("--print --output-format stream-json --verbose"),
            "{args}"
        );
        assert!(args.contains("--model sonnet"));
    }
}

#[test]
fn a_missing_claude_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let listing = Listing::new(
        &skills,
        ListingStyle::ClaudeCode,
        &ListingSettings::new(),
        "claude-sonnet-4-5",
    );
    let provider = ClaudeCode::new(
        "",
        Some(&dir.path().join("no-such-claude")),
        Duration::from_secs(5),
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

/// The provider against the real `claude` (installed by `make test`), driven
/// by a scripted loopback model speaking the Messages API: a `Skill` call, a
/// `Read` of a `SKILL.md`, and an answer with no call. Each script has its
/// own stand-in, reached through a wrapper that points the real binary at it
/// with a scratch `$HOME`.
#[test]
fn the_real_claude_code_picks_by_skill_call_or_skill_md_read() {
    use hone_core::clients::capture;
    use hone_core::clients::script::{Action, Script, Step};
    use hone_core::clients::standin::StandIn;
    use hone_core::clients::{Client, Environment};

    let installed = capture::find_installed(Client::ClaudeCode, &Environment::current())
        .expect("Claude Code is not installed: run scripts/install-clients.sh (make test does)");
    let claude = installed.command[0].clone();
    let dir = tempfile::tempdir().unwrap();
    let library = library(&dir.path().join("skills"));
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let model = "claude-sonnet-4-5";
    let listing = Listing::new(
        &skills,
        ListingStyle::ClaudeCode,
        &ListingSettings::new(),
        model,
    );
    let cases: [(&str, Action); 3] = [
        ("skill", Action::Skill("deploy".into())),
        (
            "read",
            Action::Read(".claude/skills/pdf-tools/SKILL.md".into()),
        ),
        ("none", Action::Answer("No skill fits this.".into())),
    ];
    let mut picks = Vec::new();
    for (label, action) in cases {
        let case = dir.path().join(label);
        let home = case.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let wrapper = case.join("claude");
        let provider = ClaudeCode::new(model, Some(&wrapper), Duration::from_secs(120));
        provider.prepare(&listing).unwrap();
        let project = provider.project_dir().unwrap().to_path_buf();
        let script = Script {
            steps: vec![Step { action, when: None }],
            workspace: project,
        };
        let standin = StandIn::start_with(Some((Client::ClaudeCode, script))).unwrap();
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nexport HOME='{home}' XDG_CONFIG_HOME='{home}/.config' ANTHROPIC_BASE_URL='http://127.0.0.1:{port}' \
                 ANTHROPIC_API_KEY=loopback CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1\n\
                 exec '{claude}' \"$@\"\n",
                home = home.display(),
                port = standin.port,
                claude = claude.display(),
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let answer = provider
            .ask(&listing, "please help with this", &Cancel::new())
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        // The real client sent the listing Hone predicts for the model.
        let sent = standin
            .recorded()
            .iter()
            .find_map(|r| hone_core::clients::claude_code::listing_in_request(&r.body))
            .unwrap_or_else(|| panic!("{label}: no listing in the client's requests"));
        assert_eq!(Some(sent.as_str()), listing.system.as_deref(), "{label}");
        picks.push(answer.choice);
    }
    assert_eq!(
        picks[0],
        Choice::Skill {
            name: "deploy".into()
        }
    );
    // A `Read` of `.claude/skills/pdf-tools/SKILL.md` is the skill named `pdf`.
    assert_eq!(picks[1], Choice::Skill { name: "pdf".into() });
    assert!(
        matches!(&picks[2], Choice::NoSkill { text } if text.contains("No skill fits")),
        "{:?}",
        picks[2]
    );
}
