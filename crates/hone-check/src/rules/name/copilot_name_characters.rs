//! HS108 `copilot-name-characters`: its documentation, check and tests.

use super::shown_char;
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// GitHub Copilot CLI refuses to load a skill whose name has any other character:
    /// "Skill name must contain only letters, numbers, hyphens, underscores, dots,
    /// and spaces" (github/copilot-cli #1766, kenn-io/roborev #493). So a
    /// plugin-style `tools:deploy` or a `/` fails there while Claude Code loads it.
    /// Copilot's docs ask for more ("lowercase, using hyphens for spaces", see
    /// HS103); this rule is what the CLI enforces. Letters are taken as ASCII
    /// letters, as the message reads. Only for `copilot`.
    ///
    /// **The issue said Copilot allows `:`; its CLI's own message and #1766 (a
    /// request to *add* `plugin:skill` namespacing) say it does not, so `:` is
    /// reported.**
}

/// `HS108` at the first character of `name` Copilot CLI refuses.
pub(super) fn check(checker: &mut Checker, value: &Node, name: &str) {
    let Some(c) = name
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ')))
    else {
        return;
    };
    checker
        .report(
            Rule::CopilotName,
            value.span.clone(),
            format!(
                "`name` contains {}, which GitHub Copilot CLI refuses",
                shown_char(c)
            ),
        )
        .help("Copilot CLI takes only letters, digits, `-`, `_`, `.` and spaces in a name");
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::name::tests::with_name;
    use crate::rules::testing::*;

    /// Copilot CLI: "Skill name must contain only letters, numbers, hyphens,
    /// underscores, dots, and spaces" (github/copilot-cli #1766).
    #[test]
    fn copilot_refuses_colons_and_slashes() {
        for bad in ["tools:deploy", "a/b"] {
            assert_eq!(
                findings_for(Rule::CopilotName, &with_name(bad), Target::Copilot).len(),
                1
            );
        }
        for fine in ["My Skill", "my_skill.v2", "my-skill"] {
            assert!(findings_for(Rule::CopilotName, &with_name(fine), Target::Copilot).is_empty());
        }
        assert!(findings_for(Rule::CopilotName, &with_name("a:b"), Target::ClaudeCode).is_empty());
    }
}
