//! HS011 `comment-truncates-value`: its documentation, check and tests.

use crate::rules::yaml_text::double_quoted;
use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// In a plain (unquoted) YAML value, a `#` after a space starts a comment: every
    /// parser silently drops the rest of the line.
    ///
    /// ```yaml
    /// description: Formats C# and F# code #csharp #fsharp   # HS011: value is "Formats C# and F# code"
    /// description: "Formats C# and F# code #csharp #fsharp" # fixed
    /// ```
    ///
    /// `C#` alone is fine (no space before `#`). Checked for `description` and
    /// `when_to_use`, where a comment is almost never meant. The fix quotes the
    /// value including the cut text.
}

/// Plain `description` / `when_to_use` values followed by a comment on their line.
pub(super) fn check(checker: &mut Checker) {
    if !checker.enabled(Rule::CommentTruncatesValue) {
        return;
    }
    let text = checker.text();
    for key in ["description", "when_to_use"] {
        let Some((_, value)) = checker.entry(key) else {
            continue;
        };
        if !value.plain || value.as_str().is_none() {
            continue;
        }
        let line_end = text[value.span.end..]
            .find(['\n', '\r'])
            .map_or(text.len(), |i| value.span.end + i);
        let rest = &text[value.span.end..line_end];
        if !rest.trim_start().starts_with('#') || text[value.span.clone()].contains('\n') {
            continue;
        }
        let whole = text[value.span.start..line_end].trim_end();
        let range = value.span.start..value.span.start + whole.len();
        checker
            .report(
                Rule::CommentTruncatesValue,
                range.clone(),
                format!("` #` ends the `{key}` value: the rest is a comment"),
            )
            .help("YAML drops everything from ` #` on in an unquoted value; quote the value")
            .fix(
                format!("Quote the value of `{key}`"),
                range,
                double_quoted(whole),
            );
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn comment_truncates_a_description() {
        let text =
            "---\nname: my-skill\ndescription: Formats C# code. Use when asked #csharp\n---\n";
        let out = fixed(Rule::CommentTruncatesValue, text);
        assert!(
            out.contains("description: \"Formats C# code. Use when asked #csharp\"\n"),
            "{out}"
        );
        quiet(Rule::CommentTruncatesValue, &skill_md("", ""));
        quiet(
            Rule::CommentTruncatesValue,
            "---\nname: my-skill\ndescription: Formats C# code. Use when asked.\n---\n",
        );
    }
}
