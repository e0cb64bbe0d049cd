//! HS302 `compatibility-too-long`: its documentation, check and tests.

use super::MAX_COMPATIBILITY_CHARS;
use crate::rules::{Checker, Rule, char_count};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// The spec's optional `compatibility` field (environment requirements: "Needs
    /// Python 3.10 and network access") holds 1–500 characters. Longer text belongs
    /// in the body.
}

/// `HS302`: `compatibility` empty or over the spec's limit.
pub(super) fn check(checker: &mut Checker, value: &Node) {
    let Some(text) = value.as_str() else { return };
    let chars = char_count(text);
    let message = if text.trim().is_empty() {
        "`compatibility` is empty".to_owned()
    } else if chars > MAX_COMPATIBILITY_CHARS {
        format!("`compatibility` has {chars} characters; the limit is {MAX_COMPATIBILITY_CHARS}")
    } else {
        return;
    };
    checker
        .report(Rule::CompatibilityTooLong, value.span.clone(), message)
        .help("state the environment in one or two sentences; put detail in the body");
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn compatibility_length() {
        fires(
            Rule::CompatibilityTooLong,
            &skill_md(&format!("compatibility: {}\n", "x".repeat(501)), ""),
        );
        fires(
            Rule::CompatibilityTooLong,
            &skill_md("compatibility: \"\"\n", ""),
        );
        quiet(
            Rule::CompatibilityTooLong,
            &skill_md("compatibility: Needs Python 3.10.\n", ""),
        );
    }
}
