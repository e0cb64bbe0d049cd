//! HS106 `angle-brackets`: its documentation, check and tests.

use super::located;
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Anthropic's upload and Skills API reject XML tags in `name` and
    /// `description`; the metadata is placed inside a structured prompt, where a
    /// tag could break out of it. Any `<` or `>` is reported. Write "less than",
    /// "at least" or plain words instead. Only for `claude-api`.
    ///
    /// ```yaml
    /// description: Wraps output in <result> tags.      # HS106
    /// description: Wraps output in result tags.        # fine
    /// ```
}

/// `HS106` at the first `<` or `>` of the value of `key`, `node`.
pub(super) fn check(checker: &mut Checker, key: &str, node: &Node) {
    let Some(value) = node.as_str() else { return };
    let Some(at) = value.find(['<', '>']) else {
        return;
    };
    let is_tag = value[at..].starts_with('<')
        && value[at + 1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
    let what = if is_tag {
        "an XML tag"
    } else {
        "an angle bracket"
    };
    let range = located(checker.text(), node, at..at + 1);
    checker
        .report(
            Rule::AngleBrackets,
            range,
            format!("`{key}` contains {what}"),
        )
        .help("Anthropic's API rejects `<` and `>` in name and description; use words instead");
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn angle_brackets_for_the_api() {
        let text = skill_md("", "").replace("Formats reports.", "Wraps <result> tags.");
        let d = fires(Rule::AngleBrackets, &text);
        assert_eq!(spanned(&text, &d), "<");
        assert!(d.message.contains("XML tag"));
        quiet(Rule::AngleBrackets, &skill_md("", "<b>body</b>"));
    }
}
