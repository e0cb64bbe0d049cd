//! The frontmatter field table: every key Hone knows, once.
//!
//! Each [`Field`] says what a key holds, which agents read it, how long it may
//! be and what it is for. The model ([`crate::skill::Frontmatter`]) reads list
//! values as the table splits them, the rules take types, limits, enumerated
//! values and which target knows which key from here, and the app builds its
//! frontmatter form from the table serialized as JSON. Sources are cited on
//! the keys: the agentskills.io specification, Claude Code's skills docs
//! (code.claude.com/docs/en/skills, "Frontmatter reference") and CHANGELOG,
//! and GitHub Copilot's skills reference (microsoft/vscode,
//! `extensions/copilot/assets/prompts/skills/agent-customization/references/skills.md`).

use serde::Serialize;

/// Who reads a key. The specification's keys are read by every agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum Reader {
    /// The agentskills.io specification.
    Agentskills,
    ClaudeCode,
    /// Anthropic's upload and Skills API, which accept the spec's keys only.
    ClaudeApi,
    Copilot,
    /// Skill routers (keys outside every agent's documentation).
    Routers,
}

/// How one string given for a list field becomes the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// The string is the one item.
    None,
    /// On whitespace (`arguments: file mode`).
    Whitespace,
    /// On commas outside `{…}`, so `*.{ts,tsx}` stays one glob (`paths`).
    Globs,
    /// On commas (Claude Code) or else spaces (the spec), outside `(…)`, so
    /// `Bash(git add *)` stays one tool.
    Tools,
}

impl Split {
    /// The items a single string stands for.
    pub fn items(self, s: &str) -> Vec<String> {
        match self {
            Split::None => vec![s.to_owned()],
            Split::Whitespace => s.split_whitespace().map(str::to_owned).collect(),
            Split::Globs => split_globs(s),
            Split::Tools => split_tools(s),
        }
    }
}

/// The value a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ValueType {
    /// One line of text.
    String,
    /// Prose over several lines (what the model reads to choose a skill).
    Text,
    /// `true` or `false`.
    Boolean,
    /// A whole number.
    Integer,
    /// One of a few words.
    Enum { values: &'static [&'static str] },
    /// A YAML list of strings, or one string split as `split` says.
    List { split: Split },
    /// A mapping.
    Map,
    /// Any YAML value; Hone does not check it.
    Any,
}

/// One frontmatter key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Field {
    pub key: &'static str,
    /// A short human name for forms and docs.
    pub label: &'static str,
    #[serde(flatten)]
    pub value: ValueType,
    pub readers: &'static [Reader],
    /// Characters the value may have, where a limit applies.
    pub max_chars: Option<usize>,
    /// Characters Claude Code keeps of this field and `when_to_use` together
    /// in its skill listing (skills docs; `skillListingMaxDescChars`).
    pub listing_chars: Option<usize>,
    /// Written words the author may pick from, beyond which any text goes.
    pub suggestions: &'static [&'static str],
    /// Claude Code reads it in kebab-case, snake_case or camelCase alike
    /// (CHANGELOG 2.1.186); every other key only as written.
    pub respelled: bool,
    pub help: &'static str,
}

const EVERY_AGENT: &[Reader] = &[
    Reader::Agentskills,
    Reader::ClaudeCode,
    Reader::ClaudeApi,
    Reader::Copilot,
];
const CLAUDE_CODE: &[Reader] = &[Reader::ClaudeCode];
/// Keys Copilot reads beyond the spec, as Claude Code does.
const CLAUDE_CODE_AND_COPILOT: &[Reader] = &[Reader::ClaudeCode, Reader::Copilot];
const ROUTERS: &[Reader] = &[Reader::Routers];

/// A field with no limit, suggestion or respelling.
const fn field(
    key: &'static str,
    label: &'static str,
    value: ValueType,
    readers: &'static [Reader],
    help: &'static str,
) -> Field {
    Field {
        key,
        label,
        value,
        readers,
        max_chars: None,
        listing_chars: None,
        suggestions: &[],
        respelled: false,
        help,
    }
}

/// `name`: at most 64 characters (spec).
pub const NAME: Field = Field {
    max_chars: Some(64),
    ..field(
        "name",
        "Name",
        ValueType::String,
        EVERY_AGENT,
        "Lowercase letters, digits and hyphens; the same as the folder name.",
    )
};

/// `description`: at most 1,024 characters (spec); Claude Code lists at most
/// 1,536 of it and `when_to_use` together.
pub const DESCRIPTION: Field = Field {
    max_chars: Some(1024),
    listing_chars: Some(1536),
    ..field(
        "description",
        "Description",
        ValueType::Text,
        EVERY_AGENT,
        "What the skill does and when to use it, in the third person. Agents choose skills by this text.",
    )
};

/// `compatibility`: 1–500 characters (spec).
pub const COMPATIBILITY: Field = Field {
    max_chars: Some(500),
    ..field(
        "compatibility",
        "Compatibility",
        ValueType::String,
        EVERY_AGENT,
        "Environment requirements: products, system packages, network access.",
    )
};

/// Claude Code's `effort` levels (skills docs; CHANGELOG "effort frontmatter").
pub const EFFORT_LEVELS: &[&str] = &["low", "medium", "high", "xhigh", "max"];
/// Claude Code's `shell` values for `!` command blocks (skills docs).
pub const SHELLS: &[&str] = &["bash", "powershell"];
/// Claude Code's `context` values (skills docs: `fork` runs the skill in a subagent).
pub const CONTEXTS: &[&str] = &["fork"];

const TOOLS: ValueType = ValueType::List {
    split: Split::Tools,
};

/// Every known key, the specification's first, then Claude Code's (keys
/// Copilot shares included), then the routers'. Forms show them in this order.
pub const FIELDS: &[Field] = &[
    NAME,
    DESCRIPTION,
    field(
        "license",
        "License",
        ValueType::String,
        EVERY_AGENT,
        "A license name or the path of a bundled license file.",
    ),
    COMPATIBILITY,
    field(
        "metadata",
        "Metadata",
        ValueType::Map,
        EVERY_AGENT,
        "Custom data: a map from string keys to string values.",
    ),
    field(
        "allowed-tools",
        "Allowed tools",
        TOOLS,
        EVERY_AGENT,
        "Tools the skill may use without asking, e.g. Read or Bash(git add *).",
    ),
    field(
        "when_to_use",
        "When to use",
        ValueType::Text,
        CLAUDE_CODE,
        "Extra trigger context, appended to the description in the listing.",
    ),
    field(
        "argument-hint",
        "Argument hint",
        ValueType::String,
        CLAUDE_CODE_AND_COPILOT,
        "Shown when the skill is invoked as a slash command, e.g. [file] [mode].",
    ),
    field(
        "arguments",
        "Arguments",
        ValueType::List {
            split: Split::Whitespace,
        },
        CLAUDE_CODE,
        "Names of the arguments, in order; the body's $name becomes that word of the invocation.",
    ),
    field(
        "disable-model-invocation",
        "Only when invoked by the user",
        ValueType::Boolean,
        CLAUDE_CODE_AND_COPILOT,
        "The model may not load this skill by itself.",
    ),
    field(
        "user-invocable",
        "User-invocable",
        ValueType::Boolean,
        CLAUDE_CODE_AND_COPILOT,
        "false hides the skill from the slash-command menu.",
    ),
    // CHANGELOG 2.1.152.
    field(
        "disallowed-tools",
        "Disallowed tools",
        TOOLS,
        CLAUDE_CODE,
        "Tools the skill may not use while it is active.",
    ),
    Field {
        suggestions: &["inherit"],
        ..field(
            "model",
            "Model",
            ValueType::String,
            CLAUDE_CODE,
            "The model while the skill is active: a model name or alias, or inherit (the session's).",
        )
    },
    field(
        "effort",
        "Effort",
        ValueType::Enum {
            values: EFFORT_LEVELS,
        },
        CLAUDE_CODE,
        "Reasoning effort while the skill is active.",
    ),
    field(
        "context",
        "Context",
        ValueType::Enum { values: CONTEXTS },
        CLAUDE_CODE,
        "fork runs the skill in a subagent.",
    ),
    field(
        "agent",
        "Agent",
        ValueType::String,
        CLAUDE_CODE,
        "The subagent type for a forked context.",
    ),
    field(
        "hooks",
        "Hooks",
        ValueType::Map,
        CLAUDE_CODE,
        "Hooks that run while the skill is active.",
    ),
    // A list since CHANGELOG 2.1.84.
    field(
        "paths",
        "Paths",
        ValueType::List {
            split: Split::Globs,
        },
        CLAUDE_CODE,
        "Globs of files that make the skill relevant.",
    ),
    field(
        "shell",
        "Shell",
        ValueType::Enum { values: SHELLS },
        CLAUDE_CODE,
        "The shell for the body's ! command blocks.",
    ),
    // CHANGELOG 2.1.218.
    field(
        "background",
        "Run in the background",
        ValueType::Boolean,
        CLAUDE_CODE,
        "Whether a forked skill runs in the background (forked skills default to it).",
    ),
    // CHANGELOG 2.1.186, as the next two.
    Field {
        respelled: true,
        ..field(
            "display-name",
            "Display name",
            ValueType::String,
            CLAUDE_CODE,
            "A display name for the skill (CHANGELOG 2.1.186).",
        )
    },
    Field {
        respelled: true,
        ..field(
            "default-enabled",
            "Enabled by default",
            ValueType::Boolean,
            CLAUDE_CODE,
            "Whether the skill starts enabled (CHANGELOG 2.1.186).",
        )
    },
    Field {
        respelled: true,
        ..field(
            "fallback",
            "Fallback",
            ValueType::Any,
            CLAUDE_CODE,
            "Read by Claude Code since 2.1.186; Hone keeps its value as written and does not check it.",
        )
    },
    field(
        "triggers",
        "Triggers",
        ValueType::List { split: Split::None },
        ROUTERS,
        "Phrases that should select this skill.",
    ),
    field(
        "tools",
        "Tools",
        TOOLS,
        ROUTERS,
        "Tools the skill uses, as skill routers list them.",
    ),
    field(
        "token_estimate",
        "Token estimate",
        ValueType::Integer,
        ROUTERS,
        "The skill's size in tokens, as skill routers budget it.",
    ),
];

/// The field of `key` as written (no respelling).
pub fn lookup(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

impl Field {
    pub fn is_read_by(&self, reader: Reader) -> bool {
        self.readers.contains(&reader)
    }

    /// The list a list field's value stands for: a YAML list of strings
    /// (numbers as their text), or one string split as the table says.
    /// `None` for other values and other fields.
    pub fn list_items(&self, json: &serde_json::Value) -> Option<Vec<String>> {
        let ValueType::List { split } = self.value else {
            return None;
        };
        match json {
            serde_json::Value::String(s) => Some(split.items(s)),
            serde_json::Value::Array(items) => items.iter().map(scalar_text).collect(),
            _ => None,
        }
    }
}

/// A string, or a number as its text (`version: 1.0` style).
pub fn scalar_text(json: &serde_json::Value) -> Option<String> {
    match json {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Comma-separated globs; a comma inside `{a,b}` belongs to the glob (skills
/// docs, `paths`).
fn split_globs(s: &str) -> Vec<String> {
    let mut globs = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                globs.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    globs.push(current);
    globs
        .into_iter()
        .map(|g| g.trim().to_owned())
        .filter(|g| !g.is_empty())
        .collect()
}

/// Tools split on commas when there are any (Claude Code), else on spaces
/// (the spec), outside parentheses, so `Bash(git add *)` stays whole.
pub fn split_tools(s: &str) -> Vec<String> {
    let comma_separated = s.contains(',');
    let mut tools = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let separator = if comma_separated {
            c == ','
        } else {
            c.is_whitespace()
        };
        if separator && depth == 0 {
            if !current.trim().is_empty() {
                tools.push(current.trim().to_owned());
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        tools.push(current.trim().to_owned());
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert!(
                FIELDS[i + 1..].iter().all(|g| g.key != f.key),
                "{} twice",
                f.key
            );
            assert!(!f.help.is_empty() && !f.label.is_empty(), "{}", f.key);
            assert!(!f.readers.is_empty(), "{}", f.key);
        }
    }

    #[test]
    fn lists_split_as_each_agent_reads_them() {
        let paths = lookup("paths").unwrap();
        assert_eq!(
            paths.list_items(&serde_json::json!("src/**, *.{ts,tsx}")),
            Some(vec!["src/**".to_owned(), "*.{ts,tsx}".to_owned()])
        );
        let tools = lookup("allowed-tools").unwrap();
        assert_eq!(
            tools.list_items(&serde_json::json!("Read Bash(git add *)")),
            Some(vec!["Read".to_owned(), "Bash(git add *)".to_owned()])
        );
        let triggers = lookup("triggers").unwrap();
        assert_eq!(
            triggers.list_items(&serde_json::json!("fill a form")),
            Some(vec!["fill a form".to_owned()])
        );
        assert_eq!(lookup("name").unwrap().list_items(&"x".into()), None);
    }

    #[test]
    fn serializes_for_the_app() {
        let json = serde_json::to_value(lookup("effort").unwrap()).unwrap();
        assert_eq!(json["type"], "enum");
        assert_eq!(json["values"][4], "max");
        assert_eq!(json["readers"], serde_json::json!(["claude-code"]));
        let json = serde_json::to_value(DESCRIPTION).unwrap();
        assert_eq!(json["max_chars"], 1024);
        assert_eq!(json["listing_chars"], 1536);
        let json = serde_json::to_value(lookup("paths").unwrap()).unwrap();
        assert_eq!(
            (&json["type"], &json["split"]),
            (&"list".into(), &"globs".into())
        );
    }
}
