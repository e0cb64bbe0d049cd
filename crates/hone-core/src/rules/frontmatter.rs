//! `HS001`–`HS005`: the file can be decoded and has a frontmatter block that
//! parses as a YAML mapping. A skill failing these is dropped by agents,
//! usually without a word, so every message says what to type instead.

use super::portability::UNQUOTED_COLON;
use super::yaml_text::{TopLevelEntry, double_quoted, fold_plain, is_plain, top_level_entries};
use super::{Checker, EVERY, RuleInfo, Target};
use crate::diagnostic::Severity;
use crate::document::FrontmatterBlock;
use crate::yaml::{Node, Value, YamlError};

pub static FRONTMATTER_MISSING: RuleInfo = RuleInfo {
    code: "HS001",
    name: "frontmatter-missing",
    severity: Severity::Error,
    summary: "SKILL.md does not start with a `---` frontmatter block",
    doc: r#"Agents find a skill through its frontmatter: the YAML between a first line
`---` and the next line `---`, holding at least `name` and `description`.
Without it the file is not a skill for any agent.

```markdown
# PDF tools            <- HS001: the first line must be `---`
```

```markdown
---
name: pdf-tools
description: Reads and fills PDF forms. Use when the user sends a PDF.
---
# PDF tools
```

A UTF-8 byte-order mark before `---` is accepted here (see HS006)."#,
    targets: EVERY,
    fixable: false,
};

pub static FRONTMATTER_UNCLOSED: RuleInfo = RuleInfo {
    code: "HS002",
    name: "frontmatter-unclosed",
    severity: Severity::Error,
    summary: "the frontmatter's opening `---` has no closing `---` line",
    doc: r#"The frontmatter ends at the first line that is exactly `---`. Without one,
agents either drop the skill or read the whole file as YAML and fail.

```markdown
---
name: pdf-tools
description: Reads PDFs.
# PDF tools            <- HS002: add a `---` line before the body
```

A `---` inside a value (`description: a---b`) does not close the block, and
neither does a `---` inside a fenced code block of the body: Hone stops
looking at the first fence, which cannot be YAML. skills-ref splits the file
on the first `---` anywhere instead; see HS009."#,
    targets: EVERY,
    fixable: false,
};

pub static INVALID_YAML: RuleInfo = RuleInfo {
    code: "HS003",
    name: "invalid-yaml",
    severity: Severity::Error,
    summary: "the frontmatter is not valid YAML",
    doc: r#"Agents parse the frontmatter as YAML and skip the skill, mostly silently, when
it fails. The commonest real failure is an unquoted `: ` inside a value:

```yaml
description: Reads PDFs. Use when: the user sends a PDF     # HS003
description: "Reads PDFs. Use when: the user sends a PDF"   # fixed
```

YAML reads `key: value` pairs, so a second `: ` on the same line looks like a
nested key, which a plain (unquoted) value cannot hold. The fix wraps the
whole value in double quotes, escaping any `"` and `\` inside it.

The finding points at the position the parser reports and, where it
recognises the cause, says it in plain words: `: ` in a plain value, a tab
used for indentation, a value starting with a reserved character (`@`,
`` ` ``, `%`), an unclosed quote.

Hone parses YAML 1.2 (saphyr). On the corpus every file Hone rejects is also
rejected by PyYAML; constructs only *some* parsers reject are HS007–HS010."#,
    targets: EVERY,
    fixable: true,
};

pub static FRONTMATTER_NOT_MAPPING: RuleInfo = RuleInfo {
    code: "HS004",
    name: "frontmatter-not-mapping",
    severity: Severity::Error,
    summary: "the frontmatter is empty or not a mapping of keys to values",
    doc: r#"The frontmatter must be a YAML mapping (`key: value` lines). An empty block,
a list or a lone string parses as YAML but gives an agent no `name` or
`description`.

```yaml
---
- name: pdf-tools       # HS004: a list, not a mapping
---
```"#,
    targets: EVERY,
    fixable: false,
};

pub static INVALID_UTF8: RuleInfo = RuleInfo {
    code: "HS005",
    name: "invalid-utf8",
    severity: Severity::Error,
    summary: "SKILL.md is not valid UTF-8",
    doc: r#"Skills are UTF-8 text. A file saved in another encoding (Windows-1252,
Latin-1, UTF-16) fails to load in Python agents (`UnicodeDecodeError`) and
shows replacement characters in others. Hone reads on with U+FFFD in place
of the bad bytes, so the other rules still run; the finding points at the
first bad byte. Re-save the file as UTF-8."#,
    targets: EVERY,
    fixable: false,
};

pub(super) fn check(checker: &mut Checker) {
    let skill = checker.skill;
    let doc = &skill.doc;
    if let Some(at) = doc.invalid_utf8_at {
        let end = next_char(checker.text(), at);
        checker
            .report(&INVALID_UTF8, at..end, "the file is not valid UTF-8")
            .help("re-save the file as UTF-8; the first invalid byte is here");
    }
    match &doc.frontmatter {
        FrontmatterBlock::Missing => {
            let start = if doc.has_bom { 3 } else { 0 };
            let end = next_char(checker.text(), start);
            checker
                .report(&FRONTMATTER_MISSING, start..end, "SKILL.md has no frontmatter")
                .help("start the file with a `---` line, then `name:` and `description:` lines, then a closing `---` line");
        }
        FrontmatterBlock::Unclosed { open } => {
            checker
                .report(
                    &FRONTMATTER_UNCLOSED,
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
        .report(&FRONTMATTER_NOT_MAPPING, range, message)
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
            (&UNQUOTED_COLON, message)
        } else {
            (&INVALID_YAML, message)
        };
        checker
            .report(rule, range.clone(), message)
            .help(help)
            .fix(title, range, quoted);
        return;
    }
    let help = plain_words_hint(line, &text[line_start..]);
    let end = next_char(text, at);
    checker.report(&INVALID_YAML, at..end, message).help(help);
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
        let d = fires("HS001", "# Title\n");
        assert_eq!(d.span.start.line, 1);
        quiet("HS001", &skill_md("", "# Title\n"));
    }

    #[test]
    fn unclosed_frontmatter() {
        let text = "---\nname: my-skill\n# Title\n";
        assert_eq!(spanned(text, &fires("HS002", text)), "---");
        quiet("HS002", &skill_md("", ""));
    }

    #[test]
    fn invalid_yaml_with_colon_in_a_description_is_quoted() {
        let text = "---\nname: my-skill\ndescription: Reads PDFs. Use when: the user sends \"a PDF\"\n---\nbody\n";
        let d = fires("HS003", text);
        assert_eq!(d.span.start.line, 3);
        assert!(
            d.help.as_deref().unwrap().contains("`description`"),
            "{d:?}"
        );
        let fixed = fixed("HS003", text);
        assert!(
            fixed.contains(r#"description: "Reads PDFs. Use when: the user sends \"a PDF\"""#),
            "{fixed}"
        );
        quiet("HS003", &skill_md("", ""));
    }

    #[test]
    fn invalid_yaml_in_a_multiline_plain_value_is_folded_and_quoted() {
        let text =
            "---\nname: my-skill\ndescription: Reads PDFs.\n  Use when: the user sends one\n---\n";
        if !findings("HS003", text).is_empty() {
            let out = fixed("HS003", text);
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
        let d = fires("HS003", text);
        assert_eq!((d.span.start.line, d.span.start.column), (2, 7), "{d:?}");
        assert!(d.message.contains("never closed"), "{d:?}");
    }

    #[test]
    fn invalid_yaml_hints_at_tabs_and_quotes() {
        let d = fires(
            "HS003",
            "---\nname: my-skill\ndescription: \"unclosed\n---\n",
        );
        assert!(d.fix.is_none());
        let d = fires("HS003", "---\nmetadata:\n\tk: v\n---\n");
        assert!(d.help.unwrap().contains("tabs"));
    }

    #[test]
    fn not_a_mapping() {
        let text = "---\n- name: x\n---\n";
        fires("HS004", text);
        fires("HS004", "---\n---\nbody");
        quiet("HS004", &skill_md("", ""));
    }

    #[test]
    fn invalid_utf8() {
        let skill = crate::skill::Skill::from_document(
            std::path::Path::new("/lib/my-skill"),
            crate::document::SkillDocument::from_bytes(
                b"---\nname: my-skill\ndescription: caf\xe9\n---\n",
            ),
        );
        let found = findings_of("HS005", &skill, super::super::Target::All);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].span.start.line, 3);
        quiet("HS005", &skill_md("", "café"));
    }
}
