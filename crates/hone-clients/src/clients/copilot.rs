//! GitHub Copilot CLI's skill listing, as version 1.0.102 builds it (read
//! off its requests to a loopback Chat Completions server in its documented
//! offline mode; held to the client by the real-client suite).
//!
//! - **Folders.** The project's `.github/skills`, `.agents/skills` and
//!   `.claude/skills`, in the working folder and each folder above it up to
//!   the git root; then `$COPILOT_HOME/skills` (`~/.copilot/skills`) and
//!   `~/.agents/skills`. The first skill of a name wins. Folders are searched
//!   down to the first `SKILL.md` on each branch (a `SKILL.md` at the top
//!   makes the whole folder one skill); hidden folders are skipped.
//! - **Reading.** Strict YAML: a value that does not parse, a duplicate key,
//!   or `: ` in a plain value drops the skill. No `name`: the folder's name.
//!   A name is trimmed, its runs of spaces become `-`, and it must be at most
//!   64 ASCII letters, digits, `-_.:`, starting with a letter or digit. A
//!   description must be a string of at most 1,024 characters; without one,
//!   the body's text stands in (headings dropped, lines joined by spaces, cut
//!   at 1,024). `disable-model-invocation: true` hides it from the model.
//! - **Listing.** Project skills (the working folder's, then those above it),
//!   then each user folder's, each group sorted by name; the client's own two
//!   last. Descriptions are XML-escaped; the location is only `project`,
//!   `user` or `builtin`. Whole entries are kept in order while they fit in
//!   15,000 characters; the rest are named on one line.

use std::path::{Path, PathBuf};

use super::Client;
use super::frontmatter;
use super::prediction::{Budget, Entry, Environment, LeftOut, Prediction, shown_path};

/// GitHub Copilot's model API, where a live run goes.
pub const API_BASE_URL: &str = "https://api.githubcopilot.com";

pub const VERSION: &str = "1.0.102";

/// The model a capture asks for when none is given (from its catalog).
pub const DEFAULT_MODEL: &str = "gpt-5.4";

/// Whether [`predict`] answers.
pub const MODELLED: bool = true;

const HEADER: &str = "<skill>\n<available_skills>\n";
const FOOTER: &str = "</available_skills>\n</skill>";
const OVERFLOW: &str = "Additional skills available (invoke by name): ";

/// The listing's budget in characters, whatever the model.
const BUDGET_CHARS: u64 = 15_000;
const DESCRIPTION_LIMIT: usize = 1024;
const NAME_LIMIT: usize = 64;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

fn element(name: &str, description: &str, scope: &str) -> String {
    format!(
        "<skill>\n  <name>{name}</name>\n  <description>{}</description>\n  <location>{scope}</location>\n</skill>",
        escape(description)
    )
}

/// The skill folders under `root`: down each branch to the first
/// `SKILL.md`, hidden folders skipped.
fn scan(root: &Path) -> Vec<PathBuf> {
    if root.join("SKILL.md").is_file() {
        return vec![root.to_path_buf()];
    }
    let Ok(read) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut children: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    children.sort();
    for child in children {
        found.extend(scan(&child));
    }
    found
}

/// A plain (unquoted) value holding `: `, which strict YAML refuses.
fn colon_in_plain_value(yaml_text: &str) -> bool {
    yaml_text.lines().any(|line| {
        let Some((_, value)) = line.split_once(": ") else {
            return false;
        };
        let value = value.trim_start();
        !value.starts_with(['"', '\'', '|', '>', '[', '{']) && value.contains(": ")
    })
}

/// The body as the description that stands in for a missing one.
fn from_body(body: &str) -> String {
    let words: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let text = words.join(" ");
    text.chars().take(DESCRIPTION_LIMIT).collect()
}

/// Name and description as the client reads them, or why it fails to load.
fn read(dir: &Path) -> Result<(String, String, bool), String> {
    let path = dir.join("SKILL.md");
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot be read: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let Some((yaml_text, body)) = frontmatter::split(text) else {
        return Err("missing or malformed YAML frontmatter".into());
    };
    if colon_in_plain_value(yaml_text) {
        return Err(
            "failed to parse YAML frontmatter: mapping values are not allowed in this context"
                .into(),
        );
    }
    let map = frontmatter::load(yaml_text)
        .map_err(|e| format!("failed to parse YAML frontmatter: {e}"))?;
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match map.get("name") {
        None | Some(serde_json::Value::Null) => folder,
        Some(serde_json::Value::String(n)) => n.clone(),
        Some(other) => other.to_string(),
    };
    let name = name
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if name.chars().count() > NAME_LIMIT {
        return Err(format!(
            "Skill name must be at most {NAME_LIMIT} characters"
        ));
    }
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.: ".contains(c));
    if !valid {
        return Err("Skill name must start with an ASCII letter or number and contain only ASCII letters, numbers, hyphens, underscores, dots, colons, and spaces".into());
    }
    let description = match map.get("description") {
        None => from_body(body),
        Some(serde_json::Value::String(d)) => d.trim_end_matches('\n').to_string(),
        Some(_) => return Err("Skill description must be a string".into()),
    };
    if description.chars().count() > DESCRIPTION_LIMIT {
        return Err(format!(
            "Skill description must be at most {DESCRIPTION_LIMIT} characters"
        ));
    }
    let hidden = map
        .get("disable-model-invocation")
        .is_some_and(|v| v.as_bool() == Some(true));
    Ok((name, description, hidden))
}

/// Predicts the listing Copilot CLI gives its model when started in `dir`.
pub fn predict(dir: &Path, env: &Environment, model: Option<&str>) -> Option<Prediction> {
    let ancestors = super::up_to_git_root(dir);
    let copilot_home = env
        .var("COPILOT_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.home.join(".copilot"));
    // Groups in listing order, each a list of skill folders in precedence order.
    let mut groups: Vec<(&str, Vec<PathBuf>)> = Vec::new();
    for ancestor in &ancestors {
        let roots = [".github/skills", ".agents/skills", ".claude/skills"];
        groups.push((
            "project",
            roots.iter().flat_map(|r| scan(&ancestor.join(r))).collect(),
        ));
    }
    groups.push(("user", scan(&copilot_home.join("skills"))));
    groups.push(("user", scan(&env.home.join(".agents/skills"))));

    let mut left_out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut listed: Vec<(String, String, &str, String)> = Vec::new();
    for (scope, dirs) in groups {
        let mut group = Vec::new();
        for skill_dir in dirs {
            let shown = shown_path(&skill_dir.join("SKILL.md"));
            match read(&skill_dir) {
                Ok((name, description, hidden)) => {
                    if !seen.insert(name.clone()) {
                        left_out.push(LeftOut {
                            path: shown,
                            reason: format!("a skill named `{name}` was found first"),
                        });
                    } else if hidden {
                        left_out.push(LeftOut {
                            path: shown,
                            reason: "disable-model-invocation: hidden from the model".into(),
                        });
                    } else {
                        group.push((name, description, scope, shown));
                    }
                }
                Err(reason) => left_out.push(LeftOut {
                    path: shown,
                    reason,
                }),
            }
        }
        group.sort_by(|a, b| a.0.cmp(&b.0));
        listed.extend(group);
    }
    let mut entries: Vec<Entry> = listed
        .into_iter()
        .map(|(name, description, scope, path)| Entry {
            text: element(&name, &description, scope),
            name,
            description,
            path,
            bare: false,
            builtin: false,
        })
        .collect();
    entries.extend(
        super::builtins(Client::Copilot)
            .into_iter()
            .map(|(name, description)| Entry {
                text: element(name, description, "builtin"),
                name: name.to_string(),
                description: description.to_string(),
                path: String::new(),
                bare: false,
                builtin: true,
            }),
    );
    let full_chars: u64 = entries
        .iter()
        .map(|e| e.text.chars().count() as u64 + 1)
        .sum();
    let mut used = 0;
    let mut overflow = false;
    let mut bare = 0;
    for entry in &mut entries {
        let cost = entry.text.chars().count() as u64 + 1;
        if !overflow && used + cost <= BUDGET_CHARS {
            used += cost;
        } else {
            overflow = true;
            entry.text = entry.name.clone();
            entry.description.clear();
            entry.bare = true;
            bare += 1;
        }
    }
    let mut listing = String::from(HEADER);
    for entry in entries.iter().filter(|e| !e.bare) {
        listing.push_str(&entry.text);
        listing.push('\n');
    }
    if overflow {
        let names: Vec<&str> = entries
            .iter()
            .filter(|e| e.bare)
            .map(|e| e.name.as_str())
            .collect();
        listing.push_str(OVERFLOW);
        listing.push_str(&names.join(", "));
        listing.push('\n');
    }
    listing.push_str(FOOTER);
    Some(Prediction {
        client: Client::Copilot,
        client_version: VERSION,
        model: model.unwrap_or(DEFAULT_MODEL).to_string(),
        placement: "the system message, after the documentation tool's section".into(),
        budget: Some(Budget {
            context_window_tokens: 0,
            bytes_per_token: 0,
            fraction: 0.0,
            budget_chars: BUDGET_CHARS,
            source: "fixed",
            full_chars,
            over_budget: overflow,
            bare,
        }),
        entries,
        left_out,
        listing,
    })
}

/// The listing in one of the client's requests.
pub fn listing_in_request(body: &serde_json::Value) -> Option<String> {
    super::capture::text_between(body, HEADER, FOOTER)
}

/// The names of the overflow line, when the listing has one.
pub fn overflow_names(listing: &str) -> Vec<String> {
    listing
        .lines()
        .find_map(|line| line.strip_prefix(OVERFLOW))
        .map(|names| names.split(", ").map(str::to_string).collect())
        .unwrap_or_default()
}
