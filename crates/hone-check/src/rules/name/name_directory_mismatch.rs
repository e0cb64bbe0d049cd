//! HS104 `name-directory-mismatch`: its documentation, check and tests.

use unicode_normalization::UnicodeNormalization;

use crate::rules::{Checker, Rule, Target};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// The spec requires `name` to equal the name of the folder holding
    /// `SKILL.md`; tools that install skills by folder and agents that look them up
    /// by name then agree. Claude Code uses the name without this check, so the rule
    /// is not part of the `claude-code` target, and GitHub Copilot's docs only say
    /// the name "typically" matches the folder.
    ///
    /// Two spellings of one text (`café` as `e` + U+0301 or as `é`, U+00E9) look
    /// alike: macOS stores folder names decomposed, editors write names composed.
    /// skills-ref compares both after NFKC normalisation (`test_nfkc_normalization`),
    /// so for `agentskills` (and `all`) such a pair matches; Anthropic's upload
    /// compares them as written, so for `claude-api` it is reported, with the code
    /// points of both, since on screen the message would read "`café` but the
    /// directory is `café`".
    ///
    /// ```text
    /// skills/pdf-tools/SKILL.md   with   name: pdf        # HS104
    /// ```
    ///
    /// The fix sets `name` to the directory name when that is a valid name;
    /// otherwise rename the directory.
}

/// `HS104` when `name` (the text of `value`) is not the folder's name, with
/// a fix to the folder's name when that is a valid name (`dir_usable`).
pub(super) fn check(
    checker: &mut Checker,
    value: &Node,
    name: &str,
    dir_name: &str,
    dir_usable: bool,
) {
    if dir_name.is_empty() || name.is_empty() || !differs(name, dir_name, checker.target) {
        return;
    }
    let message = if looks_alike(name, dir_name) {
        format!(
            "`name` is `{name}` ({}) but the directory is `{dir_name}` ({}): they look alike but are different characters",
            code_points(name),
            code_points(dir_name)
        )
    } else {
        format!("`name` is `{name}` but the directory is `{dir_name}`")
    };
    let report = checker
        .report(Rule::NameDirectoryMismatch, value.span.clone(), message)
        .help(format!(
            "set `name: {dir_name}` or rename the directory to `{name}`"
        ));
    if dir_usable {
        report.fix(
            format!("Set `name` to `{dir_name}`"),
            value.span.clone(),
            dir_name.to_owned(),
        );
    }
}

/// Whether `name` and the folder differ for `target`: skills-ref (and so
/// `agentskills`, and `all`, which judges by the most lenient reader)
/// compares NFKC forms; Anthropic's upload compares the text as written.
fn differs(name: &str, dir: &str, target: Target) -> bool {
    if name == dir {
        return false;
    }
    match target {
        Target::ClaudeApi => name != dir,
        _ => name.nfkc().ne(dir.nfkc()),
    }
}

/// Two different strings that read the same: equal after NFKC normalisation.
fn looks_alike(a: &str, b: &str) -> bool {
    a != b && a.nfkc().eq(b.nfkc())
}

/// `U+0063 U+0061 …`: the code points of `s`.
fn code_points(s: &str) -> String {
    s.chars()
        .map(|c| format!("U+{:04X}", c as u32))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::name::tests::with_name;
    use crate::rules::testing::*;

    #[test]
    fn name_must_match_the_directory() {
        let text = with_name("other");
        assert!(fixed(Rule::NameDirectoryMismatch, &text).contains("name: my-skill\n"));
        quiet(Rule::NameDirectoryMismatch, &with_name("my-skill"));
        assert!(findings_for(Rule::NameDirectoryMismatch, &text, Target::ClaudeCode).is_empty());
    }

    /// skills-ref `test_nfkc_normalization` (agentskills/agentskills,
    /// skills-ref/tests/test_validator.py): a decomposed `café` in a folder
    /// named with the composed one matches after NFKC.
    #[test]
    fn names_and_folders_compare_after_nfkc_where_the_reference_does() {
        let decomposed = "cafe\u{301}";
        let text = with_name(decomposed);
        let (_tmp, skill) = skill_with_files("caf\u{e9}", &text, &[]);
        assert!(findings_of(Rule::NameDirectoryMismatch, &skill, Target::Agentskills).is_empty());
        let api = findings_of(Rule::NameDirectoryMismatch, &skill, Target::ClaudeApi);
        assert_eq!(api.len(), 1);
        assert!(
            api[0].message.contains("U+0065 U+0301"),
            "{}",
            api[0].message
        );
        assert!(api[0].message.contains("U+00E9"), "{}", api[0].message);
        assert!(api[0].message.contains("look alike"), "{}", api[0].message);
    }
}
