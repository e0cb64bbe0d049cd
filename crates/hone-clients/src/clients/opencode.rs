//! OpenCode's skill listing, as version 1.18.33 builds it (read off its
//! requests to a loopback Chat Completions server; held to the client by
//! the real-client suite).
//!
//! - **Folders, in the order read** (a later skill of the same name
//!   replaces an earlier one): `~/.claude/skills` and `~/.agents/skills`
//!   (hidden folders included); `.claude/skills` and `.agents/skills` from
//!   the working folder up to the git root; then `skill/` and `skills/`
//!   under `~/.config/opencode`, `~/.opencode` and each `.opencode` from the
//!   working folder up (hidden folders skipped). Every `SKILL.md` at any
//!   depth counts.
//! - **Reading.** A skill needs a string `name`; a `description` that is
//!   not a string, or duplicate keys, drop it; without a description it
//!   loads but is not listed. Of two skills with one name the later usually
//!   wins (the files are read concurrently, so not always). YAML that does not load is read line by line
//!   (indented lines continue a value, joined by line breaks). Values are
//!   used as they are: no trim, no escaping, no cut, no budget.
//! - **Listing.** Every skill, the client's own included, sorted by name as
//!   JavaScript's `localeCompare` does, one `<skill>` element each; only the
//!   location is escaped.

use std::path::{Path, PathBuf};

use super::Client;
use super::frontmatter;
use super::prediction::{Entry, Environment, LeftOut, Prediction, shown_path};

pub const VERSION: &str = "1.18.33";

/// The model of a live run when none is named: OpenCode names a model with
/// its provider.
pub const DEFAULT_MODEL: &str = "anthropic/claude-sonnet-4-5";

/// The providers a live OpenCode run can use: the two whose keys Hone
/// handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveProviderName {
    Anthropic,
    Openai,
}

impl std::fmt::Display for LiveProviderName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LiveProviderName::Anthropic => "anthropic",
            LiveProviderName::Openai => "openai",
        })
    }
}

/// The provider and model of a live run: `provider/model` as OpenCode
/// names it, or a bare model whose provider its name tells
/// (`claude-…`; `gpt-…`, `o3`, `codex-…`).
pub fn live_model(model: Option<&str>) -> Result<(LiveProviderName, String), String> {
    let model = model.unwrap_or(DEFAULT_MODEL).trim();
    let (provider, name) = match model.split_once('/') {
        Some(("anthropic", name)) => (Some(LiveProviderName::Anthropic), name),
        Some(("openai", name)) => (Some(LiveProviderName::Openai), name),
        Some((other, _)) => {
            return Err(format!(
                "a live OpenCode run uses the anthropic or openai provider, whose keys Hone passes on; `{other}` is neither"
            ));
        }
        None if model.starts_with("claude") => (Some(LiveProviderName::Anthropic), model),
        None if ["gpt", "o1", "o3", "o4", "codex"]
            .iter()
            .any(|prefix| model.starts_with(prefix)) =>
        {
            (Some(LiveProviderName::Openai), model)
        }
        None => (None, model),
    };
    match provider {
        Some(provider) if !name.is_empty() => Ok((provider, name.to_string())),
        _ => Err(format!(
            "name the model of a live OpenCode run as OpenCode does, `anthropic/MODEL` or `openai/MODEL` (got `{model}`)"
        )),
    }
}

const HEADER: &str = "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n<available_skills>\n";
const FOOTER: &str = "\n</available_skills>";

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Every `SKILL.md` under `dir`, at any depth, following links.
fn scan(dir: &Path, hidden: bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || hidden || !e.file_name().to_string_lossy().starts_with('.')
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "SKILL.md" && e.path().is_file())
        .map(|e| e.path().to_path_buf())
        .collect();
    files.sort();
    files
}

/// The name and the description (if any), or why the skill is dropped.
fn read(path: &Path) -> Result<(String, Option<String>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // A frontmatter that is never closed runs to the end of the file.
    let Some(yaml_text) = frontmatter::split(text)
        .map(|(yaml, _)| yaml)
        .or_else(|| text.strip_prefix("---\n"))
    else {
        return Err("no frontmatter".into());
    };
    let map = match frontmatter::load(yaml_text) {
        Ok(map) => map,
        Err(err) if err.starts_with("duplicate key") => return Err(err),
        Err(_) => frontmatter::line_values(yaml_text, &["name", "description"], "\n"),
    };
    let Some(name) = frontmatter::string(&map, "name").filter(|n| !n.is_empty()) else {
        return Err("no `name`".into());
    };
    let description = match map.get("description") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(d)) => Some(d.clone()),
        Some(_) => return Err("`description` is not a string".into()),
    };
    Ok((name.to_string(), description))
}

/// ICU's root collation, as `localeCompare` applies it, for the names the
/// clients list: punctuation and spaces before digits before letters;
/// letters compared without accents or case first, then accents, then
/// lower case before upper case.
fn collation_key(name: &str) -> (Vec<(u8, u32, String)>, String, Vec<bool>) {
    use unicode_normalization::UnicodeNormalization;
    // ICU's root order of the common spaces, punctuation and symbols.
    const PUNCTUATION: &str = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
    let mut primary = Vec::new();
    let mut accents = String::new();
    let mut cases = Vec::new();
    for c in name.chars() {
        let base: String = c
            .to_string()
            .nfd()
            .filter(|c| c.is_ascii() || c.is_alphanumeric())
            .collect();
        let class = if c.is_alphabetic() {
            2
        } else if c.is_numeric() {
            1
        } else {
            0
        };
        let rank = if class == 0 {
            PUNCTUATION
                .chars()
                .position(|p| p == c)
                .map_or(PUNCTUATION.len() as u32 + c as u32, |at| at as u32)
        } else {
            0
        };
        primary.push((class, rank, base.to_lowercase()));
        accents.extend(
            c.to_string()
                .nfd()
                .filter(|c| !c.is_ascii() && !c.is_alphanumeric()),
        );
        cases.push(c.is_uppercase());
    }
    (primary, accents, cases)
}

/// Predicts the listing OpenCode gives its model when started in `dir`.
pub fn predict(dir: &Path, env: &Environment, model: Option<&str>) -> Prediction {
    let home = &env.home;
    let config = env
        .var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".config"));
    let ancestors = super::up_to_git_root(dir);
    let mut sources: Vec<(PathBuf, bool)> = vec![
        (home.join(".claude/skills"), true),
        (home.join(".agents/skills"), true),
    ];
    for ancestor in &ancestors {
        sources.push((ancestor.join(".claude/skills"), true));
        sources.push((ancestor.join(".agents/skills"), true));
    }
    for base in [config.join("opencode"), home.join(".opencode")] {
        sources.push((base.join("skill"), false));
        sources.push((base.join("skills"), false));
    }
    for ancestor in ancestors.iter().rev() {
        sources.push((ancestor.join(".opencode/skill"), false));
        sources.push((ancestor.join(".opencode/skills"), false));
    }
    let mut skills: Vec<(String, Option<String>, String)> = Vec::new();
    let mut left_out = Vec::new();
    let mut seen_files = std::collections::HashSet::new();
    for (folder, hidden) in sources {
        for file in scan(&folder, hidden) {
            if !seen_files.insert(file.clone()) {
                continue;
            }
            let shown = shown_path(&file);
            match read(&file) {
                Ok((name, description)) => {
                    if let Some(at) = skills.iter().position(|s| s.0 == name) {
                        let earlier = skills.remove(at);
                        left_out.push(LeftOut {
                            path: earlier.2,
                            // The client reads files concurrently, so which copy
                            // wins can change from run to run.
                            reason: format!(
                                "replaced by {shown}, which has the same name (usually: OpenCode reads skills concurrently, so the copy that wins can vary)"
                            ),
                        });
                    }
                    skills.push((name, description, shown));
                }
                Err(reason) => left_out.push(LeftOut {
                    path: shown,
                    reason,
                }),
            }
        }
    }
    let mut entries: Vec<Entry> = Vec::new();
    for (name, description, path) in skills {
        match description {
            Some(description) => entries.push(Entry {
                text: super::gemini::element(&name, &description, &escape(&path)),
                name,
                description,
                path,
                bare: false,
                builtin: false,
            }),
            None => left_out.push(LeftOut {
                path,
                reason: "no `description`: loaded, but not listed".into(),
            }),
        }
    }
    entries.extend(
        super::builtins(Client::Opencode)
            .into_iter()
            .map(|(name, description)| Entry {
                text: super::gemini::element(name, description, &escape("<built-in>")),
                name: name.into(),
                description: description.into(),
                path: String::new(),
                bare: false,
                builtin: true,
            }),
    );
    entries.sort_by_key(|entry| collation_key(&entry.name));
    let body: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    Prediction {
        client: Client::Opencode,
        client_version: VERSION,
        model: model
            .unwrap_or("the project's configured model")
            .to_string(),
        placement: "the end of the system message, after the environment block".into(),
        budget: None,
        listing: format!("{HEADER}{}{FOOTER}", body.join("\n")),
        entries,
        left_out,
    }
}

/// The listing in one of the client's requests.
pub fn listing_in_request(body: &serde_json::Value) -> Option<String> {
    super::capture::text_between(body, HEADER, FOOTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_locale_compare() {
        let mut names = vec![
            "Zeta", "alpha", "_under", "10-x", "Beta", "éclair", "a-first", "-dash", "9-x",
        ];
        names.sort_by_key(|name| collation_key(name));
        assert_eq!(
            names,
            [
                "_under", "-dash", "10-x", "9-x", "a-first", "alpha", "Beta", "éclair", "Zeta"
            ]
        );
    }
}
