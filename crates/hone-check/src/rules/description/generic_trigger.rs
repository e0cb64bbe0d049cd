//! HS206 `generic-trigger`: its documentation, check and tests.

use std::sync::LazyLock;

use super::{PhraseSet, find_word};
use crate::rules::{Checker, Rule};
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// Phrases such as "help me", "do this", "any task" or "general purpose" match
    /// nearly every request, so the skill fires when it should not and crowds out
    /// the skill that fits. Name the concrete situations instead.
    ///
    /// Checked in `description`, `when_to_use` and each `triggers` entry (which
    /// skill routers read); a `triggers` entry that is one common verb (`help`,
    /// `run`, `fix`) is generic too.
    ///
    /// ```yaml
    /// description: Use when the user says "help me" with anything.     # HS206
    /// description: Use when the user asks to fix a failing CI job.      # fine
    /// ```
}

/// Phrases that match almost any request.
const GENERIC_PHRASES: &[&str] = &[
    "help me",
    "do this",
    "do that",
    "do it",
    "do something",
    "any task",
    "any request",
    "any question",
    "anything",
    "all tasks",
    "general purpose",
    "general-purpose",
    "all-purpose",
    "whatever the user",
];

/// `triggers` entries too common to route on.
const GENERIC_WORDS: &[&str] = &[
    "help", "do", "run", "make", "create", "fix", "use", "it", "this", "code", "task", "go",
];

/// `HS206` in `description` (`value`), `when_to_use` and `triggers`.
pub(super) fn check(checker: &mut Checker, value: &Node, when_to_use: Option<&Node>) {
    generic_phrases(checker, "description", value);
    if let Some(when) = when_to_use {
        generic_phrases(checker, "when_to_use", when);
    }
    generic_trigger_entries(checker);
}

fn generic_phrases(checker: &mut Checker, key: &str, node: &Node) {
    static PHRASES: LazyLock<PhraseSet> = LazyLock::new(|| PhraseSet::new(GENERIC_PHRASES));
    let Some(value) = node.as_str() else { return };
    let source = &checker.text()[node.span.clone()];
    // The first phrase of the list the value holds.
    if let Some(first) = PHRASES.whole_words(value).min() {
        let phrase = GENERIC_PHRASES[first];
        // Point at the phrase when the source spells it the same way.
        let range = find_word(source, phrase).map_or(node.span.clone(), |r| {
            node.span.start + r.start..node.span.start + r.end
        });
        checker
            .report(
                Rule::GenericTrigger,
                range,
                format!("`{key}` uses the generic trigger \"{phrase}\""),
            )
            .help("it matches almost any request; name the concrete situations the skill is for");
    }
}

fn generic_trigger_entries(checker: &mut Checker) {
    let Some((_, triggers)) = checker.entry("triggers") else {
        return;
    };
    let items: Vec<&Node> = match &triggers.value {
        Value::Seq(items) => items.iter().collect(),
        Value::String(_) => vec![triggers],
        _ => return,
    };
    for item in items {
        let Some(entry) = item.as_str() else { continue };
        let entry = entry.trim();
        let generic = GENERIC_WORDS.iter().any(|w| entry.eq_ignore_ascii_case(w))
            || GENERIC_PHRASES
                .iter()
                .any(|p| entry.eq_ignore_ascii_case(p));
        if generic {
            checker
                .report(Rule::GenericTrigger, item.span.clone(), format!("the trigger \"{entry}\" is generic"))
                .help("it matches almost any request; use a phrase only this skill's requests contain");
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::description::tests::with_description;
    use crate::rules::testing::*;

    #[test]
    fn generic_triggers() {
        let text = with_description("Use when the user says help me.");
        assert_eq!(
            spanned(&text, &fires(Rule::GenericTrigger, &text)),
            "help me"
        );
        let triggers = skill_md("triggers:\n  - help\n  - fill pdf form\n", "");
        assert_eq!(
            spanned(&triggers, &fires(Rule::GenericTrigger, &triggers)),
            "help"
        );
        quiet(
            Rule::GenericTrigger,
            &skill_md("triggers: [fill pdf form]\n", ""),
        );
        quiet(
            Rule::GenericTrigger,
            &with_description("Use when the user asks for helpful menus."),
        );
    }
}
