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
//! - `codex`: what Codex CLI sends, from its client profile
//!   ([`crate::clients::codex::predict_library`]): its skills section (its
//!   own four skills, then the library's as if copied into a project's
//!   `.agents/skills`, the roots table with the project's and
//!   `$CODEX_HOME`'s absolute paths, its budget), byte for byte the text of
//!   the developer message Codex sends, and its shell tool `exec_command`
//!   as the only tool (Codex has no tool to load a skill: its model reads
//!   the `SKILL.md`). Codex's base instructions, its environment and
//!   permissions messages and its other tools are not sent. The project is
//!   the folder Hone runs in and `$CODEX_HOME` the user's, unless
//!   [`Listing::codex`] names others.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::catalog;
use crate::clients::claude_code::{self, ListingSettings, Placement};
use crate::clients::{Client, Prediction, codex};
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
    /// Codex CLI's skills section in a developer message, and its shell tool.
    Codex,
}

impl ListingStyle {
    pub fn as_str(self) -> &'static str {
        match self {
            ListingStyle::ClaudeCode => "claude-code",
            ListingStyle::Agentskills => "agentskills",
            ListingStyle::Codex => "codex",
        }
    }

    /// The client whose request shape the style is, if any.
    pub fn client(self) -> Option<Client> {
        match self {
            ListingStyle::ClaudeCode => Some(Client::ClaudeCode),
            ListingStyle::Agentskills => None,
            ListingStyle::Codex => Some(Client::Codex),
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
            "codex" => Ok(ListingStyle::Codex),
            _ => Err(format!(
                "unknown listing `{s}` (expected claude-code, agentskills or codex)"
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

/// The folders a Codex listing names in its roots table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexLayout {
    pub project: PathBuf,
    pub codex_home: PathBuf,
}

impl CodexLayout {
    /// The folder Hone runs in as the project, and the user's
    /// `$CODEX_HOME` (else `~/.codex`): where Codex would show the library
    /// installed in this project.
    pub fn current() -> CodexLayout {
        let project = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let codex_home = std::env::var_os("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::clients::Environment::current().home.join(".codex"));
        CodexLayout {
            project,
            codex_home,
        }
    }
}

/// The text a model is shown about the library, the same for every request.
#[derive(Debug, Clone)]
pub struct Listing {
    pub style: ListingStyle,
    /// The `Skill` tool's description (in the codex style, the shell tool's).
    pub tool_description: String,
    /// The system prompt; in the claude-code and codex styles, the client's
    /// listing.
    pub system: Option<String>,
    /// Where the codex style shows the library: the project whose
    /// `.agents/skills` holds it, and `$CODEX_HOME`.
    pub codex_layout: Option<CodexLayout>,
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
        let layout = (style == ListingStyle::Codex).then(CodexLayout::current);
        Listing::build(skills, style, settings, model, layout)
    }

    /// The codex-style listing of `skills` for `model`, the library shown
    /// in `layout`'s project and `$CODEX_HOME`.
    pub fn codex(skills: &[&Skill], model: &str, layout: CodexLayout) -> Listing {
        let settings = ListingSettings::new();
        Listing::build(skills, ListingStyle::Codex, &settings, model, Some(layout))
    }

    fn build(
        skills: &[&Skill],
        style: ListingStyle,
        settings: &ListingSettings,
        model: &str,
        codex_layout: Option<CodexLayout>,
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
                let unlisted = unlisted_by_claude_code(skills, &prediction);
                (
                    claude_code::skill_tool().description.clone(),
                    Some(prediction.listing),
                    unlisted,
                )
            }
            ListingStyle::Agentskills => {
                let prediction = claude_code::predict_skills(skills, settings, None);
                let unlisted = unlisted_by_claude_code(skills, &prediction);
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
            ListingStyle::Codex => {
                let layout = codex_layout.clone().unwrap_or_else(CodexLayout::current);
                let model = (!model.is_empty()).then_some(model);
                let prediction =
                    codex::predict_library(skills, &layout.project, &layout.codex_home, model);
                builtins = crate::clients::builtins(crate::clients::Client::Codex)
                    .into_iter()
                    .map(|(name, _)| name.to_string())
                    .collect();
                let root = layout.project.join(codex::AGENTS_SKILLS);
                let unlisted: Vec<String> = skills
                    .iter()
                    .filter(|s| {
                        let path = root.join(s.dir_name()).join("SKILL.md");
                        !prediction
                            .entries
                            .iter()
                            .any(|e| !e.builtin && Path::new(&e.path) == path)
                    })
                    .map(|s| s.id.clone())
                    .collect();
                (
                    codex::shell_tool().1.to_owned(),
                    Some(prediction.listing),
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
        if let Some(layout) = &codex_layout {
            hasher.update([0]);
            hasher.update(layout.project.as_os_str().as_encoded_bytes());
            hasher.update([0]);
            hasher.update(layout.codex_home.as_os_str().as_encoded_bytes());
        }
        let hash = hex(&hasher.finalize());
        Listing {
            style,
            tool_description,
            system,
            codex_layout,
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
    match style {
        ListingStyle::ClaudeCode => return claude_code::skill_tool().input_schema.clone(),
        ListingStyle::Codex => return codex::shell_tool().2,
        ListingStyle::Agentskills => {}
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

/// The identities of the library's skills Claude Code's `prediction` does
/// not list (`disable-model-invocation`, `skillOverrides`, or a folder name
/// an earlier skill took), by the `SKILL.md` each entry comes from.
fn unlisted_by_claude_code(skills: &[&Skill], prediction: &Prediction) -> Vec<String> {
    let listed: std::collections::HashSet<&str> = prediction
        .entries
        .iter()
        .filter(|e| !e.builtin)
        .map(|e| e.path.as_str())
        .collect();
    skills
        .iter()
        .filter(|s| !listed.contains(s.dir.join("SKILL.md").display().to_string().as_str()))
        .map(|s| s.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::document::SkillDocument;

    /// A second folder of one name is not listed (the client keeps the
    /// first), in either style, nor is a skill only the user may invoke.
    #[test]
    fn skills_claude_code_leaves_out_are_unlisted_in_both_styles() {
        let skill = |dir: &str, text: &str| {
            Skill::from_document(Path::new(dir), SkillDocument::parse(text.into()))
        };
        let first = skill("/a/pdf", "---\nname: pdf\ndescription: Reads PDFs.\n---\n");
        let twin = skill("/b/pdf", "---\nname: pdf-b\ndescription: Also PDFs.\n---\n");
        let hidden = skill(
            "/a/secret",
            "---\nname: secret\ndescription: Hidden.\ndisable-model-invocation: true\n---\n",
        );
        let skills = [&first, &twin, &hidden];
        for style in [ListingStyle::ClaudeCode, ListingStyle::Agentskills] {
            let listing =
                Listing::new(&skills, style, &ListingSettings::new(), "claude-sonnet-4-5");
            let listed: Vec<bool> = listing.skills.iter().map(|s| s.listed).collect();
            assert_eq!(listed, [true, false, false], "{style}");
        }
    }
}
