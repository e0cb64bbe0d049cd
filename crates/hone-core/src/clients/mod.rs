//! The agent clients that load skills, and what each of them does with a
//! library: where it looks, what it reads, what it shows the model.
//!
//! Validation targets ([`crate::rules::Target`]) say which rules apply; a
//! client profile says what a real client, at a given version, does. The
//! profiles are checked against the real clients (installed from npm and run
//! offline against a loopback stand-in of their provider), so each fact here
//! names the client version it was seen in.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// A client that discovers skills and lists them to its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
