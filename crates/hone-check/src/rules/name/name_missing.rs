//! HS101 `name-missing`: its documentation, check and tests.

use crate::document::FrontmatterBlock;
use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// The spec requires `name`, Anthropic's upload rejects a skill without it, and
    /// GitHub Copilot's docs list it as required ("Creating agent skills": **name**
    /// (required)). Claude Code falls back to the directory name (skills docs,
    /// "Frontmatter reference"), so the rule is not part of the `claude-code`
    /// target.
    ///
    /// ```yaml
    /// ---
    /// description: Reads PDFs. Use when the user sends a PDF.   # HS101
    /// ---
    /// ```
    ///
    /// The fix adds `name:` set to the directory name, when that name is valid.
}

/// `HS101`, with a fix naming the skill after its folder when that is a
/// valid name.
pub(super) fn check(checker: &mut Checker, dir_name: &str, dir_usable: bool) {
    let (range, insert_at) = match &checker.skill.doc.frontmatter {
        FrontmatterBlock::Closed { open, yaml, .. } => (open.clone(), yaml.start),
        _ => return,
    };
    let newline = if checker.skill.doc.has_crlf {
        "\r\n"
    } else {
        "\n"
    };
    let report = checker
        .report(Rule::NameMissing, range, "the frontmatter has no `name`")
        .help("add `name:` with the directory's name");
    if dir_usable {
        report.fix(
            format!("Add `name: {dir_name}`"),
            insert_at..insert_at,
            format!("name: {dir_name}{newline}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

    #[test]
    fn missing_name_is_added() {
        let text = "---\ndescription: Formats reports. Use when asked.\n---\n";
        assert!(fixed(Rule::NameMissing, text).starts_with("---\nname: my-skill\ndescription"));
        quiet(Rule::NameMissing, &skill_md("", ""));
        assert!(findings_for(Rule::NameMissing, text, Target::ClaudeCode).is_empty());
    }

    /// Copilot's docs: **name** (required).
    #[test]
    fn copilot_requires_a_name() {
        let text = "---\ndescription: Formats reports. Use when asked.\n---\n";
        assert_eq!(
            findings_for(Rule::NameMissing, text, Target::Copilot).len(),
            1
        );
    }
}
