//! Codex CLI's skill listing, as version 0.171.0 builds it (read off its
//! requests to a loopback Responses API; held to the client by the
//! real-client suite).
//!
//! - **Folders.** Its own skills in `$CODEX_HOME/skills/.system` (written on
//!   first run); the project's `.agents/skills` and `.codex/skills` from the
//!   working folder up to the git root; the user's `$CODEX_HOME/skills`
//!   (`~/.codex/skills`) and `~/.agents/skills`. Every `SKILL.md` at any
//!   depth counts (hidden folders and linked `SKILL.md` files do not), and
//!   skills of the same name are all listed.
//! - **Reading.** Strict: a byte-order mark, YAML that does not parse, a
//!   duplicate key, a name over 64 characters, a missing or empty
//!   description, or one that is a list, drops the skill. No `name`: the
//!   folder's. Whitespace runs become one space; a description over 1,024
//!   characters is cut to 1,021 and `...`. An `agents/openai.yaml` with
//!   `policy.allow_implicit_invocation: false` hides the skill.
//! - **Listing.** Its own skills, then the project's, then the user's, each
//!   group sorted by name; `- name: description (file: rN/path)` with `rN`
//!   an alias from the roots table above the entries.
//! - **Budget.** 2% of the model's context window, in tokens of 4 bytes,
//!   each entry line costed as `ceil(bytes / 4)`: over it, descriptions are
//!   cut to a common length (shorter ones kept whole) and what is left is
//!   handed out in listing order, each line growing to its next token
//!   boundary (free for a line that ends inside a token).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::Client;
use super::frontmatter;
use super::prediction::{Budget, Entry, Environment, LeftOut, Prediction, shown_path};
use crate::skill::Skill;

pub const VERSION: &str = "0.171.0";

/// The model a capture asks for when none is given (not in Codex's bundled
/// catalog, so the fallback metadata applies).
pub const DEFAULT_MODEL: &str = "gpt-5";
/// OpenAI's API, which Codex and the OpenAI agent provider talk to.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Whether [`predict`] answers.
pub const MODELLED: bool = true;

const HEADER: &str = "<skills_instructions>\n## Skills\nA skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.\n### Skill roots\n";
const FOOTER: &str = "</skills_instructions>";

/// Where a project's skills go, relative to its root.
pub const AGENTS_SKILLS: &str = ".agents/skills";
/// Where Codex keeps its own skills, relative to `$CODEX_HOME`.
const SYSTEM_SKILLS: &str = "skills/.system";

const DESCRIPTION_LIMIT: usize = 1024;
const NAME_LIMIT: usize = 64;
/// The share of the context window the listing may take.
const BUDGET_FRACTION: f64 = 0.02;
/// The window Codex assumes for a model it has no metadata for.
const FALLBACK_WINDOW: u64 = 272_000;

/// The context window Codex budgets with for `model`.
pub fn context_window(model: &str) -> u64 {
    match model {
        "gpt-6.2-sol" => 500_000,
        _ => FALLBACK_WINDOW,
    }
}

/// Every `SKILL.md` under `root`, at any depth: hidden folders and linked
/// files skipped, linked folders followed.
fn scan(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name() == "SKILL.md"
                && e.file_type().is_file()
                && !std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.file_type().is_symlink())
        })
        .map(|e| e.path().to_path_buf())
        .collect();
    files.sort();
    files
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `agents/openai.yaml` beside the skill keeps the model from
/// invoking it on its own.
fn hidden_by_policy(skill_dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(skill_dir.join("agents/openai.yaml")) else {
        return false;
    };
    let Ok(node) = crate::yaml::parse(&text, 0) else {
        return false;
    };
    node.to_json()
        .pointer("/policy/allow_implicit_invocation")
        .and_then(serde_json::Value::as_bool)
        == Some(false)
}

fn read(file: &Path) -> Result<(String, String), String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot be read: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let Some((yaml_text, _)) = frontmatter::split(&text) else {
        return Err("missing YAML frontmatter delimited by ---".into());
    };
    // Its YAML reader takes `: ` inside a plain value as part of the value.
    let map = frontmatter::load(yaml_text)
        .or_else(|_| frontmatter::load(&frontmatter::quote_lossy_values(yaml_text)))
        .map_err(|e| format!("invalid YAML: {e}"))?;
    let folder = file
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match map.get("name") {
        None | Some(serde_json::Value::Null) => folder,
        Some(serde_json::Value::String(n)) => n.clone(),
        Some(other) => other.to_string(),
    };
    if name.chars().count() > NAME_LIMIT {
        return Err(format!(
            "invalid name: exceeds maximum length of {NAME_LIMIT} characters"
        ));
    }
    let description = match map.get("description") {
        Some(serde_json::Value::String(d)) => d.clone(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        Some(serde_json::Value::Bool(b)) => b.to_string(),
        None | Some(serde_json::Value::Null) => return Err("missing field `description`".into()),
        Some(_) => return Err("invalid YAML: description: invalid type, expected a string".into()),
    };
    let description = collapse(&description);
    if description.is_empty() {
        return Err("missing field `description`".into());
    }
    let description = if description.chars().count() > DESCRIPTION_LIMIT {
        let cut: String = description.chars().take(DESCRIPTION_LIMIT - 3).collect();
        format!("{cut}...")
    } else {
        description
    };
    Ok((name, description))
}

/// One skill on its way to the listing.
struct Listed {
    name: String,
    description: String,
    root: PathBuf,
    relative: String,
    path: String,
    builtin: bool,
}

fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

/// `text` cut to at most `bytes` bytes, on a character boundary.
fn cut_bytes(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Codex's own skills, listed first.
fn builtins(system_root: &Path) -> Vec<Listed> {
    super::builtins(Client::Codex)
        .into_iter()
        .map(|(name, description)| Listed {
            name: name.to_string(),
            description: description.to_string(),
            root: system_root.to_path_buf(),
            relative: format!("{name}/SKILL.md"),
            path: String::new(),
            builtin: true,
        })
        .collect()
}

/// Reads `file` as Codex would find it at `shown`, `relative` to `root`:
/// into `group` when listed, else into `left_out` with the reason.
fn consider(
    file: &Path,
    root: &Path,
    shown: String,
    relative: String,
    group: &mut Vec<Listed>,
    left_out: &mut Vec<LeftOut>,
) {
    let skill_dir = file.parent().unwrap_or(file);
    if hidden_by_policy(skill_dir) {
        left_out.push(LeftOut {
            path: shown,
            reason: "agents/openai.yaml: allow_implicit_invocation is false".into(),
        });
        return;
    }
    match read(file) {
        Ok((name, description)) => group.push(Listed {
            name,
            description,
            relative,
            root: root.to_path_buf(),
            path: shown,
            builtin: false,
        }),
        Err(reason) => left_out.push(LeftOut {
            path: shown,
            reason,
        }),
    }
}

/// Predicts the listing Codex gives `model` when started in `dir`.
pub fn predict(dir: &Path, env: &Environment, model: Option<&str>) -> Option<Prediction> {
    let codex_home = env
        .var("CODEX_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.home.join(".codex"));
    let system_root = codex_home.join(SYSTEM_SKILLS);
    let mut listed = builtins(&system_root);
    let mut left_out = Vec::new();
    let project_levels = super::up_to_git_root(dir);
    let project_roots: Vec<PathBuf> = project_levels
        .iter()
        .flat_map(|d| [d.join(".agents/skills"), d.join(".codex/skills")])
        .collect();
    let user_roots = vec![codex_home.join("skills"), env.home.join(".agents/skills")];
    for roots in [project_roots, user_roots] {
        let mut group = Vec::new();
        for root in roots {
            for file in scan(&root) {
                let relative = file
                    .strip_prefix(&root)
                    .map(|r| r.display().to_string())
                    .unwrap_or_default();
                consider(
                    &file,
                    &root,
                    shown_path(&file),
                    relative,
                    &mut group,
                    &mut left_out,
                );
            }
        }
        group.sort_by(|a, b| a.name.cmp(&b.name));
        listed.extend(group);
    }

    // Aliases for the roots that hold a listed skill, in the client's fixed
    // order of roots: the project's `.codex/skills`, the user's two, its own,
    // then the project's `.agents/skills`.
    let mut order: Vec<PathBuf> = project_levels
        .iter()
        .map(|d| d.join(".codex/skills"))
        .collect();
    order.extend([
        codex_home.join("skills"),
        env.home.join(".agents/skills"),
        system_root,
    ]);
    order.extend(project_levels.iter().map(|d| d.join(".agents/skills")));
    Some(render(listed, left_out, order, model))
}

/// The listing Codex gives `model` for the library `skills`, each folder
/// copied to `project/.agents/skills/<folder>/`, with `codex_home` as
/// `$CODEX_HOME` and no other skill in the project or the home: what the
/// `codex` agent provider's scratch project shows, and what the `codex`
/// listing style sends.
pub fn predict_library(
    skills: &[&Skill],
    project: &Path,
    codex_home: &Path,
    model: Option<&str>,
) -> Prediction {
    let system_root = codex_home.join(SYSTEM_SKILLS);
    let root = project.join(AGENTS_SKILLS);
    // Every `SKILL.md` of every folder, in the order Codex walks the copy.
    let mut files: Vec<(PathBuf, PathBuf)> = skills
        .iter()
        .filter_map(|skill| Some((skill.dir.file_name()?.to_owned(), &skill.dir)))
        .flat_map(|(folder, dir)| {
            scan(dir).into_iter().map(move |file| {
                let inner = file.strip_prefix(dir).unwrap_or(&file).to_path_buf();
                (Path::new(&folder).join(inner), file)
            })
        })
        .collect();
    files.sort();
    let mut group = Vec::new();
    let mut left_out = Vec::new();
    for (relative, file) in files {
        consider(
            &file,
            &root,
            shown_path(&root.join(&relative)),
            relative.display().to_string(),
            &mut group,
            &mut left_out,
        );
    }
    group.sort_by(|a, b| a.name.cmp(&b.name));
    let mut listed = builtins(&system_root);
    listed.extend(group);
    let order = vec![codex_home.join("skills"), system_root, root];
    render(listed, left_out, order, model)
}

/// The listing of `listed` (in listing order), with aliases for the roots
/// in `order` that hold one, cut to the budget of `model`.
fn render(
    listed: Vec<Listed>,
    left_out: Vec<LeftOut>,
    order: Vec<PathBuf>,
    model: Option<&str>,
) -> Prediction {
    let model = model.unwrap_or(DEFAULT_MODEL).to_string();
    let roots: Vec<PathBuf> = order
        .into_iter()
        .filter(|root| listed.iter().any(|s| &s.root == root))
        .collect();
    let alias = |root: &Path| roots.iter().position(|r| r == root).unwrap_or(0);
    let line = |skill: &Listed, description: &str| {
        format!(
            "- {}: {} (file: r{}/{})",
            skill.name,
            description,
            alias(&skill.root),
            skill.relative
        )
    };

    // The budget: 2% of the window in 4-byte tokens, a line at a time.
    let window = context_window(&model);
    let budget_tokens = (window as f64 * BUDGET_FRACTION).floor() as u64;
    let full: Vec<String> = listed.iter().map(|s| line(s, &s.description)).collect();
    let full_tokens: u64 = full.iter().map(|l| tokens(l.len() + 1)).sum();
    let mut descriptions: Vec<String> = listed.iter().map(|s| s.description.clone()).collect();
    let over = full_tokens > budget_tokens;
    if over {
        let fixed: Vec<usize> = listed.iter().map(|s| line(s, "").len() + 1).collect();
        // The largest common cap (in bytes) under which the lines fit.
        let cost = |cap: usize, extra: &[usize]| -> u64 {
            listed
                .iter()
                .enumerate()
                .map(|(i, s)| tokens(fixed[i] + cut_bytes(&s.description, cap + extra[i]).len()))
                .sum()
        };
        let none = vec![0; listed.len()];
        let longest = listed
            .iter()
            .map(|s| s.description.len())
            .max()
            .unwrap_or(0);
        let (mut low, mut high) = (0usize, longest);
        while low < high {
            let mid = (low + high).div_ceil(2);
            if cost(mid, &none) <= budget_tokens {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        let cap = low;
        // What is left goes in listing order: each cut description grows
        // until its line (newline included) reaches the next 4-byte token
        // boundary. A line that ends inside a token fills it for free; one
        // on a boundary takes a whole token more, while any are left.
        let mut extra = vec![0usize; listed.len()];
        for i in 0..listed.len() {
            if listed[i].description.len() <= cap {
                continue;
            }
            let at_cap = fixed[i] + cut_bytes(&listed[i].description, cap).len();
            extra[i] = (at_cap / 4 + 1) * 4 - at_cap;
            if cost(cap, &extra) > budget_tokens {
                extra[i] = 0;
            }
        }
        for (i, skill) in listed.iter().enumerate() {
            descriptions[i] = cut_bytes(&skill.description, cap + extra[i]).to_string();
        }
    }
    let entries: Vec<Entry> = listed
        .iter()
        .zip(&descriptions)
        .map(|(skill, description)| Entry {
            text: line(skill, description),
            name: skill.name.clone(),
            description: description.clone(),
            path: skill.path.clone(),
            bare: description.is_empty(),
            builtin: skill.builtin,
        })
        .collect();
    let mut listing = String::from(HEADER);
    for (i, root) in roots.iter().enumerate() {
        listing.push_str(&format!("- `r{i}` = `{}`\n", root.display()));
    }
    listing.push_str("### Available skills\n");
    for entry in &entries {
        listing.push_str(&entry.text);
        listing.push('\n');
    }
    listing.push_str(FOOTER);
    Prediction {
        client: Client::Codex,
        client_version: VERSION,
        model,
        placement: "the first part of the second developer message".into(),
        budget: Some(Budget {
            context_window_tokens: window,
            bytes_per_token: 4,
            fraction: BUDGET_FRACTION,
            budget_chars: budget_tokens * 4,
            source: "fraction",
            full_chars: full_tokens * 4,
            over_budget: over,
            bare: entries.iter().filter(|e| e.bare).count() as u32,
        }),
        entries,
        left_out,
        listing,
    }
}

/// The listing in one of the client's requests.
pub fn listing_in_request(body: &serde_json::Value) -> Option<String> {
    super::capture::text_between(body, "<skills_instructions>\n", FOOTER)
}

/// Codex's shell tool, as it offers it to the model at [`VERSION`] (name,
/// description and parameters, captured from its request). It has no tool
/// to load a skill: the model reads the skill's `SKILL.md` with this one.
pub fn shell_tool() -> (&'static str, &'static str, Value) {
    let parameters = json!({"type": "object", "properties": {"cmd": {"type": "string", "description": "Shell command to execute."}, "justification": {"type": "string", "description": "User-facing approval question for `require_escalated`; omit otherwise."}, "login": {"type": "boolean", "description": "Request login-shell startup. Omit to inherit."}, "max_output_tokens": {"type": "number", "description": "Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."}, "prefix_rule": {"type": "array", "description": "Reusable approval prefix for `cmd`, only with `sandbox_permissions: \"require_escalated\"`; for example [\"git\", \"pull\"].", "items": {"type": "string"}}, "sandbox_permissions": {"type": "string", "description": "Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed execution.", "enum": ["use_default", "require_escalated"]}, "shell": {"type": "string", "description": "Shell binary to launch. Defaults to the user's default shell."}, "tty": {"type": "boolean", "description": "True allocates a PTY for the command; false or omitted uses plain pipes."}, "workdir": {"type": "string", "description": "Working directory for the command. Defaults to the turn cwd."}, "yield_time_ms": {"type": "number", "description": "Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms."}}, "required": ["cmd"], "additionalProperties": false});
    (
        "exec_command",
        "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
        parameters,
    )
}

/// A `SKILL.md` a shell command reads, by the folder that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillRead {
    /// `<project>/.agents/skills/<folder>/SKILL.md` (absolute, or relative
    /// to the project).
    Project(String),
    /// `$CODEX_HOME/skills/.system/<name>/SKILL.md`: one of Codex's own.
    Builtin(String),
}

/// The first skill a command reads, as Codex's model loads one: a `cat`,
/// `sed`, `head` or any other command naming a skill's `SKILL.md` path,
/// either in the project's `.agents/skills` (relative, or under `project`)
/// or in Codex's own skills under `codex_home`. A command that reaches the
/// file another way (`cd` first, a glob) is not recognised.
pub fn skill_read(command: &str, project: &Path, codex_home: &Path) -> Option<SkillRead> {
    let system = codex_home.join(SYSTEM_SKILLS);
    let mut rest = command;
    while let Some(at) = rest.find("/SKILL.md") {
        let start = rest[..at]
            .rfind(|c: char| {
                c.is_whitespace()
                    || matches!(c, '\'' | '"' | '=' | '<' | '>' | '(' | ';' | '|' | '&')
            })
            .map_or(0, |i| i + 1);
        let folder_path = Path::new(&rest[start..at]);
        rest = &rest[at + "/SKILL.md".len()..];
        let (Some(root), Some(folder)) = (folder_path.parent(), folder_path.file_name()) else {
            continue;
        };
        let folder = folder.to_string_lossy().into_owned();
        let root = root.strip_prefix("./").unwrap_or(root);
        if root == Path::new(AGENTS_SKILLS) || root == project.join(AGENTS_SKILLS) {
            return Some(SkillRead::Project(folder));
        }
        if root == system {
            return Some(SkillRead::Builtin(folder));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_md_read_is_known_by_its_folder() {
        let project = Path::new("/p");
        let home = Path::new("/h/.codex");
        let read = |command: &str| skill_read(command, project, home);
        let deploy = Some(SkillRead::Project("deploy".into()));
        assert_eq!(
            read("/bin/bash -lc 'cat .agents/skills/deploy/SKILL.md'"),
            deploy
        );
        assert_eq!(
            read("sed -n 1,200p ./.agents/skills/deploy/SKILL.md"),
            deploy
        );
        assert_eq!(read("cat \"/p/.agents/skills/deploy/SKILL.md\""), deploy);
        assert_eq!(
            read("ls && cat /h/.codex/skills/.system/imagegen/SKILL.md"),
            Some(SkillRead::Builtin("imagegen".into()))
        );
        // Elsewhere, nested deeper, or not a SKILL.md: no pick.
        assert_eq!(read("cat /elsewhere/.agents/skills/deploy/SKILL.md"), None);
        assert_eq!(read("cat .agents/skills/deploy/sub/SKILL.md"), None);
        assert_eq!(read("cat .agents/skills/deploy/README.md"), None);
        assert_eq!(read("ls .agents/skills"), None);
    }
}
