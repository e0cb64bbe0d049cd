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
//!   handed out a token at a time in listing order.

use std::path::{Path, PathBuf};

use super::Client;
use super::frontmatter;
use super::prediction::{Budget, Entry, Environment, LeftOut, Prediction, shown_path};

pub const VERSION: &str = "0.171.0";

/// The model a capture asks for when none is given (not in Codex's bundled
/// catalog, so the fallback metadata applies).
pub const DEFAULT_MODEL: &str = "gpt-5";

/// Whether [`predict`] answers.
pub const MODELLED: bool = true;

const HEADER: &str = "<skills_instructions>\n## Skills\nA skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.\n### Skill roots\n";
const FOOTER: &str = "</skills_instructions>";

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

/// Predicts the listing Codex gives `model` when started in `dir`.
pub fn predict(dir: &Path, env: &Environment, model: Option<&str>) -> Option<Prediction> {
    let model = model.unwrap_or(DEFAULT_MODEL).to_string();
    let codex_home = env
        .var("CODEX_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.home.join(".codex"));
    let system_root = codex_home.join("skills/.system");
    let mut listed: Vec<Listed> = super::builtins(Client::Codex)
        .into_iter()
        .map(|(name, description)| Listed {
            name: name.to_string(),
            description: description.to_string(),
            root: system_root.clone(),
            relative: format!("{name}/SKILL.md"),
            path: String::new(),
            builtin: true,
        })
        .collect();
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
                let shown = shown_path(&file);
                let skill_dir = file.parent().unwrap_or(&file);
                if hidden_by_policy(skill_dir) {
                    left_out.push(LeftOut {
                        path: shown,
                        reason: "agents/openai.yaml: allow_implicit_invocation is false".into(),
                    });
                    continue;
                }
                match read(&file) {
                    Ok((name, description)) => group.push(Listed {
                        name,
                        description,
                        relative: file
                            .strip_prefix(&root)
                            .map(|r| r.display().to_string())
                            .unwrap_or_default(),
                        root: root.clone(),
                        path: shown,
                        builtin: false,
                    }),
                    Err(reason) => left_out.push(LeftOut {
                        path: shown,
                        reason,
                    }),
                }
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
        system_root.clone(),
    ]);
    order.extend(project_levels.iter().map(|d| d.join(".agents/skills")));
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
        // What is left goes a token (4 bytes) at a time, in listing order.
        let mut extra = vec![0usize; listed.len()];
        for i in 0..listed.len() {
            if listed[i].description.len() <= cap {
                continue;
            }
            extra[i] = 4;
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
    Some(Prediction {
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
    })
}

/// The listing in one of the client's requests.
pub fn listing_in_request(body: &serde_json::Value) -> Option<String> {
    super::capture::text_between(body, "<skills_instructions>\n", FOOTER)
}
