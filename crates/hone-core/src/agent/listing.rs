//! What the model is shown: the library's listing, as a runtime presents it.
//!
//! - `claude-code` (the default): what Claude Code sends, from its client
//!   profile ([`crate::clients::claude_code::predict_skills`]): its own
//!   skills listed after the library's, its budget for the model, its fixed
//!   `Skill` tool, and the listing where the client puts it for that model
//!   (a `system` message after the request, or a `<system-reminder>` before
//!   it; see [`crate::clients::claude_code::placement`]). The tool and the
//!   listing's header are the client's own words, captured from its
//!   requests.
//! - `agentskills`: the `<available_skills>` block
//!   ([`crate::catalog::agentskills_prompt`]) in the system prompt; the
//!   `Skill` tool then only says how to load one. The sentences around it
//!   are Hone's own wording, the same for every request and provider.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::catalog::{self, ListingSettings};
use crate::clients::claude_code::{self, Placement};
use crate::skill::Skill;

/// The name of the tool the model calls to load a skill.
pub const SKILL_TOOL: &str = "Skill";

/// The tool's description when the listing is in the system prompt.
const TOOL_BRIEF: &str = "Load one of the skills listed in <available_skills> by its name. Call \
it before doing anything else when the user's request matches a skill; do not call it otherwise.";

/// The system prompt that carries an agentskills block.
const SYSTEM_PREAMBLE: &str = "You can load skills: specialised instructions for kinds of tasks. \
They are listed below. When the user's request matches one, call the Skill tool with its name \
before doing anything else; if none fits, answer normally.\n\n";

/// How the listing is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum ListingStyle {
    /// Claude Code's listing as the `Skill` tool's description.
    ClaudeCode,
    /// The agentskills `<available_skills>` block in the system prompt.
    Agentskills,
}

impl ListingStyle {
    pub fn as_str(self) -> &'static str {
        match self {
            ListingStyle::ClaudeCode => "claude-code",
            ListingStyle::Agentskills => "agentskills",
        }
    }
}

impl fmt::Display for ListingStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ListingStyle {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "claude-code" => Ok(ListingStyle::ClaudeCode),
            "agentskills" => Ok(ListingStyle::Agentskills),
            _ => Err(format!(
                "unknown listing `{s}` (expected claude-code or agentskills)"
            )),
        }
    }
}

/// A skill of the library as a provider may need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSkill {
    pub id: String,
    /// The skill's folder (a provider running a real client copies it).
    pub dir: PathBuf,
    /// Whether the model sees it at all.
    pub listed: bool,
}

/// The text a model is shown about the library, the same for every request.
#[derive(Debug, Clone)]
pub struct Listing {
    pub style: ListingStyle,
    /// The `Skill` tool's description.
    pub tool_description: String,
    /// The system prompt; in the claude-code style, the client's listing.
    pub system: Option<String>,
    /// Where Claude Code puts the listing for the model (claude-code style).
    pub placement: Option<Placement>,
    /// The client's own skills the listing shows beside the library's.
    pub builtins: Vec<String>,
    /// Every skill of the library, listed or not.
    pub skills: Vec<ListedSkill>,
    /// SHA-256 of everything above that the model sees, in hex: answers are
    /// cached under it, so any edit to a listed description invalidates them.
    pub hash: String,
    /// Names a model may use for a skill (identity or folder name) → identity.
    names: HashMap<String, String>,
}

impl Listing {
    /// The listing of `skills` in `style` for `model` (a Claude model picks
    /// Claude Code's placement and budget; any other gets its default
    /// model's), Claude Code's cut and overrides taken from `settings`.
    pub fn new(
        skills: &[&Skill],
        style: ListingStyle,
        settings: &ListingSettings,
        model: &str,
    ) -> Listing {
        let mut placement = None;
        let mut builtins = Vec::new();
        let (tool_description, system, unlisted) = match style {
            ListingStyle::ClaudeCode => {
                let model = model.starts_with("claude").then_some(model);
                let prediction = claude_code::predict_skills(skills, settings, model);
                placement = Some(claude_code::placement(&prediction.model));
                builtins = prediction
                    .entries
                    .iter()
                    .filter(|e| e.builtin)
                    .map(|e| e.name.clone())
                    .collect();
                let unlisted: Vec<String> = skills
                    .iter()
                    .filter(|s| {
                        !prediction
                            .entries
                            .iter()
                            .any(|e| !e.builtin && e.name == s.dir_name())
                    })
                    .map(|s| s.id.clone())
                    .collect();
                (
                    claude_code::skill_tool().description.clone(),
                    Some(prediction.listing),
                    unlisted,
                )
            }
            ListingStyle::Agentskills => {
                let unlisted = catalog::listing_budget_with(skills, settings, None).unlisted;
                let listed: Vec<&Skill> = skills
                    .iter()
                    .copied()
                    .filter(|s| !unlisted.contains(&s.id))
                    .collect();
                (
                    TOOL_BRIEF.to_owned(),
                    Some(format!(
                        "{SYSTEM_PREAMBLE}{}",
                        catalog::agentskills_prompt(&listed)
                    )),
                    unlisted,
                )
            }
        };
        let mut names = HashMap::new();
        for skill in skills {
            names
                .entry(skill.dir_name())
                .or_insert_with(|| skill.id.clone());
        }
        for skill in skills {
            names.insert(skill.id.clone(), skill.id.clone());
        }
        let mut hasher = Sha256::new();
        hasher.update(style.as_str());
        hasher.update([0]);
        hasher.update(&tool_description);
        hasher.update([0]);
        hasher.update(system.as_deref().unwrap_or_default());
        hasher.update([0]);
        hasher.update(format!("{placement:?}"));
        let hash = hex(&hasher.finalize());
        Listing {
            style,
            tool_description,
            system,
            placement,
            builtins,
            skills: skills
                .iter()
                .map(|s| ListedSkill {
                    id: s.id.clone(),
                    dir: s.dir.clone(),
                    listed: !unlisted.contains(&s.id),
                })
                .collect(),
            hash,
            names,
        }
    }

    /// The identity of the skill a model named, if the library has it. The
    /// name is trimmed; a `plugin:` or `/` prefix a model may add is ignored.
    pub fn resolve(&self, name: &str) -> Option<&str> {
        let name = name.trim().trim_start_matches('/');
        let bare = name.rsplit(':').next().unwrap_or(name);
        self.names
            .get(name)
            .or_else(|| self.names.get(bare))
            .map(String::as_str)
    }

    /// Whether `name` is one of the client's own skills the listing shows.
    pub fn is_builtin(&self, name: &str) -> bool {
        let name = name.trim().trim_start_matches('/');
        self.builtins.iter().any(|b| b == name)
    }

    /// The folder of the skill with identity `id`.
    pub fn dir_of(&self, id: &str) -> Option<&PathBuf> {
        self.skills.iter().find(|s| s.id == id).map(|s| &s.dir)
    }

    /// The text the model reads about the library, whatever the style.
    pub fn prompt_text(&self) -> String {
        match &self.system {
            Some(system) => format!("{system}\n{}", self.tool_description),
            None => self.tool_description.clone(),
        }
    }
}

/// The JSON schema of the `Skill` tool's input: Claude Code's own in its
/// style, else a minimal one.
pub fn skill_tool_schema(style: ListingStyle) -> serde_json::Value {
    if style == ListingStyle::ClaudeCode {
        return claude_code::skill_tool().input_schema.clone();
    }
    serde_json::json!({
        "type": "object",
        "properties": {
            "skill": {
                "type": "string",
                "description": "The name of the skill to load, exactly as listed."
            }
        },
        "required": ["skill"]
    })
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
