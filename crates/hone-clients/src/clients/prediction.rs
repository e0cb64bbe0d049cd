//! What a client is predicted to show its model: the one shape every client
//! profile answers in, so the CLI, the app and the real-client tests read
//! the same thing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Client;

/// Where the client runs: its working folder, the user's home and the
/// environment variables it reads. Kept apart from the process's own so a
/// prediction can be made for a scratch home (the real-client tests) as well
/// as for the user's.
#[derive(Debug, Clone)]
pub struct Environment {
    pub home: PathBuf,
    pub vars: BTreeMap<String, String>,
}

impl Environment {
    /// This process's home and environment.
    pub fn current() -> Environment {
        let vars: BTreeMap<String, String> = std::env::vars().collect();
        let home = vars
            .get("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/"));
        Environment { home, vars }
    }

    /// A home folder and no variables but `HOME`.
    pub fn with_home(home: &Path) -> Environment {
        let mut vars = BTreeMap::new();
        vars.insert("HOME".to_string(), home.display().to_string());
        Environment {
            home: home.to_path_buf(),
            vars,
        }
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// The listing budget, where the client has one.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Budget {
    /// The model's context window in tokens.
    pub context_window_tokens: u64,
    /// The characters the client counts per token for this model.
    pub bytes_per_token: u32,
    /// The share of the window the listing may take.
    pub fraction: f64,
    /// The budget in characters, and where it came from.
    pub budget_chars: u64,
    /// `fraction` (window × bytes per token × fraction) or `env`
    /// (`SLASH_COMMAND_TOOL_CHAR_BUDGET`).
    pub source: &'static str,
    /// The characters the whole listing takes with every description.
    pub full_chars: u64,
    pub over_budget: bool,
    /// Descriptions dropped to fit (their names stay).
    pub bare: u32,
}

/// One entry of the listing, in the client's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Entry {
    /// Byte-identical to what the model gets for this skill.
    pub text: String,
    /// The name the model calls the skill by.
    pub name: String,
    /// The description as shown (after cuts and escaping); empty when bare.
    pub description: String,
    /// The `SKILL.md` it comes from; empty for a built-in.
    pub path: String,
    /// Shown without its description (over budget or `name-only`).
    pub bare: bool,
    /// One of the client's own skills.
    pub builtin: bool,
}

/// A skill folder the client does not list, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LeftOut {
    pub path: String,
    pub reason: String,
}

/// What one client, at one version and model, shows the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Prediction {
    pub client: Client,
    pub client_version: &'static str,
    pub model: String,
    /// Where the listing sits in the request, in words.
    pub placement: String,
    pub budget: Option<Budget>,
    pub entries: Vec<Entry>,
    pub left_out: Vec<LeftOut>,
    /// The listing as the model reads it: the entries with the client's
    /// own header and separators.
    pub listing: String,
}

/// `path` as the client would show it: absolute, as found.
pub(crate) fn shown_path(path: &Path) -> String {
    path.display().to_string()
}
