//! HS003 `invalid-yaml`: its documentation, check and tests.

use super::next_char;
use crate::rules::yaml_text::{
    TopLevelEntry, double_quoted, fold_plain, is_plain, top_level_entries,
};
use crate::rules::{Checker, Rule, Target};
use crate::yaml::YamlError;

crate::rules::rule_doc! {
    /// Agents parse the frontmatter as YAML and skip the skill, mostly silently, when
    /// it fails. The commonest real failure is an unquoted `: ` inside a value:
    ///
    /// ```yaml
    /// description: Reads PDFs. Use when: the user sends a PDF     # HS003
    /// description: "Reads PDFs. Use when: the user sends a PDF"   # fixed
    /// ```
    ///
    /// YAML reads `key: value` pairs, so a second `: ` on the same line looks like a
    /// nested key, which a plain (unquoted) value cannot hold. The fix wraps the
    /// whole value in double quotes, escaping any `"` and `\` inside it.
    ///
    /// The finding points at the position the parser reports and, where it
    /// recognises the cause, says it in plain words: `: ` in a plain value, a tab
    /// used for indentation, a value starting with a reserved character (`@`,
    /// `` ` ``, `%`), an unclosed quote.
    ///
    /// Hone parses YAML 1.2 (saphyr). On the corpus every file Hone rejects is also
    /// rejected by PyYAML; constructs only *some* parsers reject are HS007–HS010.
}

/// HS003, or HS014 for a `: ` in a plain value when the target is Claude Code.
pub(super) fn check(checker: &mut Checker, err: &YamlError) {
    let text = checker.text();
    let Some((yaml, base)) = checker.skill.doc.yaml_text() else {
        return;
    };
    let entries = top_level_entries(yaml, base);
    let line_start = text[..err.offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = checker.skill.lines.line_text(text, err.offset);
    let message = format!("invalid YAML in the frontmatter: {}", err.message);
    let at = err.offset.min(text.len());

    if let Some(entry) = colon_in_plain_value(text, &entries, at) {
        let value = &text[entry.value.clone()];
        let quoted = double_quoted(&fold_plain(value));
        let help = format!(
            "the value of `{}` contains `: `, which YAML reads as the start of another key; quote the whole value",
            entry.key
        );
        let title = format!("Quote the value of `{}`", entry.key);
        let range = entry.value.clone();
        // Claude Code retries such a value quoted and loads the skill.
        let (rule, message) = if checker.target == Target::ClaudeCode {
            let message = format!(
                "`{}` holds `: ` in an unquoted value: Claude Code quotes it and loads the skill, strict parsers reject the frontmatter",
                entry.key
            );
            (Rule::UnquotedColon, message)
        } else {
            (Rule::InvalidYaml, message)
        };
        checker
            .report(rule, range.clone(), message)
            .help(help)
            .fix(title, range, quoted);
        return;
    }
    let help = plain_words_hint(line, &text[line_start..]);
    let end = next_char(text, at);
    checker
        .report(Rule::InvalidYaml, at..end, message)
        .help(help);
}

/// The entry whose plain value holds a `: ` (or ends with `:`), preferring the
/// one around the error position.
fn colon_in_plain_value<'e>(
    text: &str,
    entries: &'e [TopLevelEntry<'_>],
    error_at: usize,
) -> Option<&'e TopLevelEntry<'e>> {
    let suspicious = |e: &&TopLevelEntry| {
        let value = &text[e.value.clone()];
        is_plain(value) && (value.contains(": ") || value.contains(":\t") || value.ends_with(':'))
    };
    let around = entries.iter().rev().find(|e| e.line.start <= error_at);
    around
        .filter(suspicious)
        .or_else(|| entries.iter().find(suspicious))
}

/// One sentence on the likely cause, in plain words.
fn plain_words_hint(line: &str, from_line: &str) -> String {
    let value = line
        .split_once(": ")
        .map(|(_, v)| v.trim_start())
        .unwrap_or("");
    if line.starts_with('\t') || from_line.starts_with('\t') {
        "YAML does not allow tabs for indentation; indent with spaces".into()
    } else if value.starts_with(['@', '`', '%']) {
        "a value cannot start with `@`, `` ` `` or `%` unquoted; put the value in double quotes"
            .into()
    } else if (value.starts_with('"') && !value.trim_end().ends_with('"'))
        || (value.starts_with('\'') && !value.trim_end().ends_with('\''))
    {
        "a quoted value must end with the quote it starts with; inside double quotes write `\\\"` for a quote, inside single quotes write `''`".into()
    } else if value.starts_with(['"', '\'']) {
        "text after a closing quote is not allowed; quote the whole value and escape the quotes inside it".into()
    } else if value.starts_with(['*', '&', '!']) {
        "a value starting with `*`, `&` or `!` is an alias, anchor or tag in YAML; put the value in double quotes".into()
    } else {
        "check the indentation and quoting of this line; putting string values in double quotes avoids most problems".into()
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn invalid_yaml_with_colon_in_a_description_is_quoted() {
        let text = "---\nname: my-skill\ndescription: Reads PDFs. Use when: the user sends \"a PDF\"\n---\nbody\n";
        let d = fires(Rule::InvalidYaml, text);
        assert_eq!(d.span.start.line, 3);
        assert!(
            d.help.as_deref().unwrap().contains("`description`"),
            "{d:?}"
        );
        let fixed = fixed(Rule::InvalidYaml, text);
        assert!(
            fixed.contains(r#"description: "Reads PDFs. Use when: the user sends \"a PDF\"""#),
            "{fixed}"
        );
        quiet(Rule::InvalidYaml, &skill_md("", ""));
    }

    #[test]
    fn invalid_yaml_in_a_multiline_plain_value_is_folded_and_quoted() {
        let text =
            "---\nname: my-skill\ndescription: Reads PDFs.\n  Use when: the user sends one\n---\n";
        if !findings(Rule::InvalidYaml, text).is_empty() {
            let out = fixed(Rule::InvalidYaml, text);
            assert!(
                out.contains("description: \"Reads PDFs. Use when: the user sends one\"\n"),
                "{out}"
            );
        }
    }

    /// skills-ref `test_invalid_yaml` (agentskills/agentskills,
    /// skills-ref/tests/test_parser.py): `name: [invalid` on line 2 is
    /// reported on line 2, at the bracket, not where the parser gave up.
    #[test]
    fn an_unclosed_bracket_is_reported_on_its_line() {
        let text = "---\nname: [invalid\ndescription: broken\n---\nBody here\n";
        let d = fires(Rule::InvalidYaml, text);
        assert_eq!((d.span.start.line, d.span.start.column), (2, 7), "{d:?}");
        assert!(d.message.contains("never closed"), "{d:?}");
    }

    #[test]
    fn invalid_yaml_hints_at_tabs_and_quotes() {
        let d = fires(
            Rule::InvalidYaml,
            "---\nname: my-skill\ndescription: \"unclosed\n---\n",
        );
        assert!(d.fix.is_none());
        let d = fires(Rule::InvalidYaml, "---\nmetadata:\n\tk: v\n---\n");
        assert!(d.help.unwrap().contains("tabs"));
    }
}
