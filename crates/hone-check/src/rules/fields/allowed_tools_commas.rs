//! HS305 `allowed-tools-commas`: its documentation, check and tests.

use crate::fields::split_tools;
use crate::rules::yaml_text::{double_quoted, is_plain};
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// The spec defines `allowed-tools` as a *space*-separated string, so a reader
    /// following it turns `Read, Grep` into the tools `Read,` and `Grep`. Claude
    /// Code accepts commas; for portability use spaces or a YAML list.
    ///
    /// ```yaml
    /// allowed-tools: Read, Grep     # HS305
    /// allowed-tools: Read Grep      # fixed
    /// ```
    ///
    /// The fix rewrites the list with spaces when no entry contains a space. Only
    /// for `agentskills`.
}

/// `HS305`: `allowed-tools` separated by commas, with a fix to spaces when
/// no tool has a space in it.
pub(super) fn check(checker: &mut Checker, value: &Node, s: &str) {
    if !checker.enabled(Rule::AllowedToolsCommas) {
        return;
    }
    let tools = split_tools(s);
    let report = checker
        .report(
            Rule::AllowedToolsCommas,
            value.span.clone(),
            "`allowed-tools` is separated by commas; the spec separates tools with spaces",
        )
        .help("separate the tools with spaces, or write a YAML list");
    if tools.iter().all(|t| !t.contains(char::is_whitespace)) {
        let joined = tools.join(" ");
        let replacement = if is_plain(&joined) && !joined.contains(": ") && !joined.contains(" #") {
            joined
        } else {
            double_quoted(&joined)
        };
        report.fix(
            "Separate the tools with spaces",
            value.span.clone(),
            replacement,
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

    #[test]
    fn allowed_tools_commas_for_the_spec() {
        let text = skill_md("allowed-tools: Read, Grep\n", "");
        assert!(fixed(Rule::AllowedToolsCommas, &text).contains("allowed-tools: Read Grep\n"));
        let spaced = skill_md("allowed-tools: Read, Bash(git add *)\n", "");
        assert!(fires(Rule::AllowedToolsCommas, &spaced).fix.is_none());
        assert!(findings_for(Rule::AllowedToolsCommas, &text, Target::ClaudeCode).is_empty());
        quiet(
            Rule::AllowedToolsCommas,
            &skill_md("allowed-tools: Read Grep\n", ""),
        );
    }
}
