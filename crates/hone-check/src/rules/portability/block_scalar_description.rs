//! HS012 `block-scalar-description`: its documentation, check and tests.

use crate::rules::yaml_text::double_quoted;
use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// A folded (`>`) or literal (`|`) block scalar is valid YAML, and Claude Code,
    /// skills-ref and every YAML parser read it as the text below it. Clients that
    /// read the frontmatter line by line instead take the rest of the
    /// `description:` line, so the description becomes `>-` or `|`: reported for
    /// context-labs/whip (PR #107), oguzbilgic/kern-ai (#318) and QwenLM/qwen-code
    /// (#4869). Such a skill is listed with a two-character description and never
    /// chosen.
    ///
    /// ```yaml
    /// description: >-                     # HS012
    ///   Reads PDFs. Use when the user sends a PDF.
    /// description: "Reads PDFs. Use when the user sends a PDF."   # fixed
    /// ```
    ///
    /// Checked for `description` and `when_to_use`. The fix writes the value as
    /// one double-quoted line (line breaks of a literal block kept as `\n`).
}

/// `description` / `when_to_use` written as block scalars.
pub(super) fn check(checker: &mut Checker) {
    if !checker.enabled(Rule::BlockScalar) {
        return;
    }
    for key in ["description", "when_to_use"] {
        let Some((name, value)) = checker.entry(key) else {
            continue;
        };
        let Some(text) = value.as_str().filter(|_| value.block) else {
            continue;
        };
        // The node starts at its content; the indicator follows the key's `:`.
        let source = checker.text();
        let after_key = &source[name.span.end..value.span.start];
        let Some(offset) = after_key.find(':').and_then(|colon| {
            after_key[colon + 1..]
                .find(['|', '>'])
                .map(|i| colon + 1 + i)
        }) else {
            continue;
        };
        let start = name.span.end + offset;
        let indicator: String = source[start..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        let end = value.span.start + source[value.span.clone()].trim_end().len();
        let range = start..end.max(start + indicator.len());
        let quoted = double_quoted(text.trim_end_matches('\n'));
        checker
            .report(
                Rule::BlockScalar,
                range.clone(),
                format!("`{key}` is a block scalar (`{indicator}`); clients that read the line as text see only `{indicator}`"),
            )
            .help("context-labs/whip, oguzbilgic/kern-ai and QwenLM/qwen-code read the indicator as the value; write it as one quoted line")
            .fix(format!("Write `{key}` as one quoted line"), range, quoted);
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    /// context-labs/whip PR #107, oguzbilgic/kern-ai #318, QwenLM/qwen-code
    /// #4869: line-based readers take `>-` as the description.
    #[test]
    fn block_scalar_descriptions_become_one_quoted_line() {
        let text = "---\nname: my-skill\ndescription: >-\n  Reads PDFs.\n  Use when asked.\n---\n";
        let d = fires(Rule::BlockScalar, text);
        assert!(d.message.contains("`>-`"), "{d:?}");
        let out = fixed(Rule::BlockScalar, text);
        assert!(
            out.contains("description: \"Reads PDFs. Use when asked.\"\n---"),
            "{out}"
        );
        let literal = "---\nname: my-skill\ndescription: |\n  Line one.\n  Line two.\n---\n";
        assert!(fixed(Rule::BlockScalar, literal).contains("\"Line one.\\nLine two.\""));
        quiet(Rule::BlockScalar, &skill_md("", ""));
    }
}
