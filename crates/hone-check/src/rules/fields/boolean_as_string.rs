//! HS309 `boolean-as-string`: its documentation, check and tests.

use super::field_type::wrong_type;
use super::yaml11_boolean::is_yaml11_boolean;
use crate::rules::{Checker, Rule};
use crate::skill::bool_word;
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// `disable-model-invocation`, `user-invocable`, `background` and
    /// `default-enabled` are booleans. Claude Code reads `yes`/`no`/`on`/`off`/`1`/`0`
    /// in any case as booleans since 2.1.218 (CHANGELOG: "Added
    /// `yes`/`no`/`on`/`off`/`1`/`0` (case-insensitive) as accepted values for skill
    /// and plugin frontmatter booleans"). Other agents, older Claude Code and the
    /// spec's YAML (1.2) do not: `no` and `off` are strings there, `1` and `0`
    /// integers, and a JavaScript agent testing the value treats every non-empty
    /// string as true, so `disable-model-invocation: no` would *disable*
    /// invocation. A quoted `"false"` has the same problem.
    ///
    /// ```yaml
    /// disable-model-invocation: no      # HS309
    /// disable-model-invocation: false   # fixed
    /// ```
    ///
    /// The fix writes `true` or `false`, which every reader agrees on.
}

/// `HS309` for a boolean field written as a word or a number (`HS301` when
/// it is not a boolean at all).
pub(super) fn check(checker: &mut Checker, key: &str, value: &Node) {
    let meaning = match &value.value {
        Value::Bool(_) | Value::Null => return,
        Value::Int(1) => Some(true),
        Value::Int(0) => Some(false),
        Value::String(s) if value.plain => bool_word(s).or_else(|| is_yaml11_boolean(s)),
        Value::String(s) => bool_word(s).or_else(|| is_yaml11_boolean(s.trim())),
        _ => None,
    };
    let Some(meaning) = meaning else {
        wrong_type(checker, key, value, "a boolean (`true` or `false`)");
        return;
    };
    let written = checker.text()[value.span.clone()].to_owned();
    let claude_reads = match &value.value {
        Value::Int(_) => true,
        Value::String(s) => bool_word(s).is_some(),
        _ => false,
    };
    let message = if claude_reads {
        format!(
            "`{key}: {written}` is a boolean only to Claude Code 2.1.218+; other agents read a string or a number, and JavaScript treats any non-empty string as true"
        )
    } else {
        format!(
            "`{key}: {written}` is a string, not a boolean; JavaScript treats any non-empty string as true"
        )
    };
    checker
        .report(Rule::BooleanAsString, value.span.clone(), message)
        .help(format!("write `{key}: {meaning}`"))
        .fix(
            format!("Write `{meaning}`"),
            value.span.clone(),
            meaning.to_string(),
        );
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    /// Claude Code CHANGELOG 2.1.218: yes/no/on/off/1/0 in any case are
    /// frontmatter booleans to Claude Code, not to YAML 1.2 readers.
    #[test]
    fn claude_code_booleans_are_a_portability_warning() {
        for (written, meaning) in [
            ("Yes", "true"),
            ("OFF", "false"),
            ("1", "true"),
            ("0", "false"),
        ] {
            let text = skill_md(&format!("background: {written}\n"), "");
            let d = fires(Rule::BooleanAsString, &text);
            assert!(d.message.contains("Claude Code 2.1.218"), "{d:?}");
            assert!(
                fixed(Rule::BooleanAsString, &text).contains(&format!("background: {meaning}\n"))
            );
            quiet(Rule::FieldType, &text);
        }
        fires(Rule::FieldType, &skill_md("background: 2\n", ""));
    }

    #[test]
    fn booleans_written_as_strings() {
        let text = skill_md("disable-model-invocation: no\n", "");
        assert!(fixed(Rule::BooleanAsString, &text).contains("disable-model-invocation: false\n"));
        let quoted = skill_md("user-invocable: \"true\"\n", "");
        assert!(fixed(Rule::BooleanAsString, &quoted).contains("user-invocable: true\n"));
        quiet(
            Rule::BooleanAsString,
            &skill_md("disable-model-invocation: false\n", ""),
        );
    }
}
