//! `HS006`–`HS011`: frontmatter that Hone reads but that some agent or tool
//! reads differently or drops. Each finding names the construct and who
//! stumbles on it, because "valid YAML" depends on the parser:
//!
//! | construct | PyYAML | `yaml` (npm) | js-yaml | strictyaml (skills-ref) |
//! |---|---|---|---|---|
//! | duplicate key | last wins | error | error | error |
//! | flow `[a, b]` / `{k: v}` | ok | ok | ok | error |
//! | `---` inside a value | ok | ok | ok | cut there (skills-ref splits on it) |
//! | CRLF, loader cuts at `\n---` | ok | error after a quoted value | ok | ok |
//! | `: ` in a multi-line plain value | error | ok | error | error |
//! | tag `!!python/…` | refused by `safe_load` | unresolved | refused | refused |
//!
//! Some clients do not use a YAML parser at all and read `description:` line
//! by line; a block scalar (`>-`, `|`) is the construct they miss.
//!
//! Each rule is checked in its own module; `HS014` (an unquoted `: `) is
//! reported where the YAML fails, in [`super::frontmatter`].

pub(crate) mod block_scalar_description;
pub(crate) mod byte_order_mark;
pub(crate) mod comment_truncates_value;
pub(crate) mod crlf_line_endings;
pub(crate) mod dashes_in_frontmatter;
pub(crate) mod duplicate_key;
pub(crate) mod flow_collection;
pub(crate) mod unquoted_colon;
pub(crate) mod yaml_tag;

use super::{Checker, Rule};

pub(super) fn check(checker: &mut Checker) {
    byte_order_mark::check(checker);
    let doc = &checker.skill.doc;
    let Some((yaml, base)) = doc.yaml_text() else {
        return;
    };
    if doc.has_crlf && checker.enabled(Rule::CrlfLineEndings) {
        crlf_line_endings::check(checker, yaml, base);
    }
    if checker.enabled(Rule::DashesInFrontmatter) {
        dashes_in_frontmatter::check(checker, yaml, base);
    }
    let Some(root) = checker.skill.yaml_root() else {
        return;
    };
    duplicate_key::check(checker, root);
    if checker.enabled(Rule::FlowCollection) {
        flow_collection::check(checker, root);
    }
    comment_truncates_value::check(checker);
    block_scalar_description::check(checker);
    if checker.enabled(Rule::YamlTag) {
        yaml_tag::check(checker, root);
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

    /// Claude Code re-quotes a value holding `: ` and loads the skill
    /// (CHANGELOG "Fixed skill descriptions with colons"); the agentskills.io
    /// client guide recommends the same fallback; every strict parser fails.
    #[test]
    fn unquoted_colon_is_a_warning_for_claude_code_and_an_error_elsewhere() {
        let text =
            "---\nname: my-skill\ndescription: Reads PDFs. Use when: the user sends one\n---\n";
        let claude = findings_for(Rule::UnquotedColon, text, Target::ClaudeCode);
        assert_eq!(claude.len(), 1);
        let out = claude[0].fix.as_ref().unwrap().apply(text).unwrap();
        assert!(
            out.contains("description: \"Reads PDFs. Use when: the user sends one\"\n"),
            "{out}"
        );
        assert!(findings_for(Rule::InvalidYaml, text, Target::ClaudeCode).is_empty());
        assert_eq!(
            findings_for(Rule::InvalidYaml, text, Target::Agentskills).len(),
            1
        );
        assert!(findings_for(Rule::UnquotedColon, text, Target::Agentskills).is_empty());
        let multi =
            "---\nname: my-skill\ndescription: Reads PDFs.\n  Use when: the user sends one\n---\n";
        assert_eq!(
            findings_for(Rule::UnquotedColon, multi, Target::ClaudeCode).len(),
            1
        );
    }
}
