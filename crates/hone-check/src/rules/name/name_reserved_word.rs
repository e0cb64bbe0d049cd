//! HS105 `name-reserved-word`: its documentation, check and tests.

use super::located;
use crate::rules::yaml_text::find_ascii_ci;
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Anthropic's upload and Skills API reject skill names containing `anthropic`
    /// or `claude`. Other agents accept them. Only for `claude-api`.
    ///
    /// ```yaml
    /// name: claude-pdf-helper   # HS105
    /// name: pdf-helper          # fine
    /// ```
}

/// `HS105` at the first reserved word in `name` (the text of `value`).
pub(super) fn check(checker: &mut Checker, value: &Node, name: &str) {
    for word in ["anthropic", "claude"] {
        if let Some(range) = find_ascii_ci(name, word) {
            let range = located(checker.text(), value, range);
            checker
                .report(Rule::NameReservedWord, range, format!("`name` contains the reserved word `{word}`"))
                .help("Anthropic's API rejects names containing `anthropic` or `claude`; choose another name");
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::name::tests::with_name;
    use crate::rules::testing::*;

    #[test]
    fn reserved_words_only_for_the_api() {
        let text = with_name("claude-helper");
        let d = fires(Rule::NameReservedWord, &text);
        assert_eq!(spanned(&text, &d), "claude");
        assert!(findings_for(Rule::NameReservedWord, &text, Target::Agentskills).is_empty());
        quiet(Rule::NameReservedWord, &with_name("my-skill"));
    }
}
