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
use crate::text::line_start_at;
use crate::yaml::{self, Node, Value};

/// A value the form can give a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
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
    #[error("the file has no frontmatter")]
    NoFrontmatter,
    #[error("`metadata` is not a block mapping (`metadata:` with indented keys below)")]
    MetadataNotBlock,
}

/// A key the edits may write: ASCII letters, digits, `-` and `_`.
fn check_key(key: &str) -> Result<(), EditError> {
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
    {
        return Err(EditError::BadKey(key.to_owned()));
    }
    Ok(())
}

/// The frontmatter's keys and values; an empty frontmatter has none.
fn top_level_entries(root: &Node) -> Result<&[(Node, Node)], EditError> {
    match &root.value {
        Value::Map(entries) => Ok(entries),
        Value::Null => Ok(&[]),
        _ => Err(EditError::NotAMapping),
    }
}

/// Returns `text` with the top-level key `key` set to `value` (or removed).
/// A new key is appended after the existing ones; a file without frontmatter
/// gets one.
pub fn set_field(text: &str, key: &str, value: &FieldValue) -> Result<String, EditError> {
    check_key(key)?;
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
    let entries = top_level_entries(&root)?;

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
    let start = line_start_at(text, key_node.span.start);
    let end = match entries.get(index + 1) {
        Some((next_key, _)) => {
            keep_trailing_comments(text, start, line_start_at(text, next_key.span.start))
        }
        None => keep_trailing_comments(text, start, yaml_range.end),
    };
    let replacement = match value {
        FieldValue::Remove => String::new(),
        FieldValue::Text(s) => match text_layout(text, key_node, old_value, start..end) {
            Some(layout) => render_text(key, s, &layout, newline),
            None => render_entry(key, value, None, newline),
        },
        _ => render_entry(key, value, Some(list_style(text, old_value)), newline),
    };
    Ok(format!("{}{replacement}{}", &text[..start], &text[end..]))
}

/// How keys are indented under a `metadata:` this module creates.
const METADATA_INDENT: &str = "  ";

/// Returns `text` with `key` of the top-level `metadata` mapping set to the
/// string `value` (or removed, `None`), touching only that key's line: how
/// installers record where a copy came from. A missing or empty `metadata`
/// becomes a block mapping; one written in flow style (`{a: b}`) or holding
/// something other than a mapping is refused rather than rewritten.
pub fn set_metadata_field(text: &str, key: &str, value: Option<&str>) -> Result<String, EditError> {
    check_key(key)?;
    let doc = SkillDocument::parse(text.to_owned());
    let newline = if doc.has_crlf { "\r\n" } else { "\n" };
    let line =
        |indent: &str, value: &str| format!("{indent}{key}: {}{newline}", metadata_scalar(value));
    let (yaml_range, open_end) = match &doc.frontmatter {
        _ if value.is_none() && !matches!(doc.frontmatter, FrontmatterBlock::Closed { .. }) => {
            return Ok(text.to_owned());
        }
        FrontmatterBlock::Missing => return Err(EditError::NoFrontmatter),
        FrontmatterBlock::Unclosed { .. } => return Err(EditError::Unclosed),
        FrontmatterBlock::Closed { open, yaml, .. } => (yaml.clone(), open.end),
    };
    let root = yaml::parse(&text[yaml_range.clone()], yaml_range.start)
        .map_err(|e| EditError::InvalidYaml(e.message))?;
    let entries = top_level_entries(&root)?;
    let splice = |range: std::ops::Range<usize>, with: &str| {
        format!("{}{with}{}", &text[..range.start], &text[range.end..])
    };
    let Some((meta_key, meta)) = entries.iter().find(|(k, _)| k.as_str() == Some("metadata"))
    else {
        let Some(value) = value else {
            return Ok(text.to_owned());
        };
        let at = yaml_range.end.max(line_end_after(text, open_end));
        let lead = if text[..at].ends_with('\n') {
            ""
        } else {
            newline
        };
        let block = format!("{lead}metadata:{newline}{}", line(METADATA_INDENT, value));
        return Ok(splice(at..at, &block));
    };
    let flow = text
        .get(meta.span.start..)
        .is_some_and(|t| t.starts_with('{'));
    let items = match &meta.value {
        Value::Map(items) if !items.is_empty() && !flow => items,
        Value::Null | Value::Map(_) if !matches!(&meta.value, Value::Map(i) if !i.is_empty()) => {
            let Some(value) = value else {
                return Ok(text.to_owned());
            };
            // `metadata:`, `metadata: ~` or `metadata: {}`: its line becomes the mapping's head.
            let start = line_start_at(text, meta_key.span.start);
            let end = line_end_after(text, meta_key.span.end.max(meta.span.end.saturating_sub(1)));
            let block = format!("metadata:{newline}{}", line(METADATA_INDENT, value));
            return Ok(splice(start..end, &block));
        }
        _ => return Err(EditError::MetadataNotBlock),
    };
    // The end of an entry's last line (a span may stop before or after its newline).
    let entry_end =
        |(k, v): &(Node, Node)| line_end_after(text, k.span.end.max(v.span.end.saturating_sub(1)));
    let first_key = &items[0].0;
    let indent = &text[line_start_at(text, first_key.span.start)..first_key.span.start];
    match items.iter().position(|(k, _)| k.as_str() == Some(key)) {
        Some(index) => {
            let start = line_start_at(text, items[index].0.span.start);
            let end = match items.get(index + 1) {
                Some((next, _)) => line_start_at(text, next.span.start),
                None => entry_end(&items[index]),
            };
            Ok(splice(
                start..end,
                &value.map(|v| line(indent, v)).unwrap_or_default(),
            ))
        }
        None => match value {
            None => Ok(text.to_owned()),
            Some(value) => {
                let at = items.last().map_or(0, entry_end);
                Ok(splice(at..at, &line(indent, value)))
            }
        },
    }
}

/// A scalar as `gh skill` writes one: a word of letters and digits (a tree
/// SHA) stays plain unless YAML would read it as a number.
fn metadata_scalar(s: &str) -> String {
    let reads_as_itself = || {
        yaml::parse(&format!("k: {s}\n"), 0)
            .ok()
            .is_some_and(|root| root.get("k").and_then(Node::as_str) == Some(s))
    };
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()) && reads_as_itself() {
        s.to_owned()
    } else {
        scalar(s, false)
    }
}

/// The width a block scalar written on one line is wrapped at when it grows.
const DEFAULT_WIDTH: usize = 80;

/// How an existing string value was written: its style, and where a value
/// written over several lines breaks them (the longest line's width).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TextLayout {
    style: TextStyle,
    /// Columns of the continuation lines' indentation.
    indent: usize,
    /// The longest line of the old entry, when it spans several lines.
    width: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextStyle {
    Plain,
    DoubleQuoted,
    SingleQuoted,
    /// `>`, `>-`, `>+`
    Folded,
    /// `|`, `|-`, `|+`
    Literal,
}

/// The layout of the scalar `old`, the value of `key` in the entry
/// `text[entry]`; `None` for a list or mapping.
fn text_layout(
    text: &str,
    key: &Node,
    old: &Node,
    entry: std::ops::Range<usize>,
) -> Option<TextLayout> {
    if matches!(old.value, Value::Seq(_) | Value::Map(_)) {
        return None;
    }
    // A block scalar's span starts at its content: read the indicator after the colon.
    let after_key = text[key.span.end..].trim_start_matches([':', ' ', '\t']);
    let indicator = if after_key.starts_with(['>', '|']) {
        after_key.chars().next()
    } else {
        text[old.span.start..].chars().next()
    };
    let style = match indicator {
        Some('>') => TextStyle::Folded,
        Some('|') => TextStyle::Literal,
        // Quotes the value needed say nothing of the author's taste (they
        // may come from a trailing space typed a moment ago): only quotes
        // around a value that could be plain are kept.
        Some('"' | '\'') if !old.as_str().is_some_and(|s| is_safe_plain(s, false)) => {
            TextStyle::Plain
        }
        Some('"') => TextStyle::DoubleQuoted,
        Some('\'') => TextStyle::SingleQuoted,
        _ => TextStyle::Plain,
    };
    let lines: Vec<&str> = text[entry]
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    let continuation: Vec<&str> = lines[1..]
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let indent = continuation
        .first()
        .map_or(2, |l| l.len() - l.trim_start_matches(' ').len())
        .max(1);
    let longest = |lines: &[&str]| lines.iter().map(|l| l.chars().count()).max();
    let width = match style {
        // The header line holds no text: the width is the content's.
        TextStyle::Folded | TextStyle::Literal => Some(if continuation.len() > 1 {
            longest(&continuation).unwrap_or(DEFAULT_WIDTH)
        } else {
            DEFAULT_WIDTH
        }),
        _ if continuation.is_empty() => None,
        _ => longest(&lines),
    };
    Some(TextLayout {
        style,
        indent,
        width,
    })
}

/// `key: value` in the old value's style and width, where that style can
/// hold `value`; otherwise in the plainest style that can.
fn render_text(key: &str, value: &str, layout: &TextLayout, newline: &str) -> String {
    let width = layout.width;
    let pad = " ".repeat(layout.indent);
    let block = |indicator: char| -> Option<String> {
        let lines = match indicator {
            '>' => folded_lines(value, width?.saturating_sub(layout.indent))?,
            _ => literal_lines(value)?,
        };
        let trailing = value.len() - value.trim_end_matches('\n').len();
        let chomp = match trailing {
            0 => "-",
            1 => "",
            _ => "+",
        };
        let mut out = format!("{key}: {indicator}{chomp}{newline}");
        for line in lines {
            if line.is_empty() {
                out.push_str(newline);
            } else {
                out.push_str(&format!("{pad}{line}{newline}"));
            }
        }
        for _ in 1..trailing {
            out.push_str(newline);
        }
        Some(out)
    };
    let (rendered, quoted) = match layout.style {
        TextStyle::Folded => (block('>'), false),
        TextStyle::Literal => (block('|'), false),
        TextStyle::SingleQuoted => (single_quoted(value), false),
        _ if value.contains('\n') => (None, false),
        TextStyle::Plain if is_safe_plain(value, false) => (Some(value.to_owned()), false),
        TextStyle::Plain | TextStyle::DoubleQuoted => (Some(double_quoted(value)), true),
    };
    let Some(rendered) = rendered else {
        return render_entry(key, &FieldValue::Text(value.to_owned()), None, newline);
    };
    if matches!(layout.style, TextStyle::Folded | TextStyle::Literal) {
        return rendered;
    }
    let first = format!("{key}: ");
    let Some(width) = width else {
        return format!("{first}{rendered}{newline}");
    };
    let lines = wrap(
        &rendered,
        width.saturating_sub(first.len()),
        width.saturating_sub(layout.indent),
        // Not after an escape's backslash, nor before a character that
        // could start something else at the beginning of a line.
        |before, after| !(after.is_ascii_punctuation() || quoted && before == '\\'),
    );
    let mut out = first;
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str(&pad);
        }
        out.push_str(line);
        out.push_str(newline);
    }
    out
}

/// The content lines of a folded block holding `value` (its trailing line
/// breaks excluded), wrapped at `room` columns; `None` when folding cannot
/// hold it exactly (leading blanks, more-indented lines, tabs or control
/// characters).
fn folded_lines(value: &str, room: usize) -> Option<Vec<String>> {
    let body = value.trim_end_matches('\n');
    if body.is_empty()
        || body.starts_with('\n')
        || body.chars().any(|c| c.is_control() && c != '\n')
    {
        return None;
    }
    let mut lines = Vec::new();
    for (i, paragraph) in body.split('\n').enumerate() {
        // A trailing space is content (it is typed before the next word); a
        // leading one would make a more-indented line, which does not fold.
        if paragraph.starts_with([' ', '\t']) || paragraph.ends_with('\t') {
            return None;
        }
        // Between two paragraphs, one empty line stands for one line break.
        if i > 0 {
            lines.push(String::new());
        }
        if !paragraph.is_empty() {
            lines.extend(
                wrap(paragraph, room, room, |_, after| after != '#')
                    .into_iter()
                    .map(str::to_owned),
            );
        }
    }
    Some(lines)
}

/// The content lines of a literal block holding `value` (its trailing line
/// breaks excluded); `None` where a literal block cannot hold it.
fn literal_lines(value: &str) -> Option<Vec<String>> {
    let body = value.trim_end_matches('\n');
    let lines: Vec<String> = body.split('\n').map(str::to_owned).collect();
    let first_text = lines.iter().find(|l| !l.is_empty())?;
    let fits = !first_text.starts_with([' ', '\t'])
        && !lines.iter().any(|l| !l.is_empty() && l.trim().is_empty())
        && !body
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t');
    fits.then_some(lines)
}

fn single_quoted(s: &str) -> Option<String> {
    if s.contains('\n') || s.chars().any(|c| c.is_control()) || s.trim() != s {
        return None;
    }
    Some(format!("'{}'", s.replace('\'', "''")))
}

/// Breaks `s` greedily into lines of at most `first_room` (the first) and
/// `room` (the rest) characters, only at single spaces between two
/// characters that `may_break` allows: a break there reads back as that
/// space. A word wider than the room gets a line of its own.
fn wrap(
    s: &str,
    first_room: usize,
    room: usize,
    may_break: impl Fn(char, char) -> bool,
) -> Vec<&str> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let breaks = chars.windows(3).filter_map(|w| {
        let [(_, before), (at, ' '), (_, after)] = *w else {
            return None;
        };
        (before != ' ' && after != ' ' && may_break(before, after)).then_some(at)
    });
    let width = |from: usize, to: usize| s[from..to].chars().count();
    let room_of = |lines: &Vec<&str>| if lines.is_empty() { first_room } else { room };
    let mut lines = Vec::new();
    let mut start = 0;
    // The last break where the line so far fits.
    let mut fit: Option<usize> = None;
    for at in breaks {
        if width(start, at) > room_of(&lines) {
            if let Some(f) = fit.take() {
                lines.push(&s[start..f]);
                start = f + 1;
            }
            // Now `start..at` has no break inside: one word.
            if width(start, at) > room_of(&lines) {
                lines.push(&s[start..at]);
                start = at + 1;
                continue;
            }
        }
        fit = Some(at);
    }
    if width(start, s.len()) > room_of(&lines)
        && let Some(f) = fit
    {
        lines.push(&s[start..f]);
        start = f + 1;
    }
    lines.push(&s[start..]);
    lines
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
        let previous = line_start_at(text, end - 1);
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

    const FOLDED: &str = "---\nname: a\ndescription: >-\n  Formats calendar dates in reports and tables. Use when a date\n  appears in a report, a table or a changelog entry, and the\n  author wants one consistent style.\nlicense: MIT\n---\n# Body\n";

    fn description(text: &str) -> String {
        meta(text).description.unwrap_or_default()
    }

    #[test]
    fn a_folded_description_keeps_its_style_and_width() {
        let old = description(FOLDED);
        let out = set_field(
            FOLDED,
            "description",
            &FieldValue::Text(format!("{old} Also tables.")),
        )
        .unwrap();
        assert_eq!(
            out,
            FOLDED.replace("consistent style.\n", "consistent style. Also tables.\n")
        );
        // A word changed in the first line: only that line and the reflow after it change.
        let out = set_field(
            FOLDED,
            "description",
            &FieldValue::Text(old.replace("Formats", "Writes")),
        )
        .unwrap();
        assert_eq!(
            out,
            FOLDED.replace("  Formats calendar", "  Writes calendar")
        );
        // Typed one key at a time: the space before the next word keeps the block too.
        let mut out = FOLDED.to_owned();
        for typed in [" ", " A", " Al"] {
            out = set_field(
                &out,
                "description",
                &FieldValue::Text(format!("{old}{typed}")),
            )
            .unwrap();
            assert!(out.contains("description: >-\n"), "{out}");
            assert_eq!(description(&out), format!("{old}{typed}"));
        }
        // A longer text wraps at the same width, as the author wrapped it.
        let long = format!("{old} {old}");
        let out = set_field(FOLDED, "description", &FieldValue::Text(long.clone())).unwrap();
        assert_eq!(description(&out), long);
        assert!(out.contains("description: >-\n  Formats"), "{out}");
        let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= 64, "{out}");
    }

    #[test]
    fn block_values_round_trip_in_their_style() {
        let literal = "---\nname: a\ndescription: |\n    First line.\n    Second line.\n---\n";
        let out = set_field(
            literal,
            "description",
            &FieldValue::Text("First line.\nSecond, longer line.\n".into()),
        )
        .unwrap();
        assert_eq!(
            out,
            "---\nname: a\ndescription: |\n    First line.\n    Second, longer line.\n---\n"
        );
        for value in [
            "one paragraph",
            "two\nparagraphs",
            "blank\n\nbetween",
            "ends with a break\n",
            "ends with two\n\n",
            "  leading blanks",
            "trailing blank ",
            "\nstarts with a break",
            "a line\n  more indented\nback",
            "tab\there",
            "#hash, \"quotes\" and 'apostrophes': fine",
        ] {
            for text in [FOLDED, literal] {
                let out = set_field(text, "description", &FieldValue::Text(value.into())).unwrap();
                assert_eq!(description(&out), value, "{out}");
            }
        }
    }

    #[test]
    fn wrapped_and_quoted_scalars_keep_their_layout() {
        let wrapped = "---\ndescription: Checks regular expressions for catastrophic\n  backtracking. Use when a regex is slow.\nname: a\n---\n";
        let value = "Checks regular expressions for catastrophic backtracking. Use when a regex is slow or hangs.";
        let out = set_field(wrapped, "description", &FieldValue::Text(value.into())).unwrap();
        assert_eq!(
            out,
            "---\ndescription: Checks regular expressions for catastrophic\n  backtracking. Use when a regex is slow or hangs.\nname: a\n---\n"
        );
        assert_eq!(description(&out), value);
        let needs_quotes = "Checks regular expressions: catastrophic backtracking. Use when a regex is slow or hangs.";
        let out = set_field(
            wrapped,
            "description",
            &FieldValue::Text(needs_quotes.into()),
        )
        .unwrap();
        assert_eq!(description(&out), needs_quotes, "{out}");
        assert!(out.contains("\n  "), "still wrapped: {out}");

        let quoted = "---\ndescription: \"Reads logs\"\n---\n";
        let out = set_field(
            quoted,
            "description",
            &FieldValue::Text("Reads logs daily".into()),
        )
        .unwrap();
        assert_eq!(out, "---\ndescription: \"Reads logs daily\"\n---\n");
        // Typing a space at the end needs quotes for a moment; the next word drops them.
        let plain = "---\nlicense: MIT\n---\n";
        let out = set_field(plain, "license", &FieldValue::Text("MIT ".into())).unwrap();
        assert_eq!(out, "---\nlicense: \"MIT \"\n---\n");
        let out = set_field(&out, "license", &FieldValue::Text("MIT x".into())).unwrap();
        assert_eq!(out, "---\nlicense: MIT x\n---\n");
        let pipe = "---\ndescription: \"| a pipe\"\n---\n";
        let out = set_field(
            pipe,
            "description",
            &FieldValue::Text("| two pipes |".into()),
        )
        .unwrap();
        assert_eq!(out, "---\ndescription: \"| two pipes |\"\n---\n");
        let single = "---\ndescription: 'Reads logs'\n---\n";
        let out = set_field(single, "description", &FieldValue::Text("It's logs".into())).unwrap();
        assert_eq!(out, "---\ndescription: 'It''s logs'\n---\n");
        assert_eq!(description(&out), "It's logs");
    }

    #[test]
    fn wrap_breaks_only_at_single_spaces() {
        assert_eq!(wrap("aa bb cc", 5, 5, |_, _| true), ["aa bb", "cc"]);
        assert_eq!(wrap("aa  bb cc", 5, 5, |_, _| true), ["aa  bb", "cc"]);
        assert_eq!(
            wrap("averylongword b", 5, 5, |_, _| true),
            ["averylongword", "b"]
        );
        assert_eq!(wrap("a b c", 1, 3, |_, _| true), ["a", "b c"]);
        assert_eq!(wrap("", 5, 5, |_, _| true), [""]);
    }
}
