//! HS009 `dashes-in-frontmatter`: its documentation, check and tests.

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// The frontmatter ends at a *line* `---`. skills-ref 0.1.1 instead splits the
    /// file at the first `---` anywhere, so a value such as
    /// `description: Pre---and post-processing` ends its frontmatter mid-value and
    /// the rest is lost or invalid. Quoting does not help; write an en or em dash
    /// (`–`, `—`) or a single hyphen. Only for `agentskills`.
}

pub(super) fn check(checker: &mut Checker, yaml: &str, base: usize) {
    if let Some(i) = memchr::memmem::find(yaml.as_bytes(), b"---") {
        let at = base + i;
        checker
            .report(
                Rule::DashesInFrontmatter,
                at..at + 3,
                "`---` inside the frontmatter",
            )
            .help(
                "skills-ref splits the file at the first `---` anywhere; write `—` or `-` instead",
            );
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn dashes_inside_the_frontmatter() {
        fires(
            Rule::DashesInFrontmatter,
            &skill_md("license: MIT---ish\n", ""),
        );
        quiet(Rule::DashesInFrontmatter, &skill_md("", "---\n"));
    }
}
