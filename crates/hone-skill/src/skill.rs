//! The skill model: a directory holding `SKILL.md`, its typed frontmatter, its
//! body, the files beside it and the links between them.
//!
//! Loading never fails on content: a skill with broken YAML is still a skill,
//! with `yaml` holding the error, so that validation can report it and the app
//! can open it for repair. Only I/O on the `SKILL.md` itself is an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::document::SkillDocument;
use crate::fields;
use crate::folder::{
    Listings, Resource, ResourceDetail, SKILL_FILE, WalkOptions, listed_skill_files,
};
use crate::links::{Link, body_links};
use crate::text::LineIndex;
use crate::yaml::{self, Node, YamlError};

/// The typed frontmatter. A field is `None` when absent *or* of the wrong type;
/// rules report wrong types from the YAML tree, which has the positions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Frontmatter {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub metadata: Option<BTreeMap<String, serde_json::Value>>,
    pub allowed_tools: Option<Vec<String>>,
    pub when_to_use: Option<String>,
    pub argument_hint: Option<String>,
    pub arguments: Option<serde_json::Value>,
    pub disable_model_invocation: Option<bool>,
    pub user_invocable: Option<bool>,
    pub disallowed_tools: Option<Vec<String>>,
    pub model: Option<String>,
    pub effort: Option<String>,
    pub context: Option<String>,
    pub agent: Option<String>,
    pub hooks: Option<serde_json::Value>,
    pub paths: Option<Vec<String>>,
    pub shell: Option<String>,
    /// Whether a forked skill runs in the background (Claude Code 2.1.218;
    /// forked skills default to it).
    pub background: Option<bool>,
    pub display_name: Option<String>,
    pub default_enabled: Option<bool>,
    pub fallback: Option<serde_json::Value>,
    pub triggers: Option<Vec<String>>,
    pub tools: Option<Vec<String>>,
    pub token_estimate: Option<u64>,
    /// Every key not modelled above, kept as written.
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Frontmatter {
    /// Builds the typed model from the YAML tree's root (a mapping, else
    /// empty). List fields are read as the field table splits them; every
    /// key outside the table goes to `extra`.
    pub fn from_yaml(root: &Node) -> Self {
        let mut fm = Frontmatter::default();
        let Some(entries) = root.as_map() else {
            return fm;
        };
        for (key, value) in entries {
            let key = key.key_string();
            let json = value.to_json();
            let list = || fields::lookup(&key).and_then(|f| f.list_items(&json));
            match key.as_str() {
                "name" => fm.name = text(&json),
                "description" => fm.description = text(&json),
                "license" => fm.license = text(&json),
                "compatibility" => fm.compatibility = text(&json),
                "metadata" => fm.metadata = typed(json),
                "allowed-tools" => fm.allowed_tools = list(),
                "when_to_use" => fm.when_to_use = text(&json),
                "argument-hint" => fm.argument_hint = text(&json),
                "arguments" => fm.arguments = Some(json),
                "disable-model-invocation" => fm.disable_model_invocation = claude_bool(&json),
                "user-invocable" => fm.user_invocable = claude_bool(&json),
                "background" => fm.background = claude_bool(&json),
                "disallowed-tools" => fm.disallowed_tools = list(),
                "model" => fm.model = text(&json),
                "effort" => fm.effort = text(&json),
                "context" => fm.context = text(&json),
                "agent" => fm.agent = text(&json),
                "hooks" => fm.hooks = Some(json),
                "paths" => fm.paths = list(),
                "shell" => fm.shell = text(&json),
                "display-name" => fm.display_name = text(&json),
                "default-enabled" => fm.default_enabled = claude_bool(&json),
                "fallback" => fm.fallback = Some(json),
                "triggers" => fm.triggers = list(),
                "tools" => fm.tools = list(),
                "token_estimate" => fm.token_estimate = typed(json),
                _ => {
                    fm.extra.insert(key, json);
                }
            }
        }
        fm
    }
}

impl Frontmatter {
    /// The names of the skill's named arguments (`arguments`: a
    /// space-separated string or a list), which Claude Code substitutes for
    /// `$name` in the body.
    pub fn argument_names(&self) -> Vec<String> {
        match &self.arguments {
            Some(serde_json::Value::String(s)) => s.split_whitespace().map(str::to_owned).collect(),
            Some(serde_json::Value::Array(items)) => items.iter().filter_map(text).collect(),
            _ => Vec::new(),
        }
    }
}

/// A boolean as Claude Code reads one since 2.1.218: `true`/`false`, or
/// `yes`/`no`/`on`/`off`/`1`/`0` in any case (CHANGELOG 2.1.218).
pub fn claude_bool(json: &serde_json::Value) -> Option<bool> {
    match json {
        serde_json::Value::Bool(b) => Some(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(1) => Some(true),
            Some(0) => Some(false),
            _ => None,
        },
        serde_json::Value::String(s) => bool_word(s),
        _ => None,
    }
}

/// `true`/`yes`/`on`/`1` or `false`/`no`/`off`/`0`, in any case.
pub fn bool_word(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// The key Claude Code reads for `key` when it is a snake_case or camelCase
/// spelling of a key the field table marks `respelled` (`displayName` →
/// `display-name`); `None` for the kebab-case spelling itself and for
/// every other key.
pub fn claude_code_respelling(key: &str) -> Option<&'static str> {
    let mut kebab = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c == '_' {
            kebab.push('-');
        } else if c.is_ascii_uppercase() {
            kebab.push('-');
            kebab.push(c.to_ascii_lowercase());
        } else {
            kebab.push(c);
        }
    }
    fields::FIELDS
        .iter()
        .find(|f| f.respelled && f.key == kebab && f.key != key)
        .map(|f| f.key)
}

fn typed<T: DeserializeOwned>(json: serde_json::Value) -> Option<T> {
    serde_json::from_value(json).ok()
}

/// A string field; numbers are accepted as their text (`version: 1.0` style).
fn text(json: &serde_json::Value) -> Option<String> {
    fields::scalar_text(json)
}

/// A loaded skill.
#[derive(Debug, Clone)]
pub struct Skill {
    /// The identity agents use: `name`, or the directory name when absent.
    pub id: String,
    pub dir: PathBuf,
    /// The `SKILL.md` path.
    pub path: PathBuf,
    pub doc: SkillDocument,
    /// The frontmatter's YAML tree; `None` without a closed frontmatter.
    pub yaml: Option<Result<Node, YamlError>>,
    pub meta: Frontmatter,
    pub resources: Vec<Resource>,
    pub links: Vec<Link>,
    pub lines: LineIndex,
}

impl Skill {
    /// Loads the skill at `dir` (its `SKILL.md` and the files beside it).
    pub fn load(dir: &Path) -> std::io::Result<Skill> {
        Skill::load_with(dir, ResourceDetail::Full)
    }

    /// Loads the skill at `dir`, learning about its resources as much as
    /// `detail` asks.
    pub fn load_with(dir: &Path, detail: ResourceDetail) -> std::io::Result<Skill> {
        Skill::load_listed(dir, detail, &Listings::new())
    }

    /// [`Skill::load_with`], taking folder listings the library scan has
    /// already read from `listings` instead of reading them again.
    pub(crate) fn load_listed(
        dir: &Path,
        detail: ResourceDetail,
        listings: &Listings,
    ) -> std::io::Result<Skill> {
        let path = dir.join(SKILL_FILE);
        let bytes = std::fs::read(&path)?;
        let mut skill = Skill::from_document(dir, SkillDocument::from_vec(bytes));
        let options = WalkOptions {
            detail,
            include_evals: false,
        };
        skill.resources = listed_skill_files(dir, options, listings).files;
        Ok(skill)
    }

    /// A skill from in-memory text (an editor's unsaved buffer), keeping the
    /// resources already known for its directory.
    pub fn with_text(&self, text: String) -> Skill {
        let mut skill = Skill::from_document(&self.dir, SkillDocument::parse(text));
        skill.resources = self.resources.clone();
        skill
    }

    /// Parses a document as the skill of `dir`, without touching the disk.
    pub fn from_document(dir: &Path, doc: SkillDocument) -> Skill {
        let yaml = doc.yaml_text().map(|(text, base)| yaml::parse(text, base));
        let meta = match &yaml {
            Some(Ok(root)) => Frontmatter::from_yaml(root),
            _ => Frontmatter::default(),
        };
        let dir_name = dir_name(dir);
        let id = meta
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(dir_name);
        let links = body_links(&doc);
        let lines = LineIndex::new(&doc.text);
        Skill {
            id,
            dir: dir.to_path_buf(),
            path: dir.join(SKILL_FILE),
            doc,
            yaml,
            meta,
            resources: Vec::new(),
            links,
            lines,
        }
    }

    pub fn text(&self) -> &str {
        &self.doc.text
    }

    pub fn body(&self) -> &str {
        self.doc.body_text()
    }

    pub fn dir_name(&self) -> String {
        dir_name(&self.dir)
    }

    /// The YAML root when the frontmatter parsed.
    pub fn yaml_root(&self) -> Option<&Node> {
        self.yaml.as_ref()?.as_ref().ok()
    }

    /// Whether the body links to or mentions the resource at `path`.
    pub fn references(&self, path: &str) -> bool {
        self.links
            .iter()
            .any(|l| l.resolved.as_deref() == Some(path))
            || self.body().contains(path)
    }
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(text: &str) -> Skill {
        Skill::from_document(
            Path::new("/lib/my-skill"),
            SkillDocument::parse(text.into()),
        )
    }

    #[test]
    fn identity_is_name_or_directory() {
        assert_eq!(skill("---\nname: pdf\n---\n").id, "pdf");
        assert_eq!(skill("---\ndescription: x\n---\n").id, "my-skill");
        assert_eq!(skill("no frontmatter").id, "my-skill");
    }

    #[test]
    fn typed_fields_and_unknown_keys() {
        let s = skill(
            "---\nname: a\nallowed-tools: Read, Bash(git add *)\ntriggers: [x, y]\nuser-invocable: false\ncustom: 1\n---\n",
        );
        assert_eq!(
            s.meta.allowed_tools.as_deref().unwrap(),
            ["Read", "Bash(git add *)"]
        );
        assert_eq!(s.meta.triggers.as_deref().unwrap(), ["x", "y"]);
        assert_eq!(s.meta.user_invocable, Some(false));
        assert_eq!(s.meta.extra["custom"], serde_json::json!(1));
    }

    /// Claude Code CHANGELOG 2.1.218: "Added `yes`/`no`/`on`/`off`/`1`/`0`
    /// (case-insensitive) as accepted values for skill and plugin
    /// frontmatter booleans".
    #[test]
    fn booleans_read_as_claude_code_reads_them() {
        let s = skill(
            "---\nname: a\ndisable-model-invocation: Yes\nuser-invocable: 0\nbackground: OFF\n---\n",
        );
        assert_eq!(s.meta.disable_model_invocation, Some(true));
        assert_eq!(s.meta.user_invocable, Some(false));
        assert_eq!(s.meta.background, Some(false));
        let s = skill("---\nname: a\nuser-invocable: maybe\n---\n");
        assert_eq!(s.meta.user_invocable, None);
    }

    /// Claude Code skills docs: `paths` takes a comma-separated string or a
    /// YAML list (list since CHANGELOG 2.1.84).
    #[test]
    fn paths_are_a_list_or_comma_separated_globs() {
        let s = skill("---\nname: a\npaths: \"src/**/*.{ts,tsx}, docs/*.md\"\n---\n");
        assert_eq!(
            s.meta.paths.as_deref().unwrap(),
            ["src/**/*.{ts,tsx}", "docs/*.md"]
        );
        let s = skill("---\nname: a\npaths:\n  - a/**\n  - b/**\n---\n");
        assert_eq!(s.meta.paths.as_deref().unwrap(), ["a/**", "b/**"]);
    }

    /// Claude Code CHANGELOG 2.1.186: `display-name`, `default-enabled`,
    /// `fallback` accept kebab-case, snake_case and camelCase.
    #[test]
    fn respelled_keys_are_those_claude_code_normalises() {
        assert_eq!(claude_code_respelling("displayName"), Some("display-name"));
        assert_eq!(
            claude_code_respelling("default_enabled"),
            Some("default-enabled")
        );
        assert_eq!(claude_code_respelling("display-name"), None);
        assert_eq!(claude_code_respelling("allowed_tools"), None);
        assert_eq!(claude_code_respelling("userInvocable"), None);
    }

    /// A value of the table's type for `field`, as YAML.
    fn sample(field: &crate::fields::Field) -> &'static str {
        use crate::fields::ValueType;
        match field.value {
            ValueType::String | ValueType::Text | ValueType::Any => "some text",
            ValueType::Boolean => "true",
            ValueType::Integer => "12",
            ValueType::Enum { values } => values[0],
            ValueType::List { .. } => "[a, b]",
            ValueType::Map => "{a: b}",
        }
    }

    /// The model and the field table know the same keys: each key of the
    /// table sets exactly one field of the model, every field of the model is
    /// set by one key, and any other key is kept in `extra`.
    #[test]
    fn the_model_parses_exactly_the_tables_keys() {
        let unset = serde_json::to_value(Frontmatter::default()).unwrap();
        let mut modelled = Vec::new();
        for field in crate::fields::FIELDS {
            let s = skill(&format!("---\n{}: {}\n---\n", field.key, sample(field)));
            assert!(s.meta.extra.is_empty(), "`{}` went to extra", field.key);
            let set = serde_json::to_value(&s.meta).unwrap();
            let changed: Vec<&String> = set
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, v)| unset[k.as_str()] != **v)
                .map(|(k, _)| k)
                .collect();
            assert_eq!(changed.len(), 1, "`{}` set {changed:?}", field.key);
            modelled.push(changed[0].clone());
        }
        let mut every: Vec<String> = unset
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "extra")
            .cloned()
            .collect();
        every.sort();
        modelled.sort();
        assert_eq!(modelled, every, "fields of the model no table key sets");
        let s = skill("---\nsource: x\n---\n");
        assert_eq!(s.meta.extra.len(), 1);
    }

    #[test]
    fn spec_tool_strings_split_on_spaces() {
        assert_eq!(
            crate::fields::split_tools("Read Bash(git:*) Write"),
            ["Read", "Bash(git:*)", "Write"]
        );
    }

    #[test]
    fn wrong_types_are_none_not_errors() {
        let s = skill("---\nname: [a]\ndescription: {x: 1}\n---\n");
        assert_eq!(s.meta.name, None);
        assert_eq!(s.meta.description, None);
    }

    #[test]
    fn links_are_resolved_relative_to_the_skill() {
        let s = skill(
            "---\nname: a\n---\nSee [ref](references/a%20b.md#x), ![img](./assets/../assets/i.png), [web](https://x.y), [up](../other/SKILL.md), [anchor](#top)\n",
        );
        let resolved: Vec<_> = s.links.iter().map(|l| l.resolved.clone()).collect();
        assert_eq!(
            resolved,
            [
                Some("references/a b.md".into()),
                Some("assets/i.png".into()),
                None
            ]
        );
        assert!(s.links[1].is_image);
        let first = &s.links[0];
        assert!(s.text()[first.span.clone()].starts_with("[ref]"));
    }

    #[test]
    fn broken_yaml_keeps_the_skill() {
        let s = skill("---\ndescription: Use when: a: b\n---\nbody");
        assert!(matches!(s.yaml, Some(Err(_))));
        assert_eq!(s.body(), "body");
    }
}
