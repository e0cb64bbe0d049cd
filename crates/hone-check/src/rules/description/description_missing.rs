//! HS201 `description-missing`: its documentation, check and tests.

use std::ops::Range;

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// The description is what an agent reads to decide whether to use the skill.
    /// The spec and Anthropic's API require it, GitHub Copilot's docs list it as
    /// required, and the agentskills.io client guide tells clients to *skip* a
    /// skill without one (`adding-skills-support.mdx`, "Lenient validation").
    /// Claude Code instead falls back to the body (its skills docs say the first
    /// paragraph; version 2.1.328 lists the first line; CHANGELOG 2.1.69 "Fixed
    /// project skills without a `description:` … not appearing"), so for
    /// `claude-code` the finding is
    /// HS207, a warning that shows the text it will list.
    ///
    /// ```yaml
    /// ---
    /// name: pdf-tools          # HS201: add a description
    /// ---
    /// ```
}

/// `HS201` at the frontmatter's opening line, which has no `description`.
pub(super) fn check(checker: &mut Checker, open: Range<usize>) {
    checker
        .report(
            Rule::DescriptionMissing,
            open,
            "the frontmatter has no `description`",
        )
        .help("add `description:` saying what the skill does and when to use it");
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn missing() {
        fires(Rule::DescriptionMissing, "---\nname: my-skill\n---\n");
        quiet(Rule::DescriptionMissing, &skill_md("", ""));
    }
}
