//! What each client brings of its own, as its installed version shows the
//! model: its built-in skills (and Claude Code's `Skill` tool), one JSON file
//! per client in `builtins/`.
//!
//! They are data, not code, because a new client version changes them more
//! often than anything else in a profile, and because they are read off the
//! real client, never written by hand: `scripts/update-clients.sh` installs
//! the new version, re-captures these files from its requests to a loopback
//! stand-in (the ignored `recapture_builtins` test in the real-client suite,
//! with `HONE_WRITE_BUILTINS=1`) and re-runs the suite, so updating a
//! profile is one command and a reviewed diff. Each file names the version
//! it was captured from, which must be the version its profile models.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::Client;

/// One of a client's own skills, as the installed version lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Builtin {
    pub name: String,
    /// As the client holds it before its own rendering (Claude Code's:
    /// already escaped as it lists it).
    pub description: String,
    /// Whether its description may be dropped over budget like the
    /// author's (Claude Code's bundled skills always keep theirs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budgeted: bool,
}

/// Claude Code's `Skill` tool as the client offers it to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillTool {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

/// One client's captured file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bundled {
    pub client: String,
    /// The client version it was captured from.
    pub version: String,
    /// The day it was captured (YYYY-MM-DD).
    pub captured: String,
    pub skills: Vec<Builtin>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_tool: Option<SkillTool>,
}

/// The file's name under `crates/hone-clients/src/clients/builtins/`.
pub fn file_name(client: Client) -> String {
    format!("{}.json", client.as_str())
}

fn parse(client: Client, text: &str) -> Bundled {
    serde_json::from_str(text).unwrap_or_else(|err| {
        panic!(
            "builtins/{} is not a capture Hone can read: {err}",
            file_name(client)
        )
    })
}

/// What `client` brings of its own at the version its profile models.
pub fn bundled(client: Client) -> &'static Bundled {
    static CLAUDE_CODE: LazyLock<Bundled> = LazyLock::new(|| {
        parse(
            Client::ClaudeCode,
            include_str!("builtins/claude-code.json"),
        )
    });
    static CODEX: LazyLock<Bundled> =
        LazyLock::new(|| parse(Client::Codex, include_str!("builtins/codex.json")));
    static GEMINI: LazyLock<Bundled> =
        LazyLock::new(|| parse(Client::Gemini, include_str!("builtins/gemini.json")));
    static OPENCODE: LazyLock<Bundled> =
        LazyLock::new(|| parse(Client::Opencode, include_str!("builtins/opencode.json")));
    static COPILOT: LazyLock<Bundled> =
        LazyLock::new(|| parse(Client::Copilot, include_str!("builtins/copilot.json")));
    match client {
        Client::ClaudeCode => &CLAUDE_CODE,
        Client::Codex => &CODEX,
        Client::Gemini => &GEMINI,
        Client::Opencode => &OPENCODE,
        Client::Copilot => &COPILOT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A re-capture for a new version must come with the profile's version:
    /// the files and the code that renders them move together.
    #[test]
    fn each_capture_is_of_the_version_its_profile_models() {
        for client in Client::ALL {
            let bundled = bundled(client);
            assert_eq!(bundled.client, client.as_str());
            let modelled = match client {
                Client::ClaudeCode => super::super::claude_code::VERSION,
                Client::Codex => super::super::codex::VERSION,
                Client::Gemini => super::super::gemini::VERSION,
                Client::Opencode => super::super::opencode::VERSION,
                Client::Copilot => super::super::copilot::VERSION,
            };
            assert_eq!(bundled.version, modelled, "{client}");
            assert!(!bundled.skills.is_empty(), "{client}");
        }
        assert!(bundled(Client::ClaudeCode).skill_tool.is_some());
    }
}
