//! HS001 `frontmatter-missing`: its documentation, check and tests.

use super::next_char;
use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// Agents find a skill through its frontmatter: the YAML between a first line
    /// `---` and the next line `---`, holding at least `name` and `description`.
    /// Without it the file is not a skill for any agent.
    ///
    /// ```markdown
    /// # PDF tools            <- HS001: the first line must be `---`
    /// ```
    ///
    /// ```markdown
    /// ---
    /// name: pdf-tools
    /// description: Reads and fills PDF forms. Use when the user sends a PDF.
    /// ---
    /// # PDF tools
    /// ```
    ///
    /// A UTF-8 byte-order mark before `---` is accepted here (see HS006).
}

/// `start`: where the frontmatter should begin (after a byte-order mark).
pub(super) fn check(checker: &mut Checker, start: usize) {
    let end = next_char(checker.text(), start);
    checker
        .report(Rule::FrontmatterMissing, start..end, "SKILL.md has no frontmatter")
        .help("start the file with a `---` line, then `name:` and `description:` lines, then a closing `---` line");
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn missing_frontmatter() {
        let d = fires(Rule::FrontmatterMissing, "# Title\n");
        assert_eq!(d.span.start.line, 1);
        quiet(Rule::FrontmatterMissing, &skill_md("", "# Title\n"));
    }
}
