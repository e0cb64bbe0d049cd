//! HS202 `description-empty`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// `description:` with nothing after it is null in YAML, and `""` or a blank
    /// string gives the agent nothing to route on. The spec requires 1–1024
    /// characters. A value on the *next* line without a block indicator is a
    /// common slip:
    ///
    /// ```yaml
    /// description:            # HS202: null
    /// Reads PDFs.             # not part of the description
    /// description: >-         # fine: a folded block
    ///   Reads PDFs.
    /// ```
}

/// `HS202` on an empty `description`, `value`.
pub(super) fn check(checker: &mut Checker, value: &Node) {
    checker
        .report(
            Rule::DescriptionEmpty,
            value_or_key(checker, value),
            "`description` is empty",
        )
        .help("say what the skill does and when to use it, in 1 to 1,024 characters");
}

/// The value's span, or the key's when the value is empty (a null has no text).
fn value_or_key(checker: &Checker, value: &Node) -> std::ops::Range<usize> {
    if value.span.is_empty() {
        checker
            .entry("description")
            .map_or(value.span.clone(), |(k, _)| k.span.clone())
    } else {
        value.span.clone()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::description::tests::with_description;
    use crate::rules::testing::*;

    #[test]
    fn empty() {
        let text = with_description("");
        assert_eq!(
            spanned(&text, &fires(Rule::DescriptionEmpty, &text)),
            "description"
        );
        fires(Rule::DescriptionEmpty, &with_description("\"  \""));
        quiet(Rule::DescriptionEmpty, &skill_md("", ""));
    }
}
