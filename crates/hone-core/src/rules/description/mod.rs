//! `HS201`–`HS207`: the `description`, the only text an agent sees when it
//! decides whether to load a skill. It must exist, fit the limits, and say
//! *when* to use the skill in words a real request would share. Each rule
//! is checked in its own module; this one reads the value once and calls
//! them in code order.

pub(crate) mod description_empty;
pub(crate) mod description_from_body;
pub(crate) mod description_missing;
pub(crate) mod description_too_long;
pub(crate) mod generic_trigger;
pub(crate) mod listing_truncated;
pub(crate) mod no_trigger;

use super::yaml_text::find_ascii_ci;
use super::{Checker, Rule};
use crate::document::FrontmatterBlock;
use crate::fields;
use crate::yaml::{Node, Value};

/// The spec's limit on `description`, from the field table.
pub const MAX_DESCRIPTION_CHARS: usize = fields::DESCRIPTION.max_chars.unwrap();
/// Claude Code cuts `description` + `when_to_use` to this many characters in
/// the skill listing the model sees (from the field table).
pub const LISTING_CAP_CHARS: usize = fields::DESCRIPTION.listing_chars.unwrap();

pub(super) fn check(checker: &mut Checker) {
    let when_to_use = checker.entry("when_to_use").map(|(_, v)| v);
    let Some((_, value)) = checker.entry("description") else {
        let FrontmatterBlock::Closed { open, .. } = &checker.skill.doc.frontmatter else {
            return;
        };
        let open = open.clone();
        description_missing::check(checker, open.clone());
        if checker.enabled(Rule::DescriptionFromBody) {
            description_from_body::check(checker, open);
        }
        return;
    };
    let text = match &value.value {
        Value::String(s) => s.as_str(),
        Value::Null => "",
        _ => return, // HS301 reports the type
    };
    if text.trim().is_empty() {
        description_empty::check(checker, value);
        return;
    }
    description_too_long::check(checker, value, text);
    let when_text = when_to_use.and_then(Node::as_str).unwrap_or_default();
    listing_truncated::check(checker, value, text, when_text);
    if checker.enabled(Rule::NoTrigger) {
        no_trigger::check(checker, value, text, when_text);
    }
    if checker.enabled(Rule::GenericTrigger) {
        generic_trigger::check(checker, value, when_to_use);
    }
}

/// The first case-insensitive occurrence of `phrase` as whole words.
fn find_word(text: &str, phrase: &str) -> Option<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = find_ascii_ci(&text[from..], phrase) {
        let range = from + found.start..from + found.end;
        let before_ok = range.start == 0 || !bytes[range.start - 1].is_ascii_alphanumeric();
        let after_ok = range.end == bytes.len() || !bytes[range.end].is_ascii_alphanumeric();
        if before_ok && after_ok {
            return Some(range);
        }
        from = range.start + 1;
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    /// A skill whose frontmatter is a name and the description `d`.
    pub(crate) fn with_description(d: &str) -> String {
        format!("---\nname: my-skill\ndescription: {d}\n---\n")
    }
}
