//! HS002 `frontmatter-unclosed`: its documentation, check and tests.

use std::ops::Range;

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// The frontmatter ends at the first line that is exactly `---`. Without one,
    /// agents either drop the skill or read the whole file as YAML and fail.
    ///
    /// ```markdown
    /// ---
    /// name: pdf-tools
    /// description: Reads PDFs.
    /// # PDF tools            <- HS002: add a `---` line before the body
    /// ```
    ///
    /// A `---` inside a value (`description: a---b`) does not close the block, and
    /// neither does a `---` inside a fenced code block of the body: Hone stops
    /// looking at the first fence, which cannot be YAML. skills-ref splits the file
    /// on the first `---` anywhere instead; see HS009.
}

/// `open`: the opening `---` line.
pub(super) fn check(checker: &mut Checker, open: Range<usize>) {
    checker
        .report(
            Rule::FrontmatterUnclosed,
            open,
            "the frontmatter is never closed",
        )
        .help("add a line `---` after the last frontmatter key, before the body");
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn unclosed_frontmatter() {
        let text = "---\nname: my-skill\n# Title\n";
        assert_eq!(
            spanned(text, &fires(Rule::FrontmatterUnclosed, text)),
            "---"
        );
        quiet(Rule::FrontmatterUnclosed, &skill_md("", ""));
    }
}
