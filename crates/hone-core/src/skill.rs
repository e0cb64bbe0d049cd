//! The skill model: a directory holding `SKILL.md`, its typed frontmatter, its
//! body, the files beside it and the links between them.
//!
//! Loading never fails on content: a skill with broken YAML is still a skill,
//! with `yaml` holding the error, so that validation can report it and the app
//! can open it for repair. Only I/O on the `SKILL.md` itself is an error.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::document::SkillDocument;
use crate::text::LineIndex;
use crate::yaml::{self, Node, YamlError};

/// The file name that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// Keys of the agentskills.io specification.
pub const SPEC_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];
/// Keys Claude Code reads beyond the specification.
pub const CLAUDE_CODE_KEYS: &[&str] = &[
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
];
/// Keys skill routers read.
pub const ROUTER_KEYS: &[&str] = &["triggers", "tools", "token_estimate"];

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
    pub triggers: Option<Vec<String>>,
    pub tools: Option<Vec<String>>,
    pub token_estimate: Option<u64>,
    /// Every key not modelled above, kept as written.
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Frontmatter {
    /// Builds the typed model from the YAML tree's root (a mapping, else empty).
    pub fn from_yaml(root: &Node) -> Self {
        let mut fm = Frontmatter::default();
        let Some(entries) = root.as_map() else {
            return fm;
        };
        for (key, value) in entries {
            let key = key.key_string();
            let json = value.to_json();
            match key.as_str() {
                "name" => fm.name = text(&json),
                "description" => fm.description = text(&json),
                "license" => fm.license = text(&json),
                "compatibility" => fm.compatibility = text(&json),
                "metadata" => fm.metadata = typed(json),
                "allowed-tools" => fm.allowed_tools = tool_list(&json),
                "when_to_use" => fm.when_to_use = text(&json),
                "argument-hint" => fm.argument_hint = text(&json),
                "arguments" => fm.arguments = Some(json),
                "disable-model-invocation" => fm.disable_model_invocation = typed(json),
                "user-invocable" => fm.user_invocable = typed(json),
                "disallowed-tools" => fm.disallowed_tools = tool_list(&json),
                "model" => fm.model = text(&json),
                "effort" => fm.effort = text(&json),
                "context" => fm.context = text(&json),
                "agent" => fm.agent = text(&json),
                "hooks" => fm.hooks = Some(json),
                "paths" => fm.paths = string_list(&json),
                "shell" => fm.shell = text(&json),
                "triggers" => fm.triggers = string_list(&json),
                "tools" => fm.tools = tool_list(&json),
                "token_estimate" => fm.token_estimate = typed(json),
                _ => {
                    fm.extra.insert(key, json);
                }
            }
        }
        fm
    }
}

fn typed<T: DeserializeOwned>(json: serde_json::Value) -> Option<T> {
    serde_json::from_value(json).ok()
}

/// A string field; numbers are accepted as their text (`version: 1.0` style).
fn text(json: &serde_json::Value) -> Option<String> {
    match json {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A list of strings, or one string taken as a one-item list.
fn string_list(json: &serde_json::Value) -> Option<Vec<String>> {
    match json {
        serde_json::Value::String(s) => Some(vec![s.clone()]),
        serde_json::Value::Array(items) => items.iter().map(text).collect(),
        _ => None,
    }
}

/// Tool lists: a YAML list, or one string split on commas (Claude Code) or
/// spaces (the agentskills.io spec) outside parentheses, so `Bash(git add *)`
/// stays whole.
fn tool_list(json: &serde_json::Value) -> Option<Vec<String>> {
    match json {
        serde_json::Value::String(s) => Some(split_tools(s)),
        other => string_list(other),
    }
}

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

/// A file of the skill directory other than `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    /// Path relative to the skill directory, with `/` separators.
    pub path: String,
    pub size: u64,
    /// Valid UTF-8 without NUL bytes in its first 8 KiB.
    pub is_text: bool,
    pub executable: bool,
}

/// A relative link or image in the body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The destination as written.
    pub target: String,
    /// The destination resolved against the skill directory, `/`-separated and
    /// normalised; `None` when it climbs out of the skill directory.
    pub resolved: Option<String>,
    pub is_image: bool,
    /// Byte range of the link in the file.
    pub span: std::ops::Range<usize>,
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
        Skill::load_with(dir, Classify::Yes)
    }

    /// Loads the skill at `dir`, reading resource heads only when asked to.
    pub fn load_with(dir: &Path, classify: Classify) -> std::io::Result<Skill> {
        let path = dir.join(SKILL_FILE);
        let bytes = std::fs::read(&path)?;
        let mut skill = Skill::from_document(dir, SkillDocument::from_bytes(&bytes));
        skill.resources = scan_resources_with(dir, classify);
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

/// Folders that are never part of a skill's content.
pub fn is_ignored_dir(name: &str) -> bool {
    matches!(
        name,
        ".git" | "node_modules" | "__pycache__" | ".venv" | ".hg" | ".svn"
    )
}

/// Whether loading a skill reads the head of each resource file to tell text
/// from binary. Validation never needs it; token costs and previews do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Classify {
    #[default]
    Yes,
    /// Resources are listed with `is_text: false`, unread.
    No,
}

/// The most resource files listed for one skill; a skill folder holding a
/// whole repository must not stall the library.
const MAX_RESOURCES: usize = 10_000;

/// Lists the files of a skill directory except `SKILL.md`, in path order. Nested
/// skills (folders with their own `SKILL.md`) are not resources of this one.
/// Symlinks are followed, except back into a folder being listed.
pub fn scan_resources(dir: &Path) -> Vec<Resource> {
    scan_resources_with(dir, Classify::Yes)
}

pub fn scan_resources_with(dir: &Path, classify: Classify) -> Vec<Resource> {
    let mut resources = Vec::new();
    let Ok(entries) = list_dir(dir) else {
        return resources;
    };
    let mut ancestors = vec![dir.to_path_buf()];
    list_entries("", entries, classify, &mut ancestors, &mut resources);
    resources
}

struct Entry {
    name: String,
    path: PathBuf,
    is_dir: bool,
    is_link: bool,
    metadata: Option<std::fs::Metadata>,
}

/// A folder's entries sorted by name, with symlinks resolved.
fn list_dir(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let mut entries: Vec<Entry> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let kind = entry.file_type().ok()?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if kind.is_symlink() {
                let metadata = std::fs::metadata(&path).ok()?;
                return Some(Entry {
                    name,
                    path,
                    is_dir: metadata.is_dir(),
                    is_link: true,
                    metadata: Some(metadata),
                });
            }
            Some(Entry {
                name,
                path,
                is_dir: kind.is_dir(),
                is_link: false,
                metadata: None,
            })
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// Whether the linked folder `link` is one of `ancestors`: a loop. Only a
/// symlink can close a loop, so only links pay for the check.
fn links_back(link: &Path, ancestors: &[PathBuf]) -> bool {
    let Some(target) = folder_identity(link) else {
        return true;
    };
    ancestors
        .iter()
        .any(|dir| folder_identity(dir) == Some(target))
}

fn list_entries(
    prefix: &str,
    entries: Vec<Entry>,
    classify: Classify,
    ancestors: &mut Vec<PathBuf>,
    resources: &mut Vec<Resource>,
) {
    for entry in entries {
        if resources.len() >= MAX_RESOURCES {
            return;
        }
        let path = if prefix.is_empty() {
            entry.name.clone()
        } else {
            format!("{prefix}/{}", entry.name)
        };
        if entry.is_dir {
            if is_ignored_dir(&entry.name) {
                continue;
            }
            let Ok(children) = list_dir(&entry.path) else {
                continue;
            };
            if children.iter().any(|c| c.name == SKILL_FILE && !c.is_dir)
                || (entry.is_link && links_back(&entry.path, ancestors))
            {
                continue;
            }
            ancestors.push(entry.path);
            list_entries(&path, children, classify, ancestors, resources);
            ancestors.pop();
            continue;
        }
        if path == SKILL_FILE || entry.name == ".DS_Store" {
            continue;
        }
        let Some(metadata) = entry
            .metadata
            .or_else(|| std::fs::metadata(&entry.path).ok())
        else {
            continue;
        };
        if !metadata.is_file() {
            continue;
        }
        resources.push(Resource {
            is_text: classify == Classify::Yes && is_text_file(&entry.path),
            executable: is_executable(&metadata),
            size: metadata.len(),
            path,
        });
    }
}

#[cfg(unix)]
fn folder_identity(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(dir).ok()?;
    Some((metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn folder_identity(_dir: &Path) -> Option<(u64, u64)> {
    None
}

pub fn slash_path(path: &Path) -> String {
    let parts: Vec<_> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

fn is_text_file(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8192];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(n) = file.read(&mut head) else {
        return false;
    };
    let head = &head[..n];
    if memchr::memchr(0, head).is_some() {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        // A multi-byte character cut at the 8 KiB boundary is still text.
        Err(e) => e.error_len().is_none(),
    }
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}

/// Relative links and images of the body, resolved against the skill directory.
fn body_links(doc: &SkillDocument) -> Vec<Link> {
    let body = doc.body_text();
    let base = doc.body.start;
    let mut links = Vec::new();
    // A relative link or image needs `](` (inline) or `]:` (a reference
    // definition); autolinks always carry a scheme. Most bodies have neither,
    // and the markdown parse is the dearest part of loading a skill.
    let bytes = body.as_bytes();
    if memchr::memmem::find(bytes, b"](").is_none() && memchr::memmem::find(bytes, b"]:").is_none()
    {
        return links;
    }
    let parser = Parser::new_ext(body, Options::all()).into_offset_iter();
    for (event, range) in parser {
        let (dest, is_image) = match event {
            Event::Start(Tag::Link { dest_url, .. }) => (dest_url, false),
            Event::Start(Tag::Image { dest_url, .. }) => (dest_url, true),
            _ => continue,
        };
        let Some(target) = relative_target(&dest) else {
            continue;
        };
        links.push(Link {
            target: dest.to_string(),
            resolved: normalize(&target),
            is_image,
            span: base + range.start..base + range.end,
        });
    }
    links
}

/// The path part of a relative destination; `None` for URLs, anchors and
/// absolute paths.
fn relative_target(dest: &str) -> Option<String> {
    let dest = dest.trim();
    if dest.is_empty() || dest.starts_with('#') || dest.starts_with('/') || dest.starts_with('\\') {
        return None;
    }
    let has_scheme = dest.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if has_scheme || dest.starts_with("//") || dest.contains("${") || dest.starts_with('<') {
        return None;
    }
    let path = dest.split(['#', '?']).next().unwrap_or_default();
    (!path.is_empty()).then(|| percent_decode(path))
}

pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Normalises `a/./b/../c` to `a/c`; `None` when it climbs above the start.
pub fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
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

    #[test]
    fn spec_tool_strings_split_on_spaces() {
        assert_eq!(
            split_tools("Read Bash(git:*) Write"),
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
    fn resources_skip_nested_skills_and_follow_links_once() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        for (path, text) in [
            ("SKILL.md", "---\nname: s\n---\n"),
            ("b.txt", "text"),
            ("a/z.bin", "\0\0"),
            ("inner/SKILL.md", "---\nname: inner\n---\n"),
            ("inner/x.txt", ""),
            (".git/config", ""),
        ] {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("a"), dir.join("linked")).unwrap();
            std::os::unix::fs::symlink(&dir, dir.join("a/loop")).unwrap();
        }
        let resources = scan_resources(&dir);
        let listed: Vec<(&str, bool)> = resources
            .iter()
            .map(|r| (r.path.as_str(), r.is_text))
            .collect();
        let mut expected = vec![("a/z.bin", false), ("b.txt", true)];
        if cfg!(unix) {
            expected.push(("linked/z.bin", false));
        }
        assert_eq!(listed, expected);
        let unread = scan_resources_with(&dir, Classify::No);
        assert!(unread.iter().all(|r| !r.is_text));
        assert_eq!(unread.len(), resources.len());
    }

    #[test]
    fn broken_yaml_keeps_the_skill() {
        let s = skill("---\ndescription: Use when: a: b\n---\nbody");
        assert!(matches!(s.yaml, Some(Err(_))));
        assert_eq!(s.body(), "body");
    }
}
