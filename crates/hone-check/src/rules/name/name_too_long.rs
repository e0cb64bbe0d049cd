//! HS102 `name-too-long`: its documentation, check and tests.

use super::MAX_NAME_CHARS;
use crate::rules::{Checker, Rule, char_count};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// The spec, Claude Code and Anthropic's API all cap `name` at 64 characters.
    /// Shorten it (and rename the directory to match).
}

/// `HS102` when `name` (the text of `value`) is over the spec's limit.
pub(super) fn check(checker: &mut Checker, value: &Node, name: &str) {
    let chars = char_count(name);
    if chars <= MAX_NAME_CHARS {
        return;
    }
    checker
        .report(
            Rule::NameTooLong,
            value.span.clone(),
            format!("`name` has {chars} characters; the limit is {MAX_NAME_CHARS}"),
        )
        .help("shorten the name, and rename the directory to match");
}

#[cfg(test)]
mod tests {
    use crate::rules::name::tests::with_name;
    use crate::rules::testing::*;

    #[test]
    fn long_names() {
        fires(Rule::NameTooLong, &with_name(&"a".repeat(65)));
        quiet(Rule::NameTooLong, &with_name(&"a".repeat(64)));
    }
}
