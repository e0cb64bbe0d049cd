//! HS006 `byte-order-mark`: its documentation, check and tests.

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// A byte-order mark (U+FEFF, bytes `EF BB BF`) is invisible in most editors but
    /// is the file's first character. Loaders that test "does the file start with
    /// `---`?" then find no frontmatter: skills-ref 0.1.1 reports "must start with
    /// YAML frontmatter", and Claude Code before 2.1.239 silently ignored the skill
    /// (CHANGELOG 2.1.239: "Fixed agents, skills, and commands whose `.md` file
    /// starts with a UTF-8 BOM being silently ignored"). Hone accepts the mark; the
    /// fix removes it.
    ///
    /// **The issue asked for `info`; Hone keeps `warning`:** the reference
    /// validator still rejects such a file, and Claude Code versions before
    /// 2.1.239 (August 2026) drop it without a word.
}

pub(super) fn check(checker: &mut Checker) {
    if checker.skill.doc.has_bom {
        checker
            .report(
                Rule::ByteOrderMark,
                0..3,
                "the file starts with a byte-order mark",
            )
            .help("loaders that check for a leading `---` miss the frontmatter; save without BOM")
            .fix("Remove the byte-order mark", 0..3, String::new());
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn byte_order_mark() {
        let text = format!("\u{feff}{}", skill_md("", ""));
        assert!(!fixed(Rule::ByteOrderMark, &text).starts_with('\u{feff}'));
        quiet(Rule::ByteOrderMark, &skill_md("", ""));
    }
}
