//! HS304 `allowed-tools-form`: its documentation, check and tests.

use super::allowed_tools_commas;
use crate::fields::split_tools;
use crate::rules::{Checker, Rule};
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// `allowed-tools` lists the tools a skill may use without asking: a string
    /// (space-separated in the spec; Claude Code also accepts commas) or a YAML list
    /// of strings. Each entry is a tool name, optionally with a pattern in
    /// parentheses: `Bash(git add *)`. The rule reports other types, empty entries
    /// and unbalanced parentheses.
    ///
    /// ```yaml
    /// allowed-tools: {Read: true}            # HS304
    /// allowed-tools: Read, , Bash(git *      # HS304: empty entry, unclosed `(`
    /// allowed-tools: Read Grep Bash(git *)   # fine
    /// ```
}

/// `HS304` for an `allowed-tools` value that is not a list of tool names
/// (and `HS305` for one separated by commas).
pub(super) fn check(checker: &mut Checker, value: &Node) {
    let tools: Vec<(String, std::ops::Range<usize>)> = match &value.value {
        Value::Null => return,
        Value::String(s) => {
            if s.trim().is_empty() {
                return report_tools(
                    checker,
                    value.span.clone(),
                    "`allowed-tools` is empty".into(),
                );
            }
            let separated_by_commas = s.contains(',');
            if separated_by_commas && s.split(',').any(|part| part.trim().is_empty()) {
                return report_tools(
                    checker,
                    value.span.clone(),
                    "`allowed-tools` has an empty entry between commas".into(),
                );
            }
            if separated_by_commas {
                allowed_tools_commas::check(checker, value, s);
            }
            split_tools(s)
                .into_iter()
                .map(|t| (t, value.span.clone()))
                .collect()
        }
        Value::Seq(items) => {
            let mut tools = Vec::new();
            for item in items {
                match item.as_str() {
                    Some(s) if !s.trim().is_empty() => {
                        tools.push((s.to_owned(), item.span.clone()))
                    }
                    _ => {
                        let message = format!(
                            "an `allowed-tools` entry is {}, not a tool name",
                            if item.as_str().is_some() {
                                "empty"
                            } else {
                                item.kind()
                            }
                        );
                        report_tools(checker, item.span.clone(), message);
                    }
                }
            }
            tools
        }
        _ => {
            let message = format!(
                "`allowed-tools` should be a string or a list of strings, not {}",
                value.kind()
            );
            return report_tools(checker, value.span.clone(), message);
        }
    };
    for (tool, span) in tools {
        let opens = tool.matches('(').count();
        let closes = tool.matches(')').count();
        if opens != closes {
            report_tools(
                checker,
                span,
                format!("the tool `{tool}` has unbalanced parentheses"),
            );
        }
    }
}

fn report_tools(checker: &mut Checker, range: std::ops::Range<usize>, message: String) {
    checker
        .report(Rule::AllowedToolsForm, range, message)
        .help("list tool names, e.g. `allowed-tools: Read Grep Bash(git status)`");
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn allowed_tools_form() {
        fires(
            Rule::AllowedToolsForm,
            &skill_md("allowed-tools: {Read: true}\n", ""),
        );
        fires(
            Rule::AllowedToolsForm,
            &skill_md("allowed-tools: Read, , Grep\n", ""),
        );
        fires(
            Rule::AllowedToolsForm,
            &skill_md("allowed-tools: Read Bash(git\n", ""),
        );
        fires(
            Rule::AllowedToolsForm,
            &skill_md("allowed-tools:\n  - Read\n  - 3\n", ""),
        );
        quiet(
            Rule::AllowedToolsForm,
            &skill_md("allowed-tools: Read Grep Bash(git add *)\n", ""),
        );
        quiet(
            Rule::AllowedToolsForm,
            &skill_md("allowed-tools:\n  - Read\n  - Bash(git add *)\n", ""),
        );
    }
}
