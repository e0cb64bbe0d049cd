//! `HS101`–`HS108`: the `name` field, the skill's identity. Agents use it to
//! load and invoke the skill, so the spec constrains it tightly. Each rule
//! is checked in its own module; this one reads `name` and the folder's name
//! once and calls them in code order, and keeps what several share.

pub(crate) mod angle_brackets;
pub(crate) mod copilot_name_characters;
pub(crate) mod name_directory_mismatch;
pub(crate) mod name_format;
pub(crate) mod name_missing;
pub(crate) mod name_reserved_word;
pub(crate) mod name_too_long;
pub(crate) mod reserved_folder_name;

use unicode_normalization::char::is_combining_mark;

use super::{Checker, Rule};
use crate::fields;
use crate::skill::Skill;
use crate::yaml::{Node, Value};

/// The spec's limit on `name`, from the field table.
pub const MAX_NAME_CHARS: usize = fields::NAME.max_chars.unwrap();

/// Whether `name` is a valid skill name.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

pub(super) fn check(checker: &mut Checker) {
    let dir_name = directory_name(checker.skill);
    let dir_usable = is_valid_name(&dir_name);
    if checker.enabled(Rule::ReservedFolder) {
        reserved_folder_name::check(checker, &dir_name);
    }
    let Some((_, value)) = checker.entry("name") else {
        name_missing::check(checker, &dir_name, dir_usable);
        return;
    };
    let name = match &value.value {
        Value::String(s) => s.as_str(),
        Value::Null => "",
        _ => return, // HS301 reports the type
    };
    name_too_long::check(checker, value, name);
    if checker.enabled(Rule::CopilotName) {
        copilot_name_characters::check(checker, value, name);
    }
    name_format::check(checker, value, name);
    name_directory_mismatch::check(checker, value, name, &dir_name, dir_usable);
    if checker.enabled(Rule::NameReservedWord) {
        name_reserved_word::check(checker, value, name);
    }
    if checker.enabled(Rule::AngleBrackets) {
        angle_brackets::check(checker, "name", value);
        if let Some((_, description)) = checker.entry("description") {
            angle_brackets::check(checker, "description", description);
        }
    }
}

/// A character for a message: quoted when it shows on its own, else by code
/// point (a bare combining accent would attach itself to the quote).
fn shown_char(c: char) -> String {
    let invisible = is_combining_mark(c)
        || c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}');
    if c.is_whitespace() {
        if c == ' ' {
            "a space".to_owned()
        } else {
            format!("the space character U+{:04X}", c as u32)
        }
    } else if invisible {
        format!(
            "U+{:04X} (a character that does not show on its own)",
            c as u32
        )
    } else {
        format!("`{c}` (U+{:04X})", c as u32)
    }
}

/// The name of the skill's folder, also when it was given as `.` or `..`.
fn directory_name(skill: &Skill) -> String {
    let name = skill.dir_name();
    if !name.is_empty() && name != "." && name != ".." {
        return name;
    }
    let canonical = skill.dir.canonicalize().ok();
    canonical
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

/// The file range of `range` (a range of the node's value) when the value is
/// written as-is in the source, else the whole value.
fn located(text: &str, node: &Node, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let source = &text[node.span.clone()];
    let value = node.as_str().unwrap_or_default();
    match source.find(value) {
        Some(at) if !value.is_empty() => {
            let start = node.span.start + at + range.start;
            start..start + range.len()
        }
        _ => node.span.clone(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    /// A skill named `name`, with a description that passes its rules.
    pub(crate) fn with_name(name: &str) -> String {
        format!(
            "---\nname: {name}\ndescription: Formats reports. Use when asked for a report.\n---\n"
        )
    }
}
