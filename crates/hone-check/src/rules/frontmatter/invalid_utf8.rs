//! HS005 `invalid-utf8`: its documentation, check and tests.

use super::next_char;
use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// Skills are UTF-8 text. A file saved in another encoding (Windows-1252,
    /// Latin-1, UTF-16) fails to load in Python agents (`UnicodeDecodeError`) and
    /// shows replacement characters in others. Hone reads on with U+FFFD in place
    /// of the bad bytes, so the other rules still run; the finding points at the
    /// first bad byte. Re-save the file as UTF-8.
}

pub(super) fn check(checker: &mut Checker) {
    if let Some(at) = checker.skill.doc.invalid_utf8_at {
        let end = next_char(checker.text(), at);
        checker
            .report(Rule::InvalidUtf8, at..end, "the file is not valid UTF-8")
            .help("re-save the file as UTF-8; the first invalid byte is here");
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

    #[test]
    fn invalid_utf8() {
        let skill = crate::skill::Skill::from_document(
            std::path::Path::new("/lib/my-skill"),
            crate::document::SkillDocument::from_bytes(
                b"---\nname: my-skill\ndescription: caf\xe9\n---\n",
            ),
        );
        let found = findings_of(Rule::InvalidUtf8, &skill, Target::All);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].span.start.line, 3);
        quiet(Rule::InvalidUtf8, &skill_md("", "café"));
    }
}
