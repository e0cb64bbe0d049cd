//! HS203 `description-too-long`: its documentation, check and tests.

use super::MAX_DESCRIPTION_CHARS;
use crate::rules::{Checker, Rule, char_count};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// The spec and Anthropic's API cap `description` at 1,024 characters (Unicode
    /// scalar values, as skills-ref counts them). A longer one fails validation and
    /// upload; agents that accept it pay for it in every request's catalog. Move
    /// detail into the body, which loads only when the skill is used.
}

/// `HS203` when `text`, the value of `value`, is over the spec's limit.
pub(super) fn check(checker: &mut Checker, value: &Node, text: &str) {
    let chars = char_count(text);
    if chars <= MAX_DESCRIPTION_CHARS {
        return;
    }
    checker
        .report(
            Rule::DescriptionTooLong,
            value.span.clone(),
            format!("`description` has {chars} characters; the limit is {MAX_DESCRIPTION_CHARS}"),
        )
        .help("move detail into the body, which loads only when the skill is used");
}

#[cfg(test)]
mod tests {
    use crate::rules::description::tests::with_description;
    use crate::rules::testing::*;

    #[test]
    fn too_long_counts_characters() {
        fires(
            Rule::DescriptionTooLong,
            &with_description(&format!("Use when {}", "é".repeat(1020))),
        );
        quiet(
            Rule::DescriptionTooLong,
            &with_description(&format!("Use when {}", "é".repeat(1000))),
        );
    }
}
