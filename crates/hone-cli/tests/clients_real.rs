//! The real clients, run offline, against Hone's predictions.
//!
//! Each run plants a library of edge cases (names, descriptions, YAML quirks,
//! encodings, folders, duplicates, settings, budgets at several sizes and
//! models, user and project levels) in a scratch project and a scratch
//! `$HOME`, starts the installed client there against a loopback stand-in of
//! its provider (in a network namespace with loopback only, where the OS
//! allows it), and compares the listing in its request, entry by entry and
//! byte for byte, with `hone_core::clients::predict` on the same folders.
//! Many cases share one run, and runs go two at a time, so the suite adds
//! a minute or so, not ten.
//!
//! The clients are installed by `make test` (scripts/install-clients.sh);
//! when one is missing these tests fail and say how to install it.

use std::path::{Path, PathBuf};
use std::process::Command;

use hone_core::clients::bundled::{self, Builtin, Bundled, SkillTool, bundled};
use hone_core::clients::capture::{self, Isolation, Plan};
use hone_core::clients::{self, Client, Environment};

/// One planted file: a path under the project or the home, and its bytes.
struct File {
    home: bool,
    path: String,
    bytes: Vec<u8>,
}

/// One run of a client on one planted library.
struct Run {
    name: &'static str,
    client: Client,
    model: Option<&'static str>,
    vars: Vec<(&'static str, String)>,
    /// The folder under the project the client starts in ("" for its root).
    cwd: &'static str,
    files: Vec<File>,
    /// How many edge cases the run covers.
    cases: usize,
}

fn skill(home: bool, folder: &str, text: &str) -> File {
    File {
        home,
        path: format!("{folder}/SKILL.md"),
        bytes: text.as_bytes().to_vec(),
    }
}

fn raw(home: bool, path: &str, bytes: &[u8]) -> File {
    File {
        home,
        path: path.to_string(),
        bytes: bytes.to_vec(),
    }
}

fn fm(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nBody.\n")
}

/// The skill edge cases, planted under `dir` (a client's skill folder).
/// Each is one case.
fn edge_cases(dir: &str) -> Vec<File> {
    let s = |folder: &str, text: &str| skill(false, &format!("{dir}/{folder}"), text);
    let long_words: String = (0..1000)
        .map(|i| format!("w{i:04}"))
        .collect::<Vec<_>>()
        .join(" ");
    let exactly = "x".repeat(1536);
    let over = "y".repeat(1537);
    vec![
        s("a-plain", &fm("a-plain", "Plain description.")),
        s("b-folder", &fm("b-other-name", "Name differs from folder.")),
        s("c-noname", "---\ndescription: No name key.\n---\nBody\n"),
        s(
            "d-nodesc",
            "---\nname: d-nodesc\n---\n\n## Heading two\nsecond line\n",
        ),
        s(
            "e-emptydesc",
            "---\nname: e-emptydesc\ndescription: \"\"\n---\nFirst body line *with* `code`.\n",
        ),
        s(
            "f-escape",
            "---\nname: f-escape\ndescription: \"Uses <b>tags</b> & \\\"quotes\\\" and 'single' > arrows\"\n---\nB\n",
        ),
        s(
            "g-literal",
            "---\nname: g-literal\ndescription: |\n  Line one.\n  Line two.\n\n  Para two.\n---\nB\n",
        ),
        s(
            "h-folded",
            "---\nname: h-folded\ndescription: >\n  Folded one\n  folded two.\n---\nB\n",
        ),
        s(
            "i-badyaml",
            "---\nname: i-badyaml\ndescription: Broken: yaml: here\n  - [unclosed\n---\nBody of a broken file\n",
        ),
        raw(
            false,
            &format!("{dir}/j-bom/SKILL.md"),
            b"\xef\xbb\xbf---\nname: j-bom\ndescription: Has a BOM.\n---\nB\n",
        ),
        raw(
            false,
            &format!("{dir}/k-crlf/SKILL.md"),
            b"---\r\nname: k-crlf\r\ndescription: CRLF endings.\r\n---\r\nB\r\n",
        ),
        s(
            "l-dupkey",
            "---\nname: l-dupkey\ndescription: First.\ndescription: Second.\n---\nB\n",
        ),
        s(
            "m-longname",
            &fm(&format!("m-{}", "a".repeat(70)), "Long name."),
        ),
        s("n-longdesc", &fm("n-longdesc", &long_words)),
        s("o-Upper", &fm("O-Upper", "Uppercase name.")),
        raw(
            false,
            &format!("{dir}/p-lower/skill.md"),
            fm("p-lower", "lowercase file.").as_bytes(),
        ),
        s("q-nested/inner", &fm("q-inner", "Nested inner.")),
        s(
            "r-dmi",
            "---\nname: r-dmi\ndescription: Disabled model invocation.\ndisable-model-invocation: true\n---\nB\n",
        ),
        s("synced", &fm("synced", "Reserved folder synced.")),
        s(
            "anthropic-skills",
            &fm("anthropic-skills", "Reserved folder."),
        ),
        s("s-nofront", "# Just a heading\nNo frontmatter here.\n"),
        s(
            "t-colon",
            "---\nname: t-colon\ndescription: \"Use when: you need colons\"\n---\nB\n",
        ),
        s(
            "u-when",
            "---\nname: u-when\ndescription: Has when_to_use.\nwhen_to_use: When the user asks for u.\n---\nB\n",
        ),
        s(
            "v-multiline-plain",
            "---\nname: v-multiline-plain\ndescription: first line\n  continued plain\n---\nB\n",
        ),
        s(
            "w-tabs",
            "---\nname: w-tabs\ndescription: \"tab\\there and  double  spaces\"\n---\nB\n",
        ),
        s(
            "x-nonstr",
            "---\nname: x-nonstr\ndescription: 12345\n---\nB\n",
        ),
        s(
            "y-list",
            "---\nname: y-list\ndescription: [a, b]\n---\nList body line\n",
        ),
        s(
            "z-unicode",
            &fm("z-unicode", "Café naïve — “quotes” 日本語 emoji 🎉."),
        ),
        s(".hidden", &fm("hidden", "hidden dir.")),
        raw(false, &format!("{dir}/empty-folder/.keep"), b""),
        s("ab-exact-cap", &fm("ab-exact-cap", &exactly)),
        s("ac-over-cap", &fm("ac-over-cap", &over)),
        s("ad-bool", "---\nname: ad-bool\ndescription: true\n---\nB\n"),
        s(
            "ae-null",
            "---\nname: ae-null\ndescription: ~\n---\nNull description body\n",
        ),
        s(
            "af-map",
            "---\nname: af-map\ndescription:\n  text: a map\n---\nMap description body\n",
        ),
        s(
            "ag-spaces",
            "---\nname: ag-spaces\ndescription: \"   padded   \"\n---\nB\n",
        ),
        s(
            "ah-heading-only",
            "---\nname: ah-heading-only\n---\n###   Deep heading  \n",
        ),
        s("ai-empty-body", "---\nname: ai-empty-body\n---\n"),
        s(
            "aj-longline",
            &format!("---\nname: aj-longline\n---\n{}\n", "z".repeat(150)),
        ),
        s("ak-alias-space", &fm("has space", "Alias with a space.")),
        s("al-alias-colon", &fm("al:colon", "Alias with a colon.")),
        s(
            "am-quoted-name",
            "---\nname: \"am-quoted-name\"\ndescription: 'single quoted: value'\n---\nB\n",
        ),
        s(
            "an-comment",
            "---\nname: an-comment # trailing comment\ndescription: value # comment\n---\nB\n",
        ),
        s(
            "ao-tag",
            "---\nname: ao-tag\ndescription: !!str tagged\n---\nB\n",
        ),
        s(
            "ap-unclosed",
            "---\nname: ap-unclosed\ndescription: never closed\n",
        ),
        s(
            "aq-extra-keys",
            "---\nname: aq-extra-keys\ndescription: Extra keys.\nversion: 2\nlicense: MIT\nmetadata:\n  x: 1\n---\nB\n",
        ),
        s(
            "ar-html-comment",
            &fm("ar-html-comment", "Text <!-- hidden --> after."),
        ),
        s("as-cjk", &fm("as-cjk", "日本語の説明です。")),
        s(
            "at-ctrl",
            "---\nname: at-ctrl\ndescription: \"bell\\a and\\u0000nul\"\n---\nB\n",
        ),
        s(
            "au-nbsp",
            &fm("au-nbsp", "non\u{a0}breaking\u{2003}em space"),
        ),
        s(
            "av-ls",
            "---\nname: av-ls\ndescription: \"line\\u2028separator\"\n---\nB\n",
        ),
    ]
}

/// Claude Code's own cases: its folders, settings, budgets and models.
fn claude_code_runs() -> Vec<Run> {
    let mut runs = Vec::new();
    let mut edge = edge_cases(".claude/skills");
    let cases = edge.len();
    edge.push(skill(
        true,
        ".claude/skills/a-plain",
        &fm("a-plain", "USER version of a-plain."),
    ));
    edge.push(skill(
        true,
        ".claude/skills/user-only",
        &fm("user-only", "User level only."),
    ));
    edge.push(skill(
        true,
        ".claude/skills/zz-user-last",
        &fm("zz-user-last", "Sorted with the user skills."),
    ));
    // A project skill with a built-in's name: the client drops its own.
    edge.push(skill(
        false,
        ".claude/skills/init",
        &fm("init", "Sets up our team's project skeleton."),
    ));
    runs.push(Run {
        name: "claude-code-edge-cases",
        client: Client::ClaudeCode,
        model: None,
        vars: vec![],
        cwd: "",
        files: edge,
        cases: cases + 4,
    });

    // Settings: overrides, the description cap, and an alias that names another skill.
    let settings = r#"{"skillOverrides": {"s-name-only": "name-only", "s-off": "off", "s-user-only": "user-invocable-only"}, "skillListingMaxDescChars": 40}"#;
    runs.push(Run {
        name: "claude-code-settings",
        client: Client::ClaudeCode,
        model: None,
        vars: vec![],
        cwd: "",
        files: vec![
            raw(false, ".claude/settings.json", settings.as_bytes()),
            skill(
                false,
                ".claude/skills/s-name-only",
                &fm("s-name-only", "Shown as a bare name."),
            ),
            skill(
                false,
                ".claude/skills/s-off",
                &fm("s-off", "Hidden by an override."),
            ),
            skill(
                false,
                ".claude/skills/s-user-only",
                &fm("s-user-only", "Only the user invokes it."),
            ),
            skill(
                false,
                ".claude/skills/s-cap",
                &fm(
                    "s-cap",
                    "A description longer than the forty characters the settings allow.",
                ),
            ),
            skill(
                false,
                ".claude/skills/s-alias-taken",
                &fm("s-cap", "Its alias is another skill's name."),
            ),
        ],
        cases: 5,
    });

    // Budgets: 150 skills of ~300 characters, at two models and an explicit budget.
    let library = |prefix: &str| -> Vec<File> {
        (0..150)
            .map(|i| {
                let description = format!(
                    "Skill {i:03} handles task family {i} for {prefix}: {}",
                    "it reads the inputs, checks them, and writes a report the user can act on. "
                        .repeat(4)
                );
                skill(
                    false,
                    &format!(".claude/skills/{prefix}-{i:03}"),
                    &fm(&format!("{prefix}-{i:03}"), description.trim()),
                )
            })
            .collect()
    };
    runs.push(Run {
        name: "claude-code-budget-default-model",
        client: Client::ClaudeCode,
        model: None,
        vars: vec![],
        cwd: "",
        files: library("big"),
        cases: 1,
    });
    runs.push(Run {
        name: "claude-code-budget-sonnet-4-5",
        client: Client::ClaudeCode,
        model: Some("claude-sonnet-4-5"),
        vars: vec![],
        cwd: "",
        files: library("big"),
        cases: 1,
    });
    runs.push(Run {
        name: "claude-code-budget-env",
        client: Client::ClaudeCode,
        model: None,
        vars: vec![("SLASH_COMMAND_TOOL_CHAR_BUDGET", "9000".to_string())],
        cwd: "",
        files: library("env").into_iter().take(40).collect(),
        cases: 1,
    });
    runs.push(Run {
        name: "claude-code-budget-haiku-small",
        client: Client::ClaudeCode,
        model: Some("claude-haiku-4-5"),
        vars: vec![],
        cwd: "",
        files: library("tiny").into_iter().take(20).collect(),
        cases: 1,
    });

    // Folders: started in a subfolder, with skills at the root and on the way.
    runs.push(Run {
        name: "claude-code-nested-cwd",
        client: Client::ClaudeCode,
        model: None,
        vars: vec![],
        cwd: "packages/web",
        files: vec![
            skill(
                false,
                ".claude/skills/root-skill",
                &fm("root-skill", "At the project root."),
            ),
            skill(
                false,
                "packages/.claude/skills/mid-skill",
                &fm("mid-skill", "In a folder on the way."),
            ),
            skill(
                false,
                "packages/web/.claude/skills/leaf-skill",
                &fm("leaf-skill", "In the working folder."),
            ),
            skill(
                false,
                "packages/web/.claude/skills/root-skill",
                &fm("root-skill", "Same name nearer the working folder."),
            ),
            skill(
                true,
                ".claude/skills/home-skill",
                &fm("home-skill", "In the home folder."),
            ),
        ],
        cases: 4,
    });
    runs
}

/// Gemini CLI's cases: its four folders, precedence, and its two prompts.
fn gemini_runs() -> Vec<Run> {
    let mut files = edge_cases(".gemini/skills");
    let cases = files.len();
    files.extend([
        skill(
            false,
            ".agents/skills/agents-project",
            &fm("agents-project", "From the project's .agents folder."),
        ),
        skill(
            false,
            ".agents/skills/dup-project",
            &fm("dup-project", "The .agents copy wins."),
        ),
        skill(
            false,
            ".gemini/skills/dup-project",
            &fm("dup-project", "The .gemini copy loses."),
        ),
        skill(
            true,
            ".gemini/skills/dup-user",
            &fm("dup-user", "The user copy loses to the project's."),
        ),
        skill(
            false,
            ".gemini/skills/dup-user",
            &fm(
                "dup-user",
                "The project copy wins, in the user copy's place.",
            ),
        ),
        skill(
            true,
            ".agents/skills/user-agents",
            &fm("user-agents", "From ~/.agents/skills."),
        ),
        raw(
            false,
            ".gemini/skills/SKILL.md",
            fm("top-level", "A SKILL.md at the top of the folder.").as_bytes(),
        ),
        skill(
            false,
            ".gemini/skills/sanitised",
            &fm("\"x:y/z<w>*?|q\"", "Name characters replaced."),
        ),
        skill(
            false,
            ".claude/skills/not-read",
            &fm("not-read", "Gemini does not read .claude."),
        ),
    ]);
    vec![
        Run {
            name: "gemini-edge-cases",
            client: Client::Gemini,
            model: None,
            vars: vec![],
            cwd: "",
            files,
            cases: cases + 7,
        },
        Run {
            name: "gemini-2-5-prompt",
            client: Client::Gemini,
            model: Some("gemini-2.5-pro"),
            vars: vec![],
            cwd: "",
            files: vec![skill(
                false,
                ".gemini/skills/one",
                &fm("one", "The legacy prompt's header."),
            )],
            cases: 1,
        },
    ]
}

/// OpenCode's cases: its many folders, recursion, precedence and order.
fn opencode_runs() -> Vec<Run> {
    let mut files = edge_cases(".opencode/skills");
    let cases = files.len();
    files.extend([
        skill(
            false,
            ".claude/skills/from-claude",
            &fm("from-claude", "OpenCode reads .claude/skills."),
        ),
        skill(
            false,
            ".agents/skills/.hidden-agents",
            &fm("hidden-agents", "Hidden folders count under .agents."),
        ),
        skill(
            false,
            ".opencode/skill/singular",
            &fm("singular", "The singular folder."),
        ),
        skill(
            true,
            ".claude/skills/user-claude",
            &fm("user-claude", "From ~/.claude/skills."),
        ),
        skill(
            false,
            ".opencode/skills/deep/er/still",
            &fm("still", "Any depth counts."),
        ),
        skill(
            false,
            ".opencode/skills/Beta",
            &fm("Beta", "Sorted without case."),
        ),
        skill(
            false,
            ".opencode/skills/_under",
            &fm("_under", "Punctuation sorts first."),
        ),
        skill(
            false,
            ".opencode/skills/10-x",
            &fm("10-x", "Digits are not numbers."),
        ),
    ]);
    vec![
        Run {
            name: "opencode-edge-cases",
            client: Client::Opencode,
            model: None,
            vars: vec![],
            cwd: "",
            files,
            cases: cases + 8,
        },
        Run {
            name: "opencode-nested-cwd",
            client: Client::Opencode,
            model: None,
            vars: vec![],
            cwd: "sub/dir",
            files: vec![
                skill(
                    false,
                    ".claude/skills/root-skill",
                    &fm("root-skill", "At the git root."),
                ),
                skill(
                    false,
                    "sub/.opencode/skills/mid-skill",
                    &fm("mid-skill", "In a .opencode on the way."),
                ),
                skill(
                    false,
                    "sub/dir/.agents/skills/leaf-skill",
                    &fm("leaf-skill", "In the working folder."),
                ),
            ],
            cases: 3,
        },
    ]
}

/// `count` skills named `prefix-NNN` with descriptions of `length` characters.
fn many(dir: &str, prefix: &str, count: usize, length: usize) -> Vec<File> {
    (0..count)
        .map(|i| {
            let words: String = (0..)
                .map(|w| format!("w{i:03}x{w:04} "))
                .take(length / 10 + 1)
                .collect::<String>();
            let description: String = words
                .chars()
                .take(length)
                .collect::<String>()
                .trim()
                .to_string();
            skill(
                false,
                &format!("{dir}/{prefix}-{i:03}"),
                &fm(&format!("{prefix}-{i:03}"), &description),
            )
        })
        .collect()
}

/// Codex CLI's cases: recursion, strict reading, duplicates, and its budget
/// at three sizes and two models.
fn codex_runs() -> Vec<Run> {
    let mut files = edge_cases(".agents/skills");
    let cases = files.len();
    files.extend([
        skill(
            false,
            ".codex/skills/from-codex-folder",
            &fm("from-codex-folder", "The project's .codex folder."),
        ),
        skill(
            true,
            ".codex/skills/user-codex",
            &fm("user-codex", "From ~/.codex/skills."),
        ),
        skill(
            true,
            ".agents/skills/a-plain",
            &fm("a-plain", "A user copy: both are listed."),
        ),
        skill(
            false,
            ".agents/skills/deep/er/nested",
            &fm("nested", "Any depth counts."),
        ),
        raw(
            false,
            ".agents/skills/policy/agents/openai.yaml",
            b"policy:\n  allow_implicit_invocation: false\n",
        ),
        skill(
            false,
            ".agents/skills/policy",
            &fm("policy", "Hidden by its openai.yaml."),
        ),
    ]);
    vec![
        Run {
            name: "codex-edge-cases",
            client: Client::Codex,
            model: None,
            vars: vec![],
            cwd: "",
            files,
            cases: cases + 6,
        },
        Run {
            name: "codex-budget",
            client: Client::Codex,
            model: None,
            vars: vec![],
            cwd: "",
            files: many(".agents/skills", "t", 100, 300),
            cases: 1,
        },
        Run {
            name: "codex-budget-many-short",
            client: Client::Codex,
            model: None,
            vars: vec![],
            cwd: "",
            files: many(".agents/skills", "s", 260, 117),
            cases: 1,
        },
        Run {
            name: "codex-budget-other-model",
            client: Client::Codex,
            model: Some("gpt-6.2-sol"),
            vars: vec![],
            cwd: "",
            files: many(".agents/skills", "m", 150, 433),
            cases: 1,
        },
    ]
}

/// Copilot CLI's cases: strict reading, names, precedence, the budget.
fn copilot_runs() -> Vec<Run> {
    let mut files = edge_cases(".github/skills");
    let cases = files.len();
    files.extend([
        skill(
            false,
            ".agents/skills/from-agents",
            &fm("from-agents", "The project's .agents folder."),
        ),
        skill(
            false,
            ".claude/skills/a-plain",
            &fm("a-plain", "Loses to the .github copy."),
        ),
        skill(
            true,
            ".copilot/skills/user-copilot",
            &fm("user-copilot", "From ~/.copilot/skills."),
        ),
        skill(
            true,
            ".agents/skills/user-agents",
            &fm("user-agents", "From ~/.agents/skills."),
        ),
        skill(
            false,
            ".github/skills/group/inner",
            &fm("inner", "Found below a folder without SKILL.md."),
        ),
        skill(
            false,
            ".github/skills/spaced",
            &fm("n  two  spaces", "Spaces become dashes."),
        ),
        skill(
            false,
            ".github/skills/body-only",
            "---\nname: body-only\n---\n# Title\nPlain first line\nsecond line.\n\nSecond para.\n",
        ),
    ]);
    vec![
        Run {
            name: "copilot-edge-cases",
            client: Client::Copilot,
            model: None,
            vars: vec![],
            cwd: "",
            files,
            cases: cases + 7,
        },
        Run {
            name: "copilot-budget-300x20",
            client: Client::Copilot,
            model: None,
            vars: vec![],
            cwd: "",
            files: many(".github/skills", "s", 300, 20),
            cases: 1,
        },
        Run {
            name: "copilot-budget-other-model",
            client: Client::Copilot,
            model: Some("gpt-4.1"),
            vars: vec![],
            cwd: "",
            files: many(".github/skills", "t", 120, 120),
            cases: 1,
        },
    ]
}

/// A network namespace with loopback only, entered by re-running `hone`.
fn isolation() -> Isolation {
    Isolation::Namespace {
        reexec: vec![
            env!("CARGO_BIN_EXE_hone").into(),
            "clients".into(),
            "capture-inside".into(),
        ],
    }
}

/// Plants `run` in a fresh scratch project and home.
fn plant(run: &Run, root: &Path) -> (PathBuf, PathBuf) {
    let project = root.join("project");
    let home = root.join("home");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .status();
    if !git.is_ok_and(|s| s.success()) {
        std::fs::create_dir_all(project.join(".git")).unwrap();
    }
    for file in &run.files {
        let path = if file.home { &home } else { &project }.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &file.bytes).unwrap();
    }
    let cwd = project.join(run.cwd);
    std::fs::create_dir_all(&cwd).unwrap();
    (cwd, home)
}

struct Outcome {
    name: &'static str,
    client: Client,
    cases: usize,
    compared: usize,
    identical: usize,
    seconds: f64,
    failure: Option<String>,
}

fn run_one(run: &Run) -> Outcome {
    let env = Environment::current();
    let installed = capture::find_installed(run.client, &env).unwrap_or_else(|| {
        panic!(
            "{} is not installed in {}: run scripts/install-clients.sh (make test does)",
            run.client.display_name(),
            capture::clients_dir(&env).display()
        )
    });
    let scratch = tempfile::tempdir().unwrap();
    let (cwd, home) = plant(run, scratch.path());
    let mut scratch_env = Environment::with_home(&home);
    // The clients' own files stay where they are installed.
    scratch_env.vars.insert(
        "HONE_CLIENTS_DIR".into(),
        capture::clients_dir(&env).display().to_string(),
    );
    for (name, value) in &run.vars {
        scratch_env.vars.insert(name.to_string(), value.clone());
    }
    let prediction = clients::predict(run.client, &cwd, &scratch_env, run.model).unwrap();
    let plan = Plan {
        installed,
        project: cwd.clone(),
        home: home.clone(),
        model: run.model.map(str::to_string),
        vars: run
            .vars
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
        timeout_secs: 150,
        task: None,
        egress: None,
    };
    let captured = capture::run(&plan, &isolation()).unwrap();
    let predicted: Vec<String> = prediction.entries.iter().map(|e| e.text.clone()).collect();
    let Some(real) = captured.listing.as_deref() else {
        return Outcome {
            name: run.name,
            client: run.client,
            cases: run.cases,
            compared: predicted.len(),
            identical: 0,
            seconds: captured.seconds,
            failure: Some(format!(
                "no listing in {} requests ({}): {}",
                captured.requests.len(),
                captured.status,
                captured.stderr_tail
            )),
        };
    };
    let real_entries = clients::split_listing(run.client, real);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let _ = std::fs::write(dir.join(format!("{}.client.txt", run.name)), real);
    let _ = std::fs::write(
        dir.join(format!("{}.hone.txt", run.name)),
        &prediction.listing,
    );
    let identical = predicted
        .iter()
        .zip(&real_entries)
        .filter(|(p, r)| p == r)
        .count();
    let short = |s: &str| format!("{:?}", s.chars().take(300).collect::<String>());
    let mut diff = String::new();
    for entry in predicted.iter().filter(|p| !real_entries.contains(p)) {
        diff.push_str(&format!("  only in Hone's prediction: {}\n", short(entry)));
    }
    for entry in real_entries.iter().filter(|r| !predicted.contains(r)) {
        diff.push_str(&format!(
            "  only in the client's listing: {}\n",
            short(entry)
        ));
    }
    let mut sorted_p = predicted.clone();
    let mut sorted_r = real_entries.clone();
    sorted_p.sort();
    sorted_r.sort();
    let order_only = diff.is_empty() && sorted_p == sorted_r && predicted != real_entries;
    if order_only && !run.client.listing_order_is_stable() {
        // The client lists a folder in the order its file walk finishes.
        return Outcome {
            name: run.name,
            client: run.client,
            cases: run.cases,
            compared: predicted.len(),
            identical: predicted.len(),
            seconds: captured.seconds,
            failure: None,
        };
    }
    if diff.is_empty() && predicted != real_entries {
        let names = |entries: &[String]| -> String {
            entries
                .iter()
                .map(|e| {
                    let name = e
                        .split("<name>")
                        .nth(1)
                        .and_then(|r| r.split("</name>").next());
                    name.unwrap_or_else(|| e.lines().next().unwrap_or(""))
                        .chars()
                        .take(60)
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join(" | ")
        };
        diff.push_str(&format!(
            "  the same entries in another order:\n    hone:   {}\n    client: {}\n",
            names(&predicted),
            names(&real_entries)
        ));
    }
    Outcome {
        name: run.name,
        client: run.client,
        cases: run.cases,
        compared: predicted.len().max(real_entries.len()),
        identical,
        seconds: captured.seconds,
        failure: (!diff.is_empty() || real != prediction.listing).then(|| {
            if diff.is_empty() {
                format!(
                    "entries agree but the listing differs:\n--- hone\n{}\n--- client\n{real}",
                    prediction.listing
                )
            } else {
                diff
            }
        }),
    }
}

/// Runs every run, two at a time, and reports per client.
fn run_all(runs: Vec<Run>) {
    let runs = std::sync::Mutex::new(runs.into_iter());
    let outcomes = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let Some(run) = runs.lock().unwrap().next() else {
                        return;
                    };
                    let outcome = run_one(&run);
                    outcomes.lock().unwrap().push(outcome);
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|o| o.name);
    let mut report = String::new();
    for client in Client::ALL {
        let mine: Vec<&Outcome> = outcomes.iter().filter(|o| o.client == client).collect();
        if mine.is_empty() {
            continue;
        }
        report.push_str(&format!(
            "{}: {} runs, {} cases, {} entries compared, {} identical, {:.1} s of client time\n",
            client.display_name(),
            mine.len(),
            mine.iter().map(|o| o.cases).sum::<usize>(),
            mine.iter().map(|o| o.compared).sum::<usize>(),
            mine.iter().map(|o| o.identical).sum::<usize>(),
            mine.iter().map(|o| o.seconds).sum::<f64>(),
        ));
    }
    let failures: Vec<String> = outcomes
        .iter()
        .filter_map(|o| o.failure.as_ref().map(|f| format!("{}:\n{f}", o.name)))
        .collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let client = outcomes.first().map_or("none", |o| o.client.as_str());
    let _ = std::fs::write(
        dir.join(format!("clients-real-{client}.txt")),
        format!("{report}\n{}", failures.join("\n")),
    );
    println!("{report}");
    assert!(failures.is_empty(), "{report}\n{}", failures.join("\n"));
}

#[test]
fn claude_code_lists_what_hone_predicts() {
    run_all(claude_code_runs());
}

#[test]
fn gemini_lists_what_hone_predicts() {
    run_all(gemini_runs());
}

#[test]
fn opencode_lists_what_hone_predicts() {
    run_all(opencode_runs());
}

#[test]
fn codex_lists_what_hone_predicts() {
    run_all(codex_runs());
}

#[test]
fn copilot_lists_what_hone_predicts() {
    run_all(copilot_runs());
}

/// After a `Skill` call, Claude Code sends the rendered body: the scripted
/// model invokes five skills with and without arguments, and each message
/// the client adds must be `hone_core::substitute::invocation`'s, byte for
/// byte.
#[test]
fn claude_code_sends_the_invocation_hone_previews() {
    use hone_core::clients::capture::Task;
    use hone_core::clients::script::{Action, Script, Step};

    let env = Environment::current();
    let installed = capture::find_installed(Client::ClaudeCode, &env)
        .expect("Claude Code is not installed: run scripts/install-clients.sh (make test does)");
    let calls = [
        (
            "placeholders",
            "---\nname: placeholders\ndescription: Placeholders of every kind.\n---\n# Use\n\nAll: $ARGUMENTS; first $0, second $ARGUMENTS[1], third $2.\nIn ${CLAUDE_SKILL_DIR}, session ${CLAUDE_SESSION_ID}.\n",
            "one \"two three\" four",
        ),
        (
            "no-placeholder",
            "---\nname: no-placeholder\ndescription: A body that never asks for its arguments.\n---\nPlain body line.\n",
            "a \"b c\"",
        ),
        (
            "named",
            "---\nname: named\ndescription: Named arguments.\narguments: issue branch\n---\nFix $issue on $branch ($issues).\n",
            "42 main",
        ),
        (
            "positional-only",
            "---\nname: positional-only\ndescription: Only positions.\n---\n$1 then $0, no trailing newline",
            "x y",
        ),
        (
            "no-arguments",
            "---\nname: no-arguments\ndescription: Called bare.\n---\nJust do it.\n\n",
            "",
        ),
    ];
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("project");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for (name, text, _) in &calls {
        let dir = project.join(".claude/skills").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    hone_testkit::git::git(&project, &["init", "-q"]);
    let mut steps: Vec<Step> = calls
        .iter()
        .map(|(name, _, args)| Step {
            action: Action::Skill(format!("{name} {args}")),
            when: None,
        })
        .collect();
    steps.push(Step {
        action: Action::Answer("Done.".into()),
        when: None,
    });
    let plan = Plan {
        installed,
        project: project.clone(),
        home,
        model: None,
        vars: Vec::new(),
        timeout_secs: 150,
        task: Some(Task {
            prompt: "use the skills".into(),
            script: Some(Script {
                steps,
                workspace: project.clone(),
            }),
            allowed_tools: vec!["Skill".into()],
            max_turns: 10,
        }),
        egress: None,
    };
    let captured = capture::run(&plan, &isolation()).unwrap();
    let session = captured
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find_map(|event| event["session_id"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no session id in the transcript: {}", captured.stdout));
    // The last request holds the whole conversation: each `Launching skill`
    // result is followed by the message the client added.
    let last = captured
        .requests
        .iter()
        .rev()
        .find(|r| r.path.starts_with("/v1/messages") && r.body["tools"].is_array())
        .expect("no agent request was recorded");
    let mut sent: Vec<(String, String)> = Vec::new();
    for message in last.body["messages"].as_array().unwrap() {
        let Some(blocks) = message["content"].as_array() else {
            continue;
        };
        for (i, block) in blocks.iter().enumerate() {
            let launched = block["type"] == "tool_result"
                && block["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("Launching skill: "));
            if launched {
                let name =
                    block["content"].as_str().unwrap()["Launching skill: ".len()..].to_owned();
                let text = blocks
                    .get(i + 1)
                    .and_then(|b| b["text"].as_str())
                    .unwrap_or("");
                sent.push((name, text.to_owned()));
            }
        }
    }
    assert_eq!(
        sent.len(),
        calls.len(),
        "{sent:#?}\n{}",
        captured.stderr_tail
    );
    let mut differences = Vec::new();
    for ((name, _, args), (sent_name, real)) in calls.iter().zip(&sent) {
        assert_eq!(name, sent_name);
        let skill =
            hone_core::skill::Skill::load(&project.join(".claude/skills").join(name)).unwrap();
        let predicted = hone_core::substitute::invocation(&skill, args, Some(&session));
        if &predicted != real {
            differences.push(format!("{name}:\n  hone: {predicted:?}\n  real: {real:?}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// Where a marker skill goes so that each client sends a listing: its own
/// skills are then every entry but the marker's.
fn marker_folder(client: Client) -> &'static str {
    match client {
        Client::ClaudeCode => ".claude/skills/hone-marker",
        _ => ".agents/skills/hone-marker",
    }
}

/// A client's entry, back into the name and description its profile
/// renders (the inverse of each profile's entry format).
fn parse_builtin(client: Client, entry: &str) -> Option<(String, String)> {
    let between = |open: &str, close: &str| -> Option<String> {
        let start = entry.find(open)? + open.len();
        let end = entry[start..].find(close)? + start;
        Some(entry[start..end].to_string())
    };
    match client {
        Client::ClaudeCode => {
            let (name, description) = entry.strip_prefix("- ")?.split_once(": ")?;
            Some((name.to_string(), description.to_string()))
        }
        Client::Codex => {
            let (name, rest) = entry.strip_prefix("- ")?.split_once(": ")?;
            let (description, _) = rest.rsplit_once(" (file: ")?;
            Some((name.to_string(), description.to_string()))
        }
        Client::Gemini | Client::Opencode => Some((
            between("<name>", "</name>")?,
            between("<description>", "</description>")?,
        )),
        // Copilot CLI escapes descriptions in XML; its profile escapes them again.
        Client::Copilot => Some((
            between("<name>", "</name>")?,
            between("<description>", "</description>")?
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&"),
        )),
    }
}

/// Claude Code's `Skill` tool, as its request offers it.
fn skill_tool_in(requests: &[hone_core::clients::standin::Recorded]) -> Option<SkillTool> {
    requests.iter().find_map(|request| {
        let tools = request.body.get("tools")?.as_array()?;
        let tool = tools.iter().find(|t| t["name"] == "Skill")?;
        Some(SkillTool {
            name: "Skill".into(),
            description: tool.get("description")?.as_str()?.to_string(),
            input_schema: tool.get("input_schema")?.clone(),
        })
    })
}

/// Each installed client's own skills (and Claude Code's `Skill` tool), read
/// off its request on an empty project, against the files Hone bundles
/// (`crates/hone-clients/src/clients/builtins/`); with `HONE_WRITE_BUILTINS=1`,
/// written there instead. `scripts/update-clients.sh` runs it after
/// installing new versions, then the whole suite.
#[test]
#[ignore = "re-captures the clients' own skills: scripts/update-clients.sh runs it (HONE_WRITE_BUILTINS=1 writes them)"]
fn recapture_builtins() {
    let write = std::env::var("HONE_WRITE_BUILTINS").is_ok_and(|v| v == "1");
    let env = Environment::current();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hone-clients/src/clients/builtins");
    let mut differences = Vec::new();
    for client in Client::ALL {
        let installed = capture::find_installed(client, &env).unwrap_or_else(|| {
            panic!(
                "{} is not installed: run scripts/install-clients.sh",
                client.display_name()
            )
        });
        let version = installed.version.clone();
        let run = Run {
            name: "recapture",
            client,
            model: None,
            vars: vec![],
            cwd: "",
            files: vec![skill(
                false,
                marker_folder(client),
                &fm("hone-marker", "Marks where the author's skills are."),
            )],
            cases: 0,
        };
        let scratch = tempfile::tempdir().unwrap();
        let (cwd, home) = plant(&run, scratch.path());
        let plan = Plan {
            installed,
            project: cwd,
            home,
            model: None,
            vars: vec![],
            timeout_secs: 150,
            task: None,
            egress: None,
        };
        let captured = capture::run(&plan, &isolation()).unwrap();
        let listing = captured.listing.as_deref().unwrap_or_else(|| {
            panic!(
                "{} sent no listing ({}): {}",
                client.display_name(),
                captured.status,
                captured.stderr_tail
            )
        });
        let old = bundled(client);
        let skills: Vec<Builtin> = clients::split_listing(client, listing)
            .iter()
            .filter_map(|entry| parse_builtin(client, entry))
            .filter(|(name, _)| name != "hone-marker")
            .map(|(name, description)| Builtin {
                // Found by budget runs, not by a listing: kept by name.
                budgeted: old.skills.iter().any(|b| b.name == name && b.budgeted),
                name,
                description,
            })
            .collect();
        let skill_tool = match client {
            Client::ClaudeCode => skill_tool_in(&captured.requests),
            _ => None,
        };
        let same = version == old.version && skills == old.skills && skill_tool == old.skill_tool;
        if same {
            continue;
        }
        differences.push(format!(
            "{}: {} {} skills, now {} {} skills{}",
            client.display_name(),
            old.version,
            old.skills.len(),
            version,
            skills.len(),
            if skill_tool == old.skill_tool {
                ""
            } else {
                "; the Skill tool changed"
            }
        ));
        if write {
            let today = Command::new("date").arg("+%F").output().unwrap();
            let fresh = Bundled {
                client: client.as_str().to_string(),
                version,
                captured: String::from_utf8_lossy(&today.stdout).trim().to_string(),
                skills,
                skill_tool,
            };
            let text = serde_json::to_string_pretty(&fresh).unwrap() + "\n";
            std::fs::write(dir.join(bundled::file_name(client)), text).unwrap();
        }
    }
    if write {
        println!("re-captured: {}", differences.join("; "));
    } else {
        assert!(
            differences.is_empty(),
            "the installed clients differ from Hone's captures (HONE_WRITE_BUILTINS=1 rewrites them):\n{}",
            differences.join("\n")
        );
    }
}
