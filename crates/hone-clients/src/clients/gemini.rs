//! Gemini CLI's skill listing, as version 0.61.0 builds it (read off its
//! requests to a loopback Gemini API; held to the client by the real-client
//! suite).
//!
//! - **Folders.** `~/.gemini/skills`, `~/.agents/skills`, then the working
//!   folder's `.gemini/skills` and `.agents/skills` (no walk up; only in a
//!   trusted workspace). In each, a `SKILL.md` at the top and
//!   `<folder>/SKILL.md` one level down, hidden folders skipped, in
//!   descending path order. A later folder's skill of the same name
//!   replaces an earlier one in the earlier one's place.
//! - **Reading.** A byte-order mark or a missing frontmatter drops the file.
//!   When the YAML does not load, or `name` or `description` is not a
//!   string, the lines `name:` and `description:` are read as text (an
//!   indented line continues a value). No name or no description drops the
//!   skill; an empty description is listed. Values are used as YAML gives
//!   them: block scalars keep their line breaks. `:\/<>*?"|` in a name
//!   become `-`.
//! - **Listing.** The client's two skills first, then one `<skill>` element
//!   each with the absolute path of its `SKILL.md`, nothing escaped, no cut
//!   and no budget.

use std::path::{Path, PathBuf};

use super::frontmatter;
use super::prediction::{Entry, Environment, LeftOut, Prediction, shown_path};
use super::{Client, capture};

/// The model Gemini CLI 0.61.0 sends an agent turn to with its default
/// `auto` model (seen in its requests to the stand-in).
pub const DEFAULT_MODEL: &str = "gemini-3.1-pro-preview";

pub const VERSION: &str = "0.61.0";

/// The Gemini API, where a live run goes unless `GOOGLE_GEMINI_BASE_URL` says otherwise.
pub const API_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// The listing's header for the Gemini 3 prompt (the models the CLI routes
/// to by default).
const HEADER: &str = "# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill and receive its detailed instructions, call the `activate_skill` tool with the skill's name.\n\n<available_skills>\n";
/// The Gemini 2.5 prompt's wording.
const HEADER_2_5: &str = "# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill and receive its detailed instructions, you can call the `activate_skill` tool with the skill's name.\n\n<available_skills>\n";
const FOOTER: &str = "\n</available_skills>";

/// One `<skill>` element.
pub fn element(name: &str, description: &str, location: &str) -> String {
    format!(
        "  <skill>\n    <name>{name}</name>\n    <description>{description}</description>\n    <location>{location}</location>\n  </skill>"
    )
}

/// Where the built-in skills' files are: inside the installed client.
fn builtin_location(env: &Environment, name: &str) -> String {
    let base = capture::find_installed(Client::Gemini, env)
        .and_then(|installed| installed.command.last().cloned())
        .and_then(|script| script.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("<gemini-cli>/bundle"));
    shown_path(&base.join("builtin").join(name).join("SKILL.md"))
}

/// The `SKILL.md` files in one skills folder, in the client's order.
fn scan(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let top = dir.join("SKILL.md");
    if top.is_file() {
        files.push(top);
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return files;
    };
    let mut folders: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.join("SKILL.md").is_file())
        .collect();
    folders.sort_by(|a, b| {
        let key = |p: &Path| p.display().to_string().encode_utf16().collect::<Vec<_>>();
        key(b).cmp(&key(a))
    });
    files.extend(folders.into_iter().map(|f| f.join("SKILL.md")));
    files
}

/// Name and description as the client reads them, or why it drops the file.
fn read(path: &Path) -> Result<(String, String), String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot be read: {e}"))?;
    let text = String::from_utf8_lossy(&text);
    let Some((yaml_text, _body)) = frontmatter::split(&text) else {
        return Err(if text.starts_with('\u{feff}') {
            "starts with a byte-order mark, so the frontmatter is not found".into()
        } else {
            "no frontmatter".into()
        });
    };
    let loaded = frontmatter::load(yaml_text).ok().and_then(|map| {
        let name = frontmatter::string(&map, "name")?.to_string();
        let description = frontmatter::string(&map, "description")?.to_string();
        Some((name, description))
    });
    let (name, description) = match loaded {
        Some(pair) => pair,
        None => {
            let map = frontmatter::line_values(yaml_text, &["name", "description"], " ");
            let name = frontmatter::string(&map, "name")
                .unwrap_or_default()
                .to_string();
            let Some(description) = frontmatter::string(&map, "description") else {
                return Err("no `description`".into());
            };
            (name, description.to_string())
        }
    };
    if name.is_empty() {
        return Err("no `name`".into());
    }
    let name = name
        .chars()
        .map(|c| if ":\\/<>*?\"|".contains(c) { '-' } else { c })
        .collect();
    Ok((name, description))
}

/// Predicts the listing Gemini CLI gives `model` when started in `dir`.
pub fn predict(dir: &Path, env: &Environment, model: Option<&str>) -> Prediction {
    let model = model.unwrap_or("auto (gemini-3 routing)").to_string();
    let header = if model.starts_with("gemini-2") {
        HEADER_2_5
    } else {
        HEADER
    };
    // (name, description, location, builtin)
    let mut skills: Vec<(String, String, String, bool)> = super::builtins(Client::Gemini)
        .into_iter()
        .map(|(name, description)| {
            (
                name.to_string(),
                description.to_string(),
                builtin_location(env, name),
                true,
            )
        })
        .collect();
    let mut left_out = Vec::new();
    let folders = [
        env.home.join(".gemini/skills"),
        env.home.join(".agents/skills"),
        dir.join(".gemini/skills"),
        dir.join(".agents/skills"),
    ];
    for folder in folders {
        for file in scan(&folder) {
            let shown = shown_path(&file);
            match read(&file) {
                Ok((name, description)) => {
                    if let Some(earlier) = skills.iter_mut().find(|s| s.0 == name) {
                        left_out.push(LeftOut {
                            path: earlier.2.clone(),
                            reason: format!("replaced by {shown}, which has the same name"),
                        });
                        *earlier = (name, description, shown, false);
                    } else {
                        skills.push((name, description, shown, false));
                    }
                }
                Err(reason) => left_out.push(LeftOut {
                    path: shown,
                    reason,
                }),
            }
        }
    }
    let entries: Vec<Entry> = skills
        .into_iter()
        .map(|(name, description, location, builtin)| Entry {
            text: element(&name, &description, &location),
            name,
            description,
            path: if builtin { String::new() } else { location },
            bare: false,
            builtin,
        })
        .collect();
    let body: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    Prediction {
        client: Client::Gemini,
        client_version: VERSION,
        model,
        placement: "the system instruction, after the sub-agents section".into(),
        budget: None,
        listing: format!("{header}{}{FOOTER}", body.join("\n")),
        entries,
        left_out,
    }
}

/// The listing in one of the client's requests.
pub fn listing_in_request(body: &serde_json::Value) -> Option<String> {
    super::capture::text_between(body, "# Available Agent Skills\n", FOOTER)
}
