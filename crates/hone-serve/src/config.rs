//! `--print-config`: the snippet that registers the server with a client.
//!
//! Paths are absolute (clients start servers from anywhere). A token is
//! never printed: HTTP snippets read it from `HONE_SERVE_TOKEN` in the
//! client's environment. Claude Desktop's configuration file starts local
//! servers only, so its snippet is always the stdio one.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::http::ENDPOINT;

/// The environment variable holding the bearer token.
pub const TOKEN_ENV: &str = "HONE_SERVE_TOKEN";

/// A client whose configuration can be printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
}

impl Client {
    /// Every client, in the order a panel offers them.
    pub const ALL: [Client; 3] = [Client::ClaudeCode, Client::ClaudeDesktop, Client::Cursor];

    /// The name `--print-config` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
        }
    }

    /// The client's name as its users know it.
    pub fn label(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
        }
    }

    /// Where the snippet goes, for someone who has not registered a server before.
    pub fn how_to_use(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Run this in a terminal.",
            Client::ClaudeDesktop => {
                "Merge into claude_desktop_config.json (Settings › Developer › Edit Config); it starts its own `hone serve`."
            }
            Client::Cursor => "Merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project).",
        }
    }
}

/// A new bearer token: 32 random bytes from the operating system, base64url.
pub fn new_token() -> Result<String, String> {
    use base64::Engine as _;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a token: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

impl std::str::FromStr for Client {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "claude-code" => Ok(Client::ClaudeCode),
            "claude-desktop" => Ok(Client::ClaudeDesktop),
            "cursor" => Ok(Client::Cursor),
            _ => Err(format!(
                "unknown client `{s}` (expected claude-code, claude-desktop or cursor)"
            )),
        }
    }
}

/// What the snippet starts or connects to.
#[derive(Debug, Clone)]
pub struct Registration {
    /// The `hone` executable.
    pub program: PathBuf,
    /// Library roots, absolute.
    pub roots: Vec<PathBuf>,
    /// Options to pass on (`--ranker bm25`, `--strict`, …).
    pub options: Vec<String>,
    /// Connect over HTTP to this address instead of starting the server.
    pub http: Option<SocketAddr>,
    /// Whether the HTTP server requires a token.
    pub token: bool,
}

impl Registration {
    /// A server name clients show: `hone-` and the library folder's name.
    pub fn name(&self) -> String {
        let folder = self
            .roots
            .first()
            .and_then(|r| r.file_name())
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let slug: String = folder
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let slug = slug.trim_matches('-');
        if slug.is_empty() {
            "hone-skills".into()
        } else {
            format!("hone-{slug}")
        }
    }

    fn args(&self) -> Vec<String> {
        let mut args = vec!["serve".to_owned()];
        args.extend(self.roots.iter().map(|r| path_text(r)));
        args.extend(self.options.iter().cloned());
        args
    }

    fn url(&self, addr: SocketAddr) -> String {
        format!("http://{addr}{ENDPOINT}")
    }
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The snippet for `client`.
pub fn snippet(client: Client, registration: &Registration) -> String {
    let name = registration.name();
    let stdio_entry = json!({
        "command": path_text(&registration.program),
        "args": registration.args(),
    });
    match (client, registration.http) {
        (Client::ClaudeCode, None) => {
            let mut words = vec![
                "claude".to_owned(),
                "mcp".into(),
                "add".into(),
                "--scope".into(),
                "user".into(),
                name,
                "--".into(),
                path_text(&registration.program),
            ];
            words.extend(registration.args());
            words
                .iter()
                .map(|w| shell_word(w))
                .collect::<Vec<_>>()
                .join(" ")
                + "\n"
        }
        (Client::ClaudeCode, Some(addr)) => {
            let mut line = format!(
                "claude mcp add --scope user --transport http {} {}",
                shell_word(&name),
                registration.url(addr)
            );
            if registration.token {
                line.push_str(&format!(" --header \"Authorization: Bearer ${TOKEN_ENV}\""));
            }
            line + "\n"
        }
        (Client::ClaudeDesktop, _) | (Client::Cursor, None) => {
            let config = json!({ "mcpServers": { name: stdio_entry } });
            serde_json::to_string_pretty(&config).unwrap_or_default() + "\n"
        }
        (Client::Cursor, Some(addr)) => {
            let mut entry = json!({ "url": registration.url(addr) });
            if registration.token {
                entry["headers"] = json!({"Authorization": format!("Bearer ${{env:{TOKEN_ENV}}}")});
            }
            let config = json!({ "mcpServers": { name: entry } });
            serde_json::to_string_pretty(&config).unwrap_or_default() + "\n"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registration(http: Option<SocketAddr>) -> Registration {
        Registration {
            program: PathBuf::from("/usr/local/bin/hone"),
            roots: vec![PathBuf::from("/home/me/team skills")],
            options: vec!["--ranker".into(), "bm25".into()],
            http,
            token: true,
        }
    }

    #[test]
    fn claude_code_commands() {
        assert_eq!(
            snippet(Client::ClaudeCode, &registration(None)),
            "claude mcp add --scope user hone-team-skills -- /usr/local/bin/hone serve '/home/me/team skills' --ranker bm25\n"
        );
        assert_eq!(
            snippet(
                Client::ClaudeCode,
                &registration(Some("127.0.0.1:8808".parse().unwrap()))
            ),
            "claude mcp add --scope user --transport http hone-team-skills http://127.0.0.1:8808/mcp --header \"Authorization: Bearer $HONE_SERVE_TOKEN\"\n"
        );
    }

    #[test]
    fn json_configs() {
        let desktop: serde_json::Value = serde_json::from_str(&snippet(
            Client::ClaudeDesktop,
            &registration(Some("127.0.0.1:1".parse().unwrap())),
        ))
        .unwrap();
        let entry = &desktop["mcpServers"]["hone-team-skills"];
        assert_eq!(entry["command"], "/usr/local/bin/hone");
        assert_eq!(entry["args"][1], "/home/me/team skills");
        let cursor: serde_json::Value = serde_json::from_str(&snippet(
            Client::Cursor,
            &registration(Some("127.0.0.1:8808".parse().unwrap())),
        ))
        .unwrap();
        let entry = &cursor["mcpServers"]["hone-team-skills"];
        assert_eq!(entry["url"], "http://127.0.0.1:8808/mcp");
        assert_eq!(
            entry["headers"]["Authorization"],
            "Bearer ${env:HONE_SERVE_TOKEN}"
        );
        assert!("vscode".parse::<Client>().is_err());
    }

    #[test]
    fn clients_round_trip_and_tokens_differ() {
        for client in Client::ALL {
            assert_eq!(client.as_str().parse::<Client>(), Ok(client));
        }
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
    }
}
