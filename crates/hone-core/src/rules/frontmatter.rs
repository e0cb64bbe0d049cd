//! `HS001`–`HS005`: the file can be decoded and has a frontmatter block that
//! parses as a YAML mapping. A skill failing these is dropped by agents,
//! usually without a word, so every message says what to type instead.

use super::yaml_text::{TopLevelEntry, double_quoted, fold_plain, is_plain, top_level_entries};
use super::{Checker, Rule, Target};
use crate::document::FrontmatterBlock;
use crate::yaml::{Node, Value, YamlError};

pub(super) fn check(checker: &mut Checker) {
    let skill = checker.skill;
    let doc = &skill.doc;
    if let Some(at) = doc.invalid_utf8_at {
        let end = next_char(checker.text(), at);
        checker
            .report(Rule::InvalidUtf8, at..end, "the file is not valid UTF-8")
            .help("re-save the file as UTF-8; the first invalid byte is here");
    }
    match &doc.frontmatter {
        FrontmatterBlock::Missing => {
            let start = if doc.has_bom { 3 } else { 0 };
            let end = next_char(checker.text(), start);
            checker
                .report(Rule::FrontmatterMissing, start..end, "SKILL.md has no frontmatter")
                .help("start the file with a `---` line, then `name:` and `description:` lines, then a closing `---` line");
        }
        FrontmatterBlock::Unclosed { open } => {
            checker
                .report(
                    Rule::FrontmatterUnclosed,
                    open.clone(),
                    "the frontmatter is never closed",
                )
                .help("add a line `---` after the last frontmatter key, before the body");
        }
        FrontmatterBlock::Closed { open, .. } => match &skill.yaml {
            Some(Err(err)) => invalid_yaml(checker, err),
            Some(Ok(root)) => not_mapping(checker, root, open.clone()),
            None => {}
        },
    }
}

fn next_char(text: &str, at: usize) -> usize {
    text[at.min(text.len())..]
        .chars()
        .next()
        .map_or(at, |c| at + c.len_utf8())
}

fn not_mapping(checker: &mut Checker, root: &Node, open: std::ops::Range<usize>) {
    let message = match root.value {
        Value::Map(_) => return,
        Value::Null => "the frontmatter is empty".to_owned(),
        _ => format!(
            "the frontmatter is {}, not a mapping of keys to values",
            root.kind()
        ),
    };
    let range = if matches!(root.value, Value::Null) {
        open
    } else {
        root.span.clone()
    };
    checker
        .report(Rule::FrontmatterNotMapping, range, message)
        .help("write one `key: value` per line, at least `name:` and `description:`");
}

fn invalid_yaml(checker: &mut Checker, err: &YamlError) {
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
    use super::super::testing::*;

    #[test]
    fn missing_frontmatter() {
        let d = fires(Rule::FrontmatterMissing, "# Title\n");
        assert_eq!(d.span.start.line, 1);
        quiet(Rule::FrontmatterMissing, &skill_md("", "# Title\n"));
    }

    #[test]
    fn unclosed_frontmatter() {
        let text = "---\nname: my-skill\n# Title\n";
        assert_eq!(
            spanned(text, &fires(Rule::FrontmatterUnclosed, text)),
            "---"
        );
        quiet(Rule::FrontmatterUnclosed, &skill_md("", ""));
    }

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

    #[test]
    fn not_a_mapping() {
        let text = "---\n- name: x\n---\n";
        fires(Rule::FrontmatterNotMapping, text);
        fires(Rule::FrontmatterNotMapping, "---\n---\nbody");
        quiet(Rule::FrontmatterNotMapping, &skill_md("", ""));
    }

    #[test]
    fn invalid_utf8() {
        let skill = crate::skill::Skill::from_document(
            std::path::Path::new("/lib/my-skill"),
            crate::document::SkillDocument::from_bytes(
                b"---\nname: my-skill\ndescription: caf\xe9\n---\n",
            ),
        );
        let found = findings_of(Rule::InvalidUtf8, &skill, super::super::Target::All);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].span.start.line, 3);
        quiet(Rule::InvalidUtf8, &skill_md("", "café"));
    }
}
