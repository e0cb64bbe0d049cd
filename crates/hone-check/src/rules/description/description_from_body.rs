//! HS207 `description-from-body`: its documentation, check and tests.

use std::ops::Range;

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// Claude Code loads a skill without `description` and lists it with the first
    /// non-blank line of its body, a heading's marks stripped, cut at 100 characters
    /// (its docs say "the first paragraph"; version 2.1.328 sends the first line, as
    /// the real-client suite shows). That line was written for a reader who already
    /// chose the skill, and rarely says when to use it. The finding shows the text
    /// Claude Code will list; every other client refuses the skill (HS201). Only
    /// for `claude-code`.
}

/// `HS207` at the frontmatter's opening line: what Claude Code lists instead.
pub(super) fn check(checker: &mut Checker, open: Range<usize>) {
    let listed = crate::clients::claude_code::listing_description(checker.skill);
    let message = if checker.skill.body().trim().is_empty() {
        format!("no `description` and no body: Claude Code lists it as \"{listed}\"")
    } else {
        format!("no `description`: Claude Code lists the body's first line, \"{listed}\"")
    };
    checker
        .report(Rule::DescriptionFromBody, open, message)
        .help("add `description:` saying what the skill does and when to use it; other clients refuse the skill without one");
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

    /// Claude Code lists a skill without a description by its body's first
    /// line (a heading's marks stripped); the spec, the upload and Copilot
    /// require one.
    #[test]
    fn missing_description_per_target() {
        let text = "---\nname: my-skill\n---\n# Title\n\nFormats reports for the team.\n";
        let claude = findings_for(Rule::DescriptionFromBody, text, Target::ClaudeCode);
        assert_eq!(claude.len(), 1);
        assert!(
            claude[0]
                .message
                .contains("the body's first line, \"Title\""),
            "{:?}",
            claude[0]
        );
        assert!(findings_for(Rule::DescriptionMissing, text, Target::ClaudeCode).is_empty());
        for target in [Target::Agentskills, Target::ClaudeApi, Target::Copilot] {
            assert_eq!(
                findings_for(Rule::DescriptionMissing, text, target).len(),
                1,
                "{target}"
            );
            assert!(
                findings_for(Rule::DescriptionFromBody, text, target).is_empty(),
                "{target}"
            );
        }
    }
}
