//! HS205 `no-trigger`: its documentation, check and tests.

use std::sync::LazyLock;

use super::PhraseSet;
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Agents choose a skill by matching the request against its description. A
    /// description that only says what the skill *is* ("A PDF toolkit") loses to
    /// one that says when to use it ("Use when the user sends a PDF or asks to fill
    /// a form"). Anthropic's authoring guide asks for both what and when.
    ///
    /// The rule looks, in `description` and `when_to_use`, for phrases such as
    /// "use when", "use for", "use this", "when", "whenever", "if the user",
    /// "asks", "trigger" or "invoke". It is a heuristic: reword rather than
    /// silence it.
    ///
    /// ```yaml
    /// description: A toolkit for PDF files.                                # HS205
    /// description: Reads and fills PDFs. Use when the user sends a PDF.    # fine
    /// ```
}

/// Phrases of a description that say when to use the skill.
const TRIGGER_WORDS: &[&str] = &[
    "when",
    "whenever",
    "use for",
    "use this",
    "use it",
    "use to",
    "use on",
    "use in",
    "use with",
    "useful for",
    "if the user",
    "if you",
    "asks",
    "asked",
    "ask for",
    "trigger",
    "triggers",
    "invoke",
    "before",
    "after",
    "during",
];

/// `HS205` when neither `description` (`value`, whose text is `text`) nor
/// `when_to_use` says when to use the skill.
pub(super) fn check(checker: &mut Checker, value: &Node, text: &str, when_text: &str) {
    if says_when(text) || says_when(when_text) {
        return;
    }
    checker
        .report(
            Rule::NoTrigger,
            value.span.clone(),
            "the description never says when to use the skill",
        )
        .help("add a sentence like \"Use when the user asks to ...\" naming concrete requests");
}

fn says_when(text: &str) -> bool {
    static TRIGGERS: LazyLock<PhraseSet> = LazyLock::new(|| PhraseSet::new(TRIGGER_WORDS));
    TRIGGERS.whole_words(text).next().is_some()
}

#[cfg(test)]
mod tests {
    use crate::rules::description::tests::with_description;
    use crate::rules::testing::*;

    #[test]
    fn description_without_when() {
        fires(
            Rule::NoTrigger,
            &with_description("A toolkit for PDF files."),
        );
        quiet(
            Rule::NoTrigger,
            &with_description("Reads PDFs. Use when the user sends a PDF."),
        );
        let with_when = "---\nname: my-skill\ndescription: A PDF toolkit.\nwhen_to_use: When the user sends a PDF.\n---\n";
        quiet(Rule::NoTrigger, with_when);
        // "whenever" is a word; "somewhen" is not "when".
        fires(Rule::NoTrigger, &with_description("Somewhen toolkit."));
    }
}
