//! `HS101`–`HS106`: the `name` field, the skill's identity. Agents use it to
//! load and invoke the skill, so the spec constrains it tightly.

use super::yaml_text::find_ascii_ci;
use super::{Checker, EVERY, RuleInfo, SPEC_AND_API, Target, char_count};
use crate::diagnostic::Severity;
use crate::document::FrontmatterBlock;
use crate::skill::Skill;
use crate::yaml::{Node, Value};

pub const MAX_NAME_CHARS: usize = 64;

pub static NAME_MISSING: RuleInfo = RuleInfo {
    code: "HS101",
    name: "name-missing",
    severity: Severity::Error,
    summary: "the frontmatter has no `name`",
    doc: r#"The spec requires `name`, and Anthropic's upload rejects a skill without it.
Claude Code falls back to the directory name, so the rule is not part of the
`claude-code` target.

```yaml
---
description: Reads PDFs. Use when the user sends a PDF.   # HS101
---
```

The fix adds `name:` set to the directory name, when that name is valid."#,
    targets: SPEC_AND_API,
    fixable: true,
};

pub static NAME_TOO_LONG: RuleInfo = RuleInfo {
    code: "HS102",
    name: "name-too-long",
    severity: Severity::Error,
    summary: "`name` is longer than 64 characters",
    doc: r#"The spec, Claude Code and Anthropic's API all cap `name` at 64 characters.
Shorten it (and rename the directory to match)."#,
    targets: EVERY,
    fixable: false,
};

pub static NAME_FORMAT: RuleInfo = RuleInfo {
    code: "HS103",
    name: "name-format",
    severity: Severity::Error,
    summary: "`name` is not lowercase `a-z`, `0-9` and single inner hyphens",
    doc: r#"A name is 1–64 characters of lowercase ASCII letters, digits and hyphens, with
no hyphen at the start or end and no two in a row: `pdf-tools`, not
`PDF Tools`, `pdf_tools`, `-pdf` or `pdf--tools`.

```yaml
name: PDF_Tools   # HS103
name: pdf-tools   # fixed
```

The fix lowercases the name and turns runs of other characters into one
hyphen.

**skills-ref differs:** it accepts any Unicode letter or digit (`café`,
`数据`), after NFKC normalisation, because Python's `str.isalnum()` does.
Hone follows the spec's text ("a-z and -") and Anthropic's API, which take
ASCII only; the corpus has no name where this matters."#,
    targets: EVERY,
    fixable: true,
};

pub static NAME_DIRECTORY_MISMATCH: RuleInfo = RuleInfo {
    code: "HS104",
    name: "name-directory-mismatch",
    severity: Severity::Error,
    summary: "`name` differs from the skill's directory name",
    doc: r#"The spec requires `name` to equal the name of the folder holding
`SKILL.md`; tools that install skills by folder and agents that look them up
by name then agree. Claude Code uses the name without this check, so the rule
is not part of the `claude-code` target.

```text
skills/pdf-tools/SKILL.md   with   name: pdf        # HS104
```

The fix sets `name` to the directory name when that is a valid name;
otherwise rename the directory."#,
    targets: SPEC_AND_API,
    fixable: true,
};

pub static NAME_RESERVED_WORD: RuleInfo = RuleInfo {
    code: "HS105",
    name: "name-reserved-word",
    severity: Severity::Error,
    summary: "`name` contains the reserved word `anthropic` or `claude`",
    doc: r#"Anthropic's upload and Skills API reject skill names containing `anthropic`
or `claude`. Other agents accept them. Only for `claude-api`.

```yaml
name: claude-pdf-helper   # HS105
name: pdf-helper          # fine
```"#,
    targets: &[Target::ClaudeApi],
    fixable: false,
};

pub static ANGLE_BRACKETS: RuleInfo = RuleInfo {
    code: "HS106",
    name: "angle-brackets",
    severity: Severity::Error,
    summary: "`<` or `>` (XML tags) in `name` or `description`",
    doc: r#"Anthropic's upload and Skills API reject XML tags in `name` and
`description`; the metadata is placed inside a structured prompt, where a
tag could break out of it. Any `<` or `>` is reported. Write "less than",
"at least" or plain words instead. Only for `claude-api`.

```yaml
description: Wraps output in <result> tags.      # HS106
description: Wraps output in result tags.        # fine
```"#,
    targets: &[Target::ClaudeApi],
    fixable: false,
};

/// Whether `name` is a valid skill name.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The name lowercased, with every run of other characters as one hyphen.
fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

pub(super) fn check(checker: &mut Checker) {
    let dir_name = directory_name(checker.skill);
    let dir_usable = is_valid_name(&dir_name);
    let Some((_, value)) = checker.entry("name") else {
        missing(checker, &dir_name, dir_usable);
        return;
    };
    let name = match &value.value {
        Value::String(s) => s.as_str(),
        Value::Null => "",
        _ => return, // HS301 reports the type
    };
    let chars = char_count(name);
    if chars > MAX_NAME_CHARS {
        checker
            .report(
                &NAME_TOO_LONG,
                value.span.clone(),
                format!("`name` has {chars} characters; the limit is {MAX_NAME_CHARS}"),
            )
            .help("shorten the name, and rename the directory to match");
    }
    if let Some(problem) = format_problem(name) {
        let fixed = slug(name);
        let report = checker
            .report(
                &NAME_FORMAT,
                value.span.clone(),
                format!("`name` {problem}"),
            )
            .help("use lowercase letters, digits and single hyphens, e.g. `pdf-tools`");
        if is_valid_name(&fixed) {
            let title = format!("Rename to `{fixed}`");
            report.fix(title, value.span.clone(), fixed);
        }
    }
    if !dir_name.is_empty() && name != dir_name && !name.is_empty() {
        let report = checker
            .report(
                &NAME_DIRECTORY_MISMATCH,
                value.span.clone(),
                format!("`name` is `{name}` but the directory is `{dir_name}`"),
            )
            .help(format!(
                "set `name: {dir_name}` or rename the directory to `{name}`"
            ));
        if dir_usable {
            report.fix(
                format!("Set `name` to `{dir_name}`"),
                value.span.clone(),
                dir_name.clone(),
            );
        }
    }
    if checker.enabled(&NAME_RESERVED_WORD) {
        for word in ["anthropic", "claude"] {
            if let Some(range) = find_ascii_ci(name, word) {
                let range = located(checker.text(), value, range);
                checker
                    .report(&NAME_RESERVED_WORD, range, format!("`name` contains the reserved word `{word}`"))
                    .help("Anthropic's API rejects names containing `anthropic` or `claude`; choose another name");
                break;
            }
        }
    }
    angle_brackets(checker, "name", value);
    if let Some((_, description)) = checker.entry("description") {
        angle_brackets(checker, "description", description);
    }
}

/// The name of the skill's folder, also when it was given as `.` or `..`.
fn directory_name(skill: &Skill) -> String {
    let name = skill.dir_name();
    if !name.is_empty() && name != "." && name != ".." {
        return name;
    }
    let canonical = skill.dir.canonicalize().ok();
    canonical
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

fn missing(checker: &mut Checker, dir_name: &str, dir_usable: bool) {
    let (range, insert_at) = match &checker.skill.doc.frontmatter {
        FrontmatterBlock::Closed { open, yaml, .. } => (open.clone(), yaml.start),
        _ => return,
    };
    let newline = if checker.skill.doc.has_crlf {
        "\r\n"
    } else {
        "\n"
    };
    let report = checker
        .report(&NAME_MISSING, range, "the frontmatter has no `name`")
        .help("add `name:` with the directory's name");
    if dir_usable {
        report.fix(
            format!("Add `name: {dir_name}`"),
            insert_at..insert_at,
            format!("name: {dir_name}{newline}"),
        );
    }
}

/// What is wrong with a name's format, in words.
fn format_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some("is empty".into());
    }
    if let Some(c) = name.chars().find(|c| c.is_uppercase()) {
        return Some(format!("contains the uppercase letter `{c}`"));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
    {
        let shown = if c.is_whitespace() {
            "a space".to_owned()
        } else {
            format!("`{c}`")
        };
        return Some(format!(
            "contains {shown}; only `a-z`, `0-9` and `-` are allowed"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("starts or ends with a hyphen".into());
    }
    name.contains("--")
        .then(|| "contains two hyphens in a row".into())
}

/// The file range of `range` (a range of the node's value) when the value is
/// written as-is in the source, else the whole value.
fn located(text: &str, node: &Node, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let source = &text[node.span.clone()];
    let value = node.as_str().unwrap_or_default();
    match source.find(value) {
        Some(at) if !value.is_empty() => {
            let start = node.span.start + at + range.start;
            start..start + range.len()
        }
        _ => node.span.clone(),
    }
}

fn angle_brackets(checker: &mut Checker, key: &str, node: &Node) {
    if !checker.enabled(&ANGLE_BRACKETS) {
        return;
    }
    let Some(value) = node.as_str() else { return };
    let Some(at) = value.find(['<', '>']) else {
        return;
    };
    let is_tag = value[at..].starts_with('<')
        && value[at + 1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
    let what = if is_tag {
        "an XML tag"
    } else {
        "an angle bracket"
    };
    let range = located(checker.text(), node, at..at + 1);
    checker
        .report(&ANGLE_BRACKETS, range, format!("`{key}` contains {what}"))
        .help("Anthropic's API rejects `<` and `>` in name and description; use words instead");
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn with_name(name: &str) -> String {
        format!(
            "---\nname: {name}\ndescription: Formats reports. Use when asked for a report.\n---\n"
        )
    }

    #[test]
    fn missing_name_is_added() {
        let text = "---\ndescription: Formats reports. Use when asked.\n---\n";
        assert!(fixed("HS101", text).starts_with("---\nname: my-skill\ndescription"));
        quiet("HS101", &skill_md("", ""));
        assert!(findings_for("HS101", text, Target::ClaudeCode).is_empty());
    }

    #[test]
    fn long_names() {
        fires("HS102", &with_name(&"a".repeat(65)));
        quiet("HS102", &with_name(&"a".repeat(64)));
    }

    #[test]
    fn name_format_and_its_fix() {
        let text = with_name("My_Skill");
        let d = fires("HS103", &text);
        assert_eq!(spanned(&text, &d), "My_Skill");
        assert!(fixed("HS103", &text).contains("name: my-skill\n"));
        for bad in ["-a", "a-", "a--b", "café", "\"\"", "a b"] {
            fires("HS103", &with_name(bad));
        }
        quiet("HS103", &with_name("my-skill"));
        quiet("HS103", &with_name("pdf2docx"));
    }

    #[test]
    fn name_must_match_the_directory() {
        let text = with_name("other");
        assert!(fixed("HS104", &text).contains("name: my-skill\n"));
        quiet("HS104", &with_name("my-skill"));
        assert!(findings_for("HS104", &text, Target::ClaudeCode).is_empty());
    }

    #[test]
    fn reserved_words_only_for_the_api() {
        let text = with_name("claude-helper");
        let d = fires("HS105", &text);
        assert_eq!(spanned(&text, &d), "claude");
        assert!(findings_for("HS105", &text, Target::Agentskills).is_empty());
        quiet("HS105", &with_name("my-skill"));
    }

    #[test]
    fn angle_brackets_for_the_api() {
        let text = skill_md("", "").replace("Formats reports.", "Wraps <result> tags.");
        let d = fires("HS106", &text);
        assert_eq!(spanned(&text, &d), "<");
        assert!(d.message.contains("XML tag"));
        quiet("HS106", &skill_md("", "<b>body</b>"));
    }
}
