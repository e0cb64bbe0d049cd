//! Changing one frontmatter key of a `SKILL.md` text without disturbing the rest.
//!
//! The app's form edits fields while the author also edits the YAML by hand,
//! so a form change must be a small, local text edit: the other keys, their
//! order, comments, quoting and unknown keys stay exactly as written, and undo
//! in the text editor takes back just that change. Re-serialising the whole
//! mapping would lose all of that, so this module replaces only the lines of
//! one entry, located through the spans of the YAML tree.

use serde::{Deserialize, Serialize};

use crate::document::{FrontmatterBlock, SkillDocument};
use crate::yaml::{self, Node, Value};

/// A value the form can give a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "camelCase")]
pub enum FieldValue {
    Text(String),
    Bool(bool),
    Integer(i64),
    List(Vec<String>),
    /// Removes the key.
    Remove,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("the frontmatter has no closing `---` line")]
    Unclosed,
    #[error("the frontmatter is not valid YAML ({0}); fix it in the text first")]
    InvalidYaml(String),
    #[error("the frontmatter is not a mapping of keys to values")]
    NotAMapping,
    #[error("`{0}` is not a key the form can edit")]
    BadKey(String),
}

/// Returns `text` with the top-level key `key` set to `value` (or removed).
/// A new key is appended after the existing ones; a file without frontmatter
/// gets one.
pub fn set_field(text: &str, key: &str, value: &FieldValue) -> Result<String, EditError> {
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
    {
        return Err(EditError::BadKey(key.to_owned()));
    }
    let doc = SkillDocument::parse(text.to_owned());
    let newline = if doc.has_crlf { "\r\n" } else { "\n" };
    let (yaml_range, open_end) = match &doc.frontmatter {
        FrontmatterBlock::Missing => {
            if *value == FieldValue::Remove {
                return Ok(text.to_owned());
            }
            let at = if doc.has_bom { 3 } else { 0 };
            let entry = render_entry(key, value, None, newline);
            return Ok(format!(
                "{}---{newline}{entry}---{newline}{}",
                &text[..at],
                &text[at..]
            ));
        }
        FrontmatterBlock::Unclosed { .. } => return Err(EditError::Unclosed),
        FrontmatterBlock::Closed { open, yaml, .. } => (yaml.clone(), open.end),
    };
    let root = yaml::parse(&text[yaml_range.clone()], yaml_range.start)
        .map_err(|e| EditError::InvalidYaml(e.message))?;
    let entries: &[(Node, Node)] = match &root.value {
        Value::Map(entries) => entries,
        Value::Null => &[],
        _ => return Err(EditError::NotAMapping),
    };

    let Some(index) = entries.iter().position(|(k, _)| k.as_str() == Some(key)) else {
        if *value == FieldValue::Remove {
            return Ok(text.to_owned());
        }
        // Append after the last entry, or right after the opening line.
        let at = yaml_range.end.max(line_end_after(text, open_end));
        let mut out = text[..at].to_owned();
        if !out.ends_with('\n') {
            out.push_str(newline);
        }
        out.push_str(&render_entry(key, value, None, newline));
        out.push_str(&text[at..]);
        return Ok(out);
    };

    let (key_node, old_value) = &entries[index];
    let start = line_start(text, key_node.span.start);
    let end = match entries.get(index + 1) {
        Some((next_key, _)) => {
            keep_trailing_comments(text, start, line_start(text, next_key.span.start))
        }
        None => keep_trailing_comments(text, start, yaml_range.end),
    };
    let replacement = match value {
        FieldValue::Remove => String::new(),
        _ => render_entry(key, value, Some(list_style(text, old_value)), newline),
    };
    Ok(format!("{}{replacement}{}", &text[..start], &text[end..]))
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end_after(text: &str, offset: usize) -> usize {
    text[offset..]
        .find('\n')
        .map_or(text.len(), |i| offset + i + 1)
}

/// Moves `end` back over blank and comment lines at column 0 that precede
/// the next key: they introduce what follows rather than end this entry.
fn keep_trailing_comments(text: &str, start: usize, mut end: usize) -> usize {
    while end > start {
        let previous = line_start(text, end - 1);
        if previous <= start {
            break;
        }
        let line = text[previous..end].trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() || line.starts_with('#') {
            end = previous;
        } else {
            break;
        }
    }
    end
}

/// How an existing list value was written, so that a new list keeps the style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListStyle {
    /// One comma-separated string (`allowed-tools: Read, Grep`).
    String,
    /// `[a, b]`
    Flow,
    /// `- a` lines.
    Block,
}

fn list_style(text: &str, old: &Node) -> ListStyle {
    match old.value {
        Value::String(_) => ListStyle::String,
        Value::Seq(_) if text[old.span.start..].starts_with('[') => ListStyle::Flow,
        _ => ListStyle::Block,
    }
}

/// `key: value` lines, ending with a newline, a list in its `old` style.
fn render_entry(key: &str, value: &FieldValue, old: Option<ListStyle>, newline: &str) -> String {
    match value {
        FieldValue::Text(s) if s.contains('\n') => {
            let mut out = format!("{key}: |-{newline}");
            for line in s.trim_end_matches('\n').split('\n') {
                if line.is_empty() {
                    out.push_str(newline);
                } else {
                    out.push_str(&format!("  {line}{newline}"));
                }
            }
            out
        }
        FieldValue::Text(s) => format!("{key}: {}{newline}", scalar(s, false)),
        FieldValue::Bool(b) => format!("{key}: {b}{newline}"),
        FieldValue::Integer(i) => format!("{key}: {i}{newline}"),
        FieldValue::List(items) => match old {
            Some(ListStyle::String) => {
                format!("{key}: {}{newline}", scalar(&items.join(", "), false))
            }
            Some(ListStyle::Flow) => {
                let items: Vec<_> = items.iter().map(|i| scalar(i, true)).collect();
                format!("{key}: [{}]{newline}", items.join(", "))
            }
            _ if items.is_empty() => format!("{key}: []{newline}"),
            _ => {
                let mut out = format!("{key}:{newline}");
                for item in items {
                    out.push_str(&format!("  - {}{newline}", scalar(item, false)));
                }
                out
            }
        },
        FieldValue::Remove => String::new(),
    }
}

/// A scalar in the plainest form that reads back as the same string.
fn scalar(s: &str, in_flow: bool) -> String {
    if is_safe_plain(s, in_flow) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

fn is_safe_plain(s: &str, in_flow: bool) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s || s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if in_flow && s.contains([',', '[', ']', '{', '}']) {
        return false;
    }
    if s.chars().any(|c| c.is_control()) {
        return false;
    }
    // Words YAML 1.1 or 1.2 would read as something other than a string.
    let lower = s.to_ascii_lowercase();
    let special = [
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~",
    ];
    if special.contains(&lower.as_str()) || looks_numeric(s) {
        return false;
    }
    true
}

fn looks_numeric(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:".contains(c))
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::{Frontmatter, Skill};
    use std::path::Path;

    fn meta(text: &str) -> Frontmatter {
        Skill::from_document(Path::new("/l/s"), SkillDocument::parse(text.into())).meta
    }

    const SKILL: &str = "---\nname: a\n# the description\ndescription: Old text\ntriggers:\n  - one\ncustom: kept # note\n---\n# Body\n";

    #[test]
    fn replaces_one_key_and_keeps_the_rest() {
        let out = set_field(SKILL, "description", &FieldValue::Text("New: text".into())).unwrap();
        assert_eq!(
            out,
            "---\nname: a\n# the description\ndescription: \"New: text\"\ntriggers:\n  - one\ncustom: kept # note\n---\n# Body\n"
        );
        assert_eq!(meta(&out).description.as_deref(), Some("New: text"));
    }

    #[test]
    fn lists_keep_their_style() {
        let items = FieldValue::List(vec!["one".into(), "two, three".into()]);
        let out = set_field(SKILL, "triggers", &items).unwrap();
        assert!(
            out.contains("triggers:\n  - one\n  - two, three\ncustom"),
            "{out}"
        );
        assert_eq!(meta(&out).triggers.unwrap(), ["one", "two, three"]);

        let text = "---\nallowed-tools: Read, Grep\n---\n";
        let tools = FieldValue::List(vec!["Read".into(), "Bash(git add *)".into()]);
        let out = set_field(text, "allowed-tools", &tools).unwrap();
        assert_eq!(out, "---\nallowed-tools: Read, Bash(git add *)\n---\n");

        let flow = FieldValue::List(vec!["a".into(), "c, d".into()]);
        let out = set_field("---\ntriggers: [a, b]\n---\n", "triggers", &flow).unwrap();
        assert_eq!(out, "---\ntriggers: [a, \"c, d\"]\n---\n");
    }

    #[test]
    fn adds_and_removes_keys() {
        let out = set_field(SKILL, "user-invocable", &FieldValue::Bool(false)).unwrap();
        assert!(
            out.contains("custom: kept # note\nuser-invocable: false\n---\n"),
            "{out}"
        );
        let out = set_field(&out, "triggers", &FieldValue::Remove).unwrap();
        assert!(!out.contains("triggers") && !out.contains("- one"), "{out}");
        assert_eq!(meta(&out).extra["custom"], serde_json::json!("kept"));

        let out = set_field("# Just a body\n", "name", &FieldValue::Text("x".into())).unwrap();
        assert_eq!(out, "---\nname: x\n---\n# Just a body\n");
        let out = set_field("---\n---\nbody", "name", &FieldValue::Text("x".into())).unwrap();
        assert_eq!(out, "---\nname: x\n---\nbody");
    }

    #[test]
    fn values_that_need_quotes_round_trip() {
        for value in [
            "yes",
            "1.0",
            "- item",
            "a #b",
            "  padded",
            "say \"hi\"\\",
            "",
            "tab\there",
        ] {
            let out = set_field(SKILL, "description", &FieldValue::Text(value.into())).unwrap();
            assert_eq!(meta(&out).description.as_deref(), Some(value), "{out}");
        }
        let multi = "line one\n\nline three";
        let out = set_field(SKILL, "description", &FieldValue::Text(multi.into())).unwrap();
        assert_eq!(meta(&out).description.as_deref(), Some(multi), "{out}");
    }

    #[test]
    fn keeps_crlf_and_refuses_broken_yaml() {
        let out = set_field(
            "---\r\nname: a\r\n---\r\n",
            "name",
            &FieldValue::Text("b".into()),
        );
        assert_eq!(out.unwrap(), "---\r\nname: b\r\n---\r\n");
        let broken = "---\ndescription: Use when: a: b\n---\n";
        assert!(matches!(
            set_field(broken, "name", &FieldValue::Text("x".into())),
            Err(EditError::InvalidYaml(_))
        ));
        assert_eq!(
            set_field("---\nname: a\n", "name", &FieldValue::Text("x".into())),
            Err(EditError::Unclosed)
        );
        assert!(set_field(SKILL, "bad key", &FieldValue::Bool(true)).is_err());
    }
}
