//! `HS201`–`HS208`: the `description`, the only text an agent sees when it
//! decides whether to load a skill. It must exist, fit the limits, and say
//! *when* to use the skill in words a real request would share. Each rule
//! is checked in its own module; this one reads the value once and calls
//! them in code order.

pub(crate) mod builtin_overlap;
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
    if checker.enabled(Rule::BuiltinOverlap) {
        builtin_overlap::check(checker, value, text, when_text);
    }
}

/// The phrases of `phrases` (ASCII) that `text` holds as whole words,
/// case-insensitively, by their index: [`find_word`] for each phrase at once,
/// in one pass over the text instead of one per phrase.
struct PhraseSet {
    automaton: aho_corasick::AhoCorasick,
}

impl PhraseSet {
    fn new(phrases: &[&str]) -> PhraseSet {
        let automaton = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(phrases)
            .expect("a few short phrases build an automaton");
        PhraseSet { automaton }
    }

    /// The indices of the phrases `text` holds as whole words, in no order.
    fn whole_words<'t>(&'t self, text: &'t str) -> impl Iterator<Item = usize> + 't {
        let bytes = text.as_bytes();
        self.automaton
            .find_overlapping_iter(text)
            .filter(move |hit| is_whole_words(bytes, hit.range()))
            .map(|hit| hit.pattern().as_usize())
    }
}

/// The first case-insensitive occurrence of `phrase` as whole words.
fn find_word(text: &str, phrase: &str) -> Option<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = find_ascii_ci(&text[from..], phrase) {
        let range = from + found.start..from + found.end;
        if is_whole_words(bytes, range.clone()) {
            return Some(range);
        }
        from = range.start + 1;
    }
    None
}

/// Whether `range` of `bytes` is neither preceded nor followed by an ASCII
/// letter or digit: a match of whole words.
fn is_whole_words(bytes: &[u8], range: std::ops::Range<usize>) -> bool {
    (range.start == 0 || !bytes[range.start - 1].is_ascii_alphanumeric())
        && (range.end == bytes.len() || !bytes[range.end].is_ascii_alphanumeric())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A phrase set finds exactly the phrases [`find_word`] finds.
    #[test]
    fn phrase_sets_agree_with_find_word() {
        let phrases = ["do it", "do this", "it", "any task", "anything", "use for"];
        let set = PhraseSet::new(&phrases);
        let texts = [
            "",
            "Do it now",
            "doit, do-it, DO IT.",
            "do this and do itself",
            "anything; any taskforce; Any Task",
            "éuse for, xuse for, use forms",
            "it",
            "bit of it",
            "do thisdo it",
            "ünit it é",
        ];
        for text in texts {
            let mut found: Vec<usize> = set.whole_words(text).collect();
            found.sort_unstable();
            found.dedup();
            let expected: Vec<usize> = (0..phrases.len())
                .filter(|&i| find_word(text, phrases[i]).is_some())
                .collect();
            assert_eq!(found, expected, "{text:?}");
        }
    }

    /// A skill whose frontmatter is a name and the description `d`.
    pub(crate) fn with_description(d: &str) -> String {
        format!("---\nname: my-skill\ndescription: {d}\n---\n")
    }
}
