//! HS311 `field-value`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Some of Claude Code's fields take one of a few words (skills docs,
    /// "Frontmatter reference"):
    ///
    /// | field | values |
    /// |---|---|
    /// | `effort` | `low`, `medium`, `high`, `xhigh`, `max` |
    /// | `shell` | `bash`, `powershell` |
    /// | `context` | `fork` |
    ///
    /// Any other value does not do what it says (`effort: extreme` sets no effort
    /// level; `shell: zsh` runs `!` blocks in bash). `model` takes any model name
    /// or alias, or `inherit`, and is not checked. The fix lowercases a value whose
    /// lowercase form is valid (`High` → `high`). Only for `claude-code`.
}

/// `HS311`: a value outside the words Claude Code defines for `key`.
pub(super) fn check(checker: &mut Checker, key: &str, value: &Node, allowed: &[&str]) {
    if !checker.enabled(Rule::FieldValue) {
        return;
    }
    let Some(written) = value.as_str() else {
        return;
    };
    if allowed.contains(&written) {
        return;
    }
    let list = allowed
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let lower = written.trim().to_ascii_lowercase();
    let report = checker
        .report(
            Rule::FieldValue,
            value.span.clone(),
            format!("`{key}: {written}` is not a value Claude Code defines ({list})"),
        )
        .help(format!("write one of {list}"));
    if allowed.contains(&lower.as_str()) {
        report.fix(format!("Write `{lower}`"), value.span.clone(), lower);
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

    /// Claude Code skills docs: effort low/medium/high/xhigh/max, shell
    /// bash/powershell, context fork; model any name or `inherit`.
    #[test]
    fn enumerated_values_for_claude_code() {
        let text = skill_md("effort: High\n", "");
        let d = findings_for(Rule::FieldValue, &text, Target::ClaudeCode);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].fix
                .as_ref()
                .unwrap()
                .apply(&text)
                .unwrap()
                .contains("effort: high\n")
        );
        assert_eq!(
            findings_for(
                Rule::FieldValue,
                &skill_md("shell: zsh\n", ""),
                Target::ClaudeCode
            )
            .len(),
            1
        );
        for fine in [
            "effort: xhigh\n",
            "shell: powershell\n",
            "context: fork\n",
            "model: inherit\n",
            "disallowed-tools: Bash\n",
        ] {
            assert!(
                findings_for(Rule::FieldValue, &skill_md(fine, ""), Target::ClaudeCode).is_empty(),
                "{fine}"
            );
            assert!(
                findings_for(Rule::UnknownKey, &skill_md(fine, ""), Target::ClaudeCode).is_empty(),
                "{fine}"
            );
        }
    }
}
