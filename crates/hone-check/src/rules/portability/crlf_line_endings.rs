//! HS010 `crlf-line-endings`: its documentation, check and tests.

use crate::diagnostic::Edit;
use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// Hone, PyYAML and js-yaml read CRLF files fine. But a loader that cuts the
    /// frontmatter with a pattern such as `\n---` leaves a `\r` at the end of the
    /// YAML text, and the `yaml` npm package then rejects a quoted last value
    /// ("Unexpected scalar at node end") and keeps the `\r` in a plain one
    /// (`name: pdf\r`). Two corpus skills (`ui-ux-pro-max`) fail that way. The fix
    /// converts the file to LF line endings.
}

pub(super) fn check(checker: &mut Checker, yaml: &str, base: usize) {
    let Some(i) = memchr::memmem::find(yaml.as_bytes(), b"\r\n") else {
        return;
    };
    let text = checker.text();
    let edits = memchr::memmem::find_iter(text.as_bytes(), b"\r\n")
        .map(|at| Edit {
            start: at,
            end: at + 1,
            replacement: String::new(),
        })
        .collect();
    let at = base + i;
    checker
        .report(Rule::CrlfLineEndings, at..at + 2, "the frontmatter has CRLF line endings")
        .help("some loaders leave a `\\r` in the YAML, which the `yaml` npm parser rejects; save with LF endings")
        .fix_edits("Convert line endings to LF", edits);
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn crlf_line_endings() {
        let text = skill_md("", "body\n").replace('\n', "\r\n");
        assert!(!fixed(Rule::CrlfLineEndings, &text).contains('\r'));
        quiet(Rule::CrlfLineEndings, &skill_md("", ""));
    }
}
