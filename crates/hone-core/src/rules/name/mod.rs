//! `HS101`–`HS106`: the `name` field, the skill's identity. Agents use it to
//! load and invoke the skill, so the spec constrains it tightly.

// One module per rule: its documentation (see `Rule::doc`).
pub(crate) mod angle_brackets;
pub(crate) mod copilot_name_characters;
pub(crate) mod name_directory_mismatch;
pub(crate) mod name_format;
pub(crate) mod name_missing;
pub(crate) mod name_reserved_word;
pub(crate) mod name_too_long;
pub(crate) mod reserved_folder_name;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use super::yaml_text::find_ascii_ci;
use super::{Checker, Rule, Target, char_count};
use crate::document::FrontmatterBlock;
use crate::fields;
use crate::skill::Skill;
use crate::yaml::{Node, Value};

/// The spec's limit on `name`, from the field table.
pub const MAX_NAME_CHARS: usize = fields::NAME.max_chars.unwrap();

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
    reserved_folder(checker, &dir_name);
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
                Rule::NameTooLong,
                value.span.clone(),
                format!("`name` has {chars} characters; the limit is {MAX_NAME_CHARS}"),
            )
            .help("shorten the name, and rename the directory to match");
    }
    if checker.enabled(Rule::CopilotName)
        && let Some(c) = name
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ')))
    {
        checker
            .report(
                Rule::CopilotName,
                value.span.clone(),
                format!(
                    "`name` contains {}, which GitHub Copilot CLI refuses",
                    shown_char(c)
                ),
            )
            .help("Copilot CLI takes only letters, digits, `-`, `_`, `.` and spaces in a name");
    }
    if let Some(problem) = format_problem(name) {
        let fixed = slug(name);
        let report = checker
            .report(
                Rule::NameFormat,
                value.span.clone(),
                format!("`name` {problem}"),
            )
            .help("use lowercase letters, digits and single hyphens, e.g. `pdf-tools`");
        if is_valid_name(&fixed) {
            let title = format!("Rename to `{fixed}`");
            report.fix(title, value.span.clone(), fixed);
        }
    }
    if !dir_name.is_empty() && !name.is_empty() && differs(name, &dir_name, checker.target) {
        let message = if looks_alike(name, &dir_name) {
            format!(
                "`name` is `{name}` ({}) but the directory is `{dir_name}` ({}): they look alike but are different characters",
                code_points(name),
                code_points(&dir_name)
            )
        } else {
            format!("`name` is `{name}` but the directory is `{dir_name}`")
        };
        let report = checker
            .report(Rule::NameDirectoryMismatch, value.span.clone(), message)
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
    if checker.enabled(Rule::NameReservedWord) {
        for word in ["anthropic", "claude"] {
            if let Some(range) = find_ascii_ci(name, word) {
                let range = located(checker.text(), value, range);
                checker
                    .report(Rule::NameReservedWord, range, format!("`name` contains the reserved word `{word}`"))
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

/// Whether `name` and the folder differ for `target`: skills-ref (and so
/// `agentskills`, and `all`, which judges by the most lenient reader)
/// compares NFKC forms; Anthropic's upload compares the text as written.
fn differs(name: &str, dir: &str, target: Target) -> bool {
    if name == dir {
        return false;
    }
    match target {
        Target::ClaudeApi => name != dir,
        _ => name.nfkc().ne(dir.nfkc()),
    }
}

/// Two different strings that read the same: equal after NFKC normalisation.
fn looks_alike(a: &str, b: &str) -> bool {
    a != b && a.nfkc().eq(b.nfkc())
}

/// `U+0063 U+0061 …`: the code points of `s`.
fn code_points(s: &str) -> String {
    s.chars()
        .map(|c| format!("U+{:04X}", c as u32))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A character for a message: quoted when it shows on its own, else by code
/// point (a bare combining accent would attach itself to the quote).
fn shown_char(c: char) -> String {
    let invisible = is_combining_mark(c)
        || c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}');
    if c.is_whitespace() {
        if c == ' ' {
            "a space".to_owned()
        } else {
            format!("the space character U+{:04X}", c as u32)
        }
    } else if invisible {
        format!(
            "U+{:04X} (a character that does not show on its own)",
            c as u32
        )
    } else {
        format!("`{c}` (U+{:04X})", c as u32)
    }
}

/// The folder names Claude Code reserves for synced skills.
const RESERVED_FOLDERS: &[&str] = &["synced", "anthropic-skills"];

/// `HS107`: a skill folder with a name Claude Code keeps for itself.
fn reserved_folder(checker: &mut Checker, dir_name: &str) {
    if !checker.enabled(Rule::ReservedFolder) || !RESERVED_FOLDERS.contains(&dir_name) {
        return;
    }
    let range = checker
        .entry("name")
        .map_or(0..0, |(_, value)| value.span.clone());
    checker
        .report(
            Rule::ReservedFolder,
            range,
            format!("the folder name `{dir_name}` is reserved by Claude Code for skills synced from claude.ai"),
        )
        .help("rename the folder (and `name`) so Claude Code does not take it for a synced skill");
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
        .report(Rule::NameMissing, range, "the frontmatter has no `name`")
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
        let shown = shown_char(c);
        let others = if c.is_alphanumeric() || is_combining_mark(c) {
            " (skills-ref accepts Unicode letters after NFKC; the spec's `a-z` and Anthropic's upload do not)"
        } else {
            ""
        };
        return Some(format!(
            "contains {shown}; only `a-z`, `0-9` and `-` are allowed{others}"
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
    if !checker.enabled(Rule::AngleBrackets) {
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
        .report(
            Rule::AngleBrackets,
            range,
            format!("`{key}` contains {what}"),
        )
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
        assert!(fixed(Rule::NameMissing, text).starts_with("---\nname: my-skill\ndescription"));
        quiet(Rule::NameMissing, &skill_md("", ""));
        assert!(findings_for(Rule::NameMissing, text, Target::ClaudeCode).is_empty());
    }

    #[test]
    fn long_names() {
        fires(Rule::NameTooLong, &with_name(&"a".repeat(65)));
        quiet(Rule::NameTooLong, &with_name(&"a".repeat(64)));
    }

    #[test]
    fn name_format_and_its_fix() {
        let text = with_name("My_Skill");
        let d = fires(Rule::NameFormat, &text);
        assert_eq!(spanned(&text, &d), "My_Skill");
        assert!(fixed(Rule::NameFormat, &text).contains("name: my-skill\n"));
        for bad in ["-a", "a-", "a--b", "café", "\"\"", "a b"] {
            fires(Rule::NameFormat, &with_name(bad));
        }
        quiet(Rule::NameFormat, &with_name("my-skill"));
        quiet(Rule::NameFormat, &with_name("pdf2docx"));
    }

    #[test]
    fn name_must_match_the_directory() {
        let text = with_name("other");
        assert!(fixed(Rule::NameDirectoryMismatch, &text).contains("name: my-skill\n"));
        quiet(Rule::NameDirectoryMismatch, &with_name("my-skill"));
        assert!(findings_for(Rule::NameDirectoryMismatch, &text, Target::ClaudeCode).is_empty());
    }

    /// skills-ref `test_nfkc_normalization` (agentskills/agentskills,
    /// skills-ref/tests/test_validator.py): a decomposed `café` in a folder
    /// named with the composed one matches after NFKC.
    #[test]
    fn names_and_folders_compare_after_nfkc_where_the_reference_does() {
        let decomposed = "cafe\u{301}";
        let text = with_name(decomposed);
        let (_tmp, skill) = skill_with_files("caf\u{e9}", &text, &[]);
        assert!(findings_of(Rule::NameDirectoryMismatch, &skill, Target::Agentskills).is_empty());
        let api = findings_of(Rule::NameDirectoryMismatch, &skill, Target::ClaudeApi);
        assert_eq!(api.len(), 1);
        assert!(
            api[0].message.contains("U+0065 U+0301"),
            "{}",
            api[0].message
        );
        assert!(api[0].message.contains("U+00E9"), "{}", api[0].message);
        assert!(api[0].message.contains("look alike"), "{}", api[0].message);
    }

    /// A bare combining mark is named by its code point, not quoted.
    #[test]
    fn name_format_names_invisible_characters_by_code_point() {
        let d = fires(Rule::NameFormat, &with_name("cafe\u{301}"));
        assert!(d.message.contains("U+0301"), "{}", d.message);
        assert!(!d.message.contains("`\u{301}`"), "{}", d.message);
        let d = fires(Rule::NameFormat, &with_name("caf\u{e9}"));
        assert!(d.message.contains("skills-ref accepts"), "{}", d.message);
    }

    /// Copilot CLI: "Skill name must contain only letters, numbers, hyphens,
    /// underscores, dots, and spaces" (github/copilot-cli #1766).
    #[test]
    fn copilot_refuses_colons_and_slashes() {
        for bad in ["tools:deploy", "a/b"] {
            assert_eq!(
                findings_for(Rule::CopilotName, &with_name(bad), Target::Copilot).len(),
                1
            );
        }
        for fine in ["My Skill", "my_skill.v2", "my-skill"] {
            assert!(findings_for(Rule::CopilotName, &with_name(fine), Target::Copilot).is_empty());
        }
        assert!(findings_for(Rule::CopilotName, &with_name("a:b"), Target::ClaudeCode).is_empty());
    }

    /// Copilot's docs: **name** (required).
    #[test]
    fn copilot_requires_a_name() {
        let text = "---\ndescription: Formats reports. Use when asked.\n---\n";
        assert_eq!(
            findings_for(Rule::NameMissing, text, Target::Copilot).len(),
            1
        );
    }

    /// Claude Code reserves `synced` and `anthropic-skills` for skills synced
    /// from claude.ai (CHANGELOG 2.1.211, 2.1.228).
    #[test]
    fn reserved_folder_names_for_claude_code() {
        let (_tmp, skill) = skill_with_files("synced", &with_name("synced"), &[]);
        assert_eq!(
            findings_of(Rule::ReservedFolder, &skill, Target::ClaudeCode).len(),
            1
        );
        assert!(findings_of(Rule::ReservedFolder, &skill, Target::Agentskills).is_empty());
        let (_tmp, skill) = skill_with_files("my-skill", &with_name("my-skill"), &[]);
        assert!(findings_of(Rule::ReservedFolder, &skill, Target::ClaudeCode).is_empty());
    }

    #[test]
    fn reserved_words_only_for_the_api() {
        let text = with_name("claude-helper");
        let d = fires(Rule::NameReservedWord, &text);
        assert_eq!(spanned(&text, &d), "claude");
        assert!(findings_for(Rule::NameReservedWord, &text, Target::Agentskills).is_empty());
        quiet(Rule::NameReservedWord, &with_name("my-skill"));
    }

    #[test]
    fn angle_brackets_for_the_api() {
        let text = skill_md("", "").replace("Formats reports.", "Wraps <result> tags.");
        let d = fires(Rule::AngleBrackets, &text);
        assert_eq!(spanned(&text, &d), "<");
        assert!(d.message.contains("XML tag"));
        quiet(Rule::AngleBrackets, &skill_md("", "<b>body</b>"));
    }
}
