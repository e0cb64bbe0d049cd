//! HS301 `field-type`: its documentation, check and tests.

use super::yaml11_boolean;
use crate::rules::yaml_text::double_quoted;
use crate::rules::{Checker, Rule};
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// Each known key has a type: `name`, `description`, `license`,
    /// `compatibility`, `when_to_use`, `model` (a model name, or `inherit`),
    /// `effort`, `shell` and the other text fields are strings; `metadata` and
    /// `hooks` are mappings; `disable-model-invocation`, `user-invocable` and
    /// `background` are booleans; `paths` (comma-separated globs or a list),
    /// `disallowed-tools`, `triggers` and the tool lists are a string or a list of
    /// strings; `arguments` is a space-separated string or a list of names;
    /// `token_estimate` is an integer. Sources: the Claude Code skills docs
    /// ("Frontmatter reference") and CHANGELOG (`disallowed-tools` 2.1.152,
    /// `background` 2.1.218, `paths` lists 2.1.84). An agent that
    /// gets a number or a list where it expects text may crash or skip the skill.
    ///
    /// ```yaml
    /// license: 2.0       # HS301: a number; write "2.0"
    /// name: [pdf]        # HS301: a list
    /// ```
    ///
    /// The fix quotes a number or boolean given for a text field.
    ///
    /// **skills-ref differs:** strictyaml reads every scalar as a string, so
    /// `license: 2.0` passes there; PyYAML and the `yaml` npm package return a
    /// number.
}

/// `HS301`: `key`'s value is not `wanted`.
pub(super) fn wrong_type(checker: &mut Checker, key: &str, value: &Node, wanted: &str) {
    let found = value.kind();
    checker
        .report(
            Rule::FieldType,
            value.span.clone(),
            format!("`{key}` should be {wanted}, not {found}"),
        )
        .help(format!("write `{key}` as {wanted}"));
}

/// `HS301` for a text field (quoting a number or boolean), and `HS308`
/// for a plain YAML 1.1 boolean word in it.
pub(super) fn text_field(checker: &mut Checker, key: &str, value: &Node) {
    match &value.value {
        Value::String(s) => yaml11_boolean::check(checker, key, value, s),
        Value::Null => {}
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
            let source = checker.text()[value.span.clone()].to_owned();
            let found = value.kind();
            checker
                .report(
                    Rule::FieldType,
                    value.span.clone(),
                    format!("`{key}` should be a string, not {found}"),
                )
                .help("quote the value so every parser reads text")
                .fix(
                    format!("Quote the value of `{key}`"),
                    value.span.clone(),
                    double_quoted(&source),
                );
        }
        _ => wrong_type(checker, key, value, "a string"),
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn wrong_types() {
        let text = skill_md("license: 2.0\n", "");
        let d = fires(Rule::FieldType, &text);
        assert_eq!(spanned(&text, &d), "2.0");
        assert!(fixed(Rule::FieldType, &text).contains("license: \"2.0\"\n"));
        fires(Rule::FieldType, &skill_md("metadata: [a]\n", ""));
        fires(Rule::FieldType, &skill_md("token_estimate: many\n", ""));
        fires(
            Rule::FieldType,
            "---\nname: [a]\ndescription: Use when asked.\n---\n",
        );
        quiet(
            Rule::FieldType,
            &skill_md("license: MIT\nmetadata:\n  a: b\ntoken_estimate: 10\n", ""),
        );
    }
}
