//! The agent clients that load skills, and what each of them does with a
//! library: where it looks, what it reads, what it shows the model.
//!
//! Validation targets (`hone_check::rules::Target`) say which rules apply; a
//! client profile says what a real client, at a given version, does. The
//! profiles are checked against the real clients (installed from npm and run
//! offline against a loopback stand-in of their provider), so each fact here
//! names the client version it was seen in.

pub mod bundled;
pub mod capture;
pub mod claude_code;
pub mod codex;
pub mod compare;
pub mod copilot;
pub mod egress;
mod frontmatter;
pub mod gemini;
pub mod opencode;
pub mod permissions;
pub mod prediction;
pub mod script;
pub mod standin;
pub mod verdicts;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use prediction::{Budget, Entry, Environment, LeftOut, Prediction};

/// A client that discovers skills and lists them to its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    ClaudeCode,
    Codex,
    Gemini,
    Opencode,
    Copilot,
}

/// Whether a folder belongs to the project the client is started in or to
/// the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    Project,
    User,
}

impl Client {
    pub const ALL: [Client; 5] = [
        Client::ClaudeCode,
        Client::Codex,
        Client::Gemini,
        Client::Opencode,
        Client::Copilot,
    ];

    /// The name used on the command line and in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::Opencode => "opencode",
            Client::Copilot => "copilot",
        }
    }

    /// The name a person knows the client by.
    pub const fn display_name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Codex => "Codex CLI",
            Client::Gemini => "Gemini CLI",
            Client::Opencode => "OpenCode",
            Client::Copilot => "GitHub Copilot CLI",
        }
    }

    /// Whether the client lists skills in a fixed order. Gemini CLI lists
    /// each folder in the order its asynchronous file walk returns them
    /// (mostly descending by path, not always), so only its set of entries
    /// and their texts can be predicted.
    pub const fn listing_order_is_stable(self) -> bool {
        !matches!(self, Client::Gemini)
    }

    pub fn parse(name: &str) -> Option<Client> {
        Client::ALL
            .into_iter()
            .find(|client| client.as_str() == name)
    }

    /// The skill folders the client reads, relative to the project root or to
    /// `$HOME`, highest precedence first. The first is where a skill is
    /// installed for that client.
    pub const fn skill_folders(self, scope: Scope) -> &'static [&'static str] {
        match (self, scope) {
            (Client::ClaudeCode, Scope::Project) => &[".claude/skills"],
            (Client::ClaudeCode, Scope::User) => &[".claude/skills"],
            (Client::Codex, Scope::Project) => &[".agents/skills", ".codex/skills"],
            (Client::Codex, Scope::User) => &[".agents/skills", ".codex/skills"],
            (Client::Gemini, Scope::Project) => &[".gemini/skills", ".agents/skills"],
            (Client::Gemini, Scope::User) => &[".gemini/skills", ".agents/skills"],
            (Client::Opencode, Scope::Project) => &[
                ".opencode/skills",
                ".opencode/skill",
                ".claude/skills",
                ".agents/skills",
            ],
            (Client::Opencode, Scope::User) => &[
                ".config/opencode/skills",
                ".config/opencode/skill",
                ".claude/skills",
                ".agents/skills",
            ],
            (Client::Copilot, Scope::Project) => {
                &[".github/skills", ".agents/skills", ".claude/skills"]
            }
            (Client::Copilot, Scope::User) => &[".copilot/skills", ".agents/skills"],
        }
    }

    /// Where a skill named `name` is installed for this client: under the
    /// project root or under `home`.
    pub fn install_folder(self, scope: Scope, base: &Path, name: &str) -> PathBuf {
        base.join(self.skill_folders(scope)[0]).join(name)
    }
}

/// `dir` and each folder above it up to the git root (the first holding
/// `.git`), nearest first: where Codex, OpenCode and Copilot look for a
/// project's skills.
pub(crate) fn up_to_git_root(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for ancestor in dir.ancestors() {
        dirs.push(ancestor.to_path_buf());
        if ancestor.join(".git").exists() {
            break;
        }
    }
    dirs
}

/// What `client` shows `model` (its default model when `None`) when
/// started in `dir` with `env`'s home and variables. `None` for a client
/// Hone does not model yet.
pub fn predict(
    client: Client,
    dir: &Path,
    env: &Environment,
    model: Option<&str>,
) -> Option<Prediction> {
    match client {
        Client::ClaudeCode => Some(claude_code::predict(dir, env, model)),
        Client::Codex => codex::predict(dir, env, model),
        Client::Gemini => Some(gemini::predict(dir, env, model)),
        Client::Opencode => Some(opencode::predict(dir, env, model)),
        Client::Copilot => copilot::predict(dir, env, model),
    }
}

/// The client's own skills, as its modelled version lists them beside the
/// author's: name and description. They compete for the same requests, so
/// the rankers and evals can let them take part (see
/// `hone_rank::rank::RoutingDoc::builtins`).
pub fn builtins(client: Client) -> Vec<(&'static str, &'static str)> {
    bundled::bundled(client)
        .skills
        .iter()
        .map(|b| (b.name.as_str(), b.description.as_str()))
        .collect()
}

/// The client version Hone's profile of `client` was read from, if it has one.
pub fn modelled_version(client: Client) -> Option<&'static str> {
    match client {
        Client::ClaudeCode => Some(claude_code::VERSION),
        Client::Codex => codex::MODELLED.then_some(codex::VERSION),
        Client::Gemini => Some(gemini::VERSION),
        Client::Opencode => Some(opencode::VERSION),
        Client::Copilot => copilot::MODELLED.then_some(copilot::VERSION),
    }
}

/// What the app offers to choose for a client: its name, the version Hone
/// models, its default model and the other models its profile knows.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Profile {
    pub client: Client,
    pub name: &'static str,
    pub version: Option<&'static str>,
    /// What the client uses when no model is chosen, in words.
    pub default_model: &'static str,
    /// Other models whose listing the profile predicts (a budget or a
    /// header that changes with the model); empty when the model changes
    /// nothing.
    pub models: Vec<&'static str>,
}

/// The profile of `client`, as [`Profile`] says.
pub fn profile(client: Client) -> Profile {
    let (default_model, models): (&'static str, &[&'static str]) = match client {
        Client::ClaudeCode => (
            claude_code::DEFAULT_MODEL,
            &[
                "claude-sonnet-4-6",
                "claude-opus-4-6",
                "claude-sonnet-4-5",
                "claude-sonnet-4-5[1m]",
                "claude-haiku-4-5",
            ],
        ),
        Client::Codex => (codex::DEFAULT_MODEL, &["gpt-6.2-sol"]),
        Client::Gemini => (
            "auto (gemini-3 routing)",
            &[
                "gemini-3.1-pro-preview",
                "gemini-2.5-pro",
                "gemini-2.5-flash",
            ],
        ),
        Client::Opencode => ("the project's configured model", &[]),
        Client::Copilot => (copilot::DEFAULT_MODEL, &[]),
    };
    Profile {
        client,
        name: client.display_name(),
        version: modelled_version(client),
        default_model,
        models: models.to_vec(),
    }
}

/// The entries of a listing `client` sent, each as the model reads it: XML
/// listings by their `<skill>` elements, line listings by their `- ` lines
/// (a line that does not start so continues the entry above).
pub fn split_listing(client: Client, listing: &str) -> Vec<String> {
    const OPEN: &str = "<available_skills>\n";
    if let Some(start) = listing.find(OPEN) {
        let body = &listing[start + OPEN.len()..];
        let body = body
            .rsplit_once("\n</available_skills>")
            .map_or(body, |(b, _)| b);
        let mut entries: Vec<String> = Vec::new();
        let mut open = false;
        for line in body.split('\n') {
            if !open && line.starts_with("Additional skills available") {
                entries.extend(copilot::overflow_names(line));
                continue;
            }
            if !open && line.trim() == "<skill>" || entries.is_empty() {
                entries.push(line.to_string());
            } else if let Some(last) = entries.last_mut() {
                last.push('\n');
                last.push_str(line);
            }
            open = line.trim() != "</skill>";
        }
        return entries;
    }
    let (start, end) = match client {
        Client::Codex => (
            listing
                .find("### Available skills\n")
                .map(|at| at + "### Available skills\n".len()),
            ["\n### ", "\n</skills_instructions>"]
                .iter()
                .filter_map(|marker| listing.find(marker))
                .filter(|&at| {
                    listing
                        .find("### Available skills\n")
                        .is_none_or(|s| at > s)
                })
                .min(),
        ),
        _ => (listing.find("\n\n").map(|at| at + 2), None),
    };
    let body = &listing[start.unwrap_or(0)..end.unwrap_or(listing.len())];
    let mut entries: Vec<String> = Vec::new();
    for line in body.split('\n') {
        if line.starts_with("- ") || entries.is_empty() {
            entries.push(line.to_string());
        } else if let Some(last) = entries.last_mut() {
            last.push('\n');
            last.push_str(line);
        }
    }
    entries
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for client in Client::ALL {
            assert_eq!(Client::parse(client.as_str()), Some(client));
        }
        assert_eq!(Client::parse("cursor"), None);
    }

    #[test]
    fn install_folder_is_the_first_folder_read() {
        let home = Path::new("/home/me");
        assert_eq!(
            Client::Codex.install_folder(Scope::User, home, "pdf"),
            Path::new("/home/me/.agents/skills/pdf")
        );
        assert_eq!(
            Client::ClaudeCode.install_folder(Scope::Project, Path::new("/p"), "pdf"),
            Path::new("/p/.claude/skills/pdf")
        );
    }
}
