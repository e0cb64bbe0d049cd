//! Helpers for the rules' tests: build a skill in a temporary folder (so that
//! rules reading neighbouring files see real ones) and look at one rule's findings.

use std::path::Path;

pub use super::Rule;
use super::{Target, check_skill};
use crate::diagnostic::Diagnostic;
use crate::skill::Skill;

/// The skill `dir_name/SKILL.md` holding `text`, with `files` beside it.
pub fn skill_with_files(
    dir_name: &str,
    text: &str,
    files: &[(&str, &str)],
) -> (tempfile::TempDir, Skill) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(dir_name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    for (path, content) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let skill = Skill::load(&dir).unwrap();
    (tmp, skill)
}

/// The findings of `rule` for `text` as the skill `my-skill`, with `target`.
pub fn findings_for(rule: Rule, text: &str, target: Target) -> Vec<Diagnostic> {
    let skill = Skill::from_document(
        Path::new("/lib/my-skill"),
        crate::document::SkillDocument::parse(text.to_owned()),
    );
    findings_of(rule, &skill, target)
}

pub fn findings_of(rule: Rule, skill: &Skill, target: Target) -> Vec<Diagnostic> {
    check_skill(skill, target)
        .into_iter()
        .filter(|d| d.code == rule.code())
        .collect()
}

/// The findings of `rule` (every rule enabled) for the skill `my-skill` with
/// `body` and `files` beside it.
pub fn findings_with_files(rule: Rule, body: &str, files: &[(&str, &str)]) -> Vec<Diagnostic> {
    let (_tmp, skill) = skill_with_files("my-skill", &skill_md("", body), files);
    findings_of(rule, &skill, Target::All)
}

/// The findings of `rule` with every rule enabled.
pub fn findings(rule: Rule, text: &str) -> Vec<Diagnostic> {
    findings_for(rule, text, Target::All)
}

/// Asserts that `rule` fires exactly once on `text` and returns the finding.
pub fn fires(rule: Rule, text: &str) -> Diagnostic {
    let mut found = findings(rule, text);
    assert_eq!(
        found.len(),
        1,
        "{rule} should fire once on {text:?}: {found:#?}"
    );
    found.remove(0)
}

/// Asserts that `rule` does not fire on `text`.
pub fn quiet(rule: Rule, text: &str) {
    let found = findings(rule, text);
    assert!(
        found.is_empty(),
        "{rule} should not fire on {text:?}: {found:#?}"
    );
}

/// The text a finding's span covers.
pub fn spanned<'t>(text: &'t str, d: &Diagnostic) -> &'t str {
    &text[d.span.byte_range()]
}

/// Applies the finding's fix and asserts the rule no longer fires.
pub fn fixed(rule: Rule, text: &str) -> String {
    let d = fires(rule, text);
    let fix = d
        .fix
        .unwrap_or_else(|| panic!("{rule} should offer a fix on {text:?}"));
    let out = fix.apply(text).expect("the fix applies");
    quiet(rule, &out);
    out
}

/// A valid skill `my-skill` with `extra` frontmatter lines and a body.
pub fn skill_md(extra: &str, body: &str) -> String {
    format!(
        "---\nname: my-skill\ndescription: Formats reports. Use when the user asks for a report.\n{extra}---\n{body}"
    )
}
