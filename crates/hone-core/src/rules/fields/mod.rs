//! `HS301`–`HS311`: the other frontmatter fields: types, limits, which keys a
//! target knows, the YAML 1.1 / 1.2 boolean trap, the key spellings only
//! Claude Code normalises, and Claude Code's enumerated values.
//!
//! YAML 1.1 (PyYAML, most Python tooling) reads `yes`, `no`, `on`, `off`,
//! `y` and `n` as booleans; YAML 1.2 (Hone, the `yaml` npm package that
//! JavaScript agents use) reads them as strings. So `license: no` is the
//! boolean `false` to one agent and the text "no" to another, and
//! `disable-model-invocation: no` is a non-empty string, which JavaScript
//! treats as true.

// One module per rule: its documentation (see `Rule::doc`).
pub(crate) mod allowed_tools_commas;
pub(crate) mod allowed_tools_form;
pub(crate) mod api_unsupported_key;
pub(crate) mod boolean_as_string;
pub(crate) mod compatibility_too_long;
pub(crate) mod field_type;
pub(crate) mod field_value;
pub(crate) mod key_spelling;
pub(crate) mod metadata_not_strings;
pub(crate) mod unknown_key;
pub(crate) mod yaml11_boolean;

use super::yaml_text::{double_quoted, is_plain};
use super::{Checker, Rule, Target, char_count};
use crate::fields::{self, FIELDS, Reader, ValueType, split_tools};
use crate::skill::{bool_word, claude_code_respelling};
use crate::yaml::{Node, Value};

/// The spec's limit on `compatibility`, from the field table.
pub const MAX_COMPATIBILITY_CHARS: usize = fields::COMPATIBILITY.max_chars.unwrap();

/// Whether `key` is known to the target: read by it, as the field table
/// says, or a spelling of such a key that Claude Code normalises.
pub fn is_known_key(key: &str, target: Target) -> bool {
    let reader = match target {
        Target::Agentskills => Reader::Agentskills,
        Target::ClaudeApi => Reader::ClaudeApi,
        Target::ClaudeCode => Reader::ClaudeCode,
        Target::Copilot => Reader::Copilot,
        Target::All => {
            return fields::lookup(key).is_some() || claude_code_respelling(key).is_some();
        }
    };
    fields::lookup(key).is_some_and(|f| f.is_read_by(reader))
        || (reader == Reader::ClaudeCode && claude_code_respelling(key).is_some())
}

fn is_yaml11_boolean(raw: &str) -> Option<bool> {
    match raw {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

pub(super) fn check(checker: &mut Checker) {
    let Some(entries) = checker.root_map() else {
        return;
    };
    for (key, value) in entries {
        let Some(name) = key.as_str() else { continue };
        keys(checker, name, key);
        if !is_known_key(name, checker.target) {
            continue;
        }
        let name = claude_code_respelling(name).unwrap_or(name);
        let Some(field) = fields::lookup(name) else {
            continue;
        };
        match field.value {
            // `allowed-tools` has its own rule (HS304), which looks inside the entries.
            _ if name == "allowed-tools" => allowed_tools(checker, value),
            ValueType::String | ValueType::Text => text_field(checker, name, value),
            ValueType::Enum { values } => {
                text_field(checker, name, value);
                enumerated(checker, name, value, values);
            }
            ValueType::Boolean => bool_field(checker, name, value),
            ValueType::Map if !matches!(value.value, Value::Map(_) | Value::Null) => {
                wrong_type(checker, name, value, "a mapping");
            }
            ValueType::List { .. } => {
                let ok = match &value.value {
                    Value::String(_) | Value::Null => true,
                    Value::Seq(items) => items.iter().all(|i| i.as_str().is_some()),
                    _ => false,
                };
                if !ok {
                    wrong_type(checker, name, value, "a string or a list of strings");
                }
            }
            ValueType::Integer if !matches!(value.value, Value::Int(_) | Value::Null) => {
                wrong_type(checker, name, value, "an integer");
            }
            _ => {}
        }
        match name {
            "compatibility" => compatibility(checker, value),
            "metadata" => metadata(checker, value),
            _ => {}
        }
    }
}

/// `HS311`: a value outside the words Claude Code defines for `key`.
fn enumerated(checker: &mut Checker, key: &str, value: &Node, allowed: &[&str]) {
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

fn keys(checker: &mut Checker, name: &str, key: &Node) {
    if let Some(kebab) = claude_code_respelling(name)
        && checker.enabled(Rule::KeySpelling)
    {
        checker
            .report(
                Rule::KeySpelling,
                key.span.clone(),
                format!("Claude Code reads `{name}` as `{kebab}`; other clients (and Claude Code before 2.1.186) ignore it"),
            )
            .help(format!("write `{kebab}`, the spelling every reader knows"))
            .fix(format!("Rename to `{kebab}`"), key.span.clone(), kebab.to_owned());
    }
    if !fields::lookup(name).is_some_and(|f| f.is_read_by(Reader::ClaudeApi)) {
        checker
            .report(
                Rule::ApiUnsupportedKey,
                key.span.clone(),
                format!("`{name}` is not a spec key; Anthropic's upload rejects it"),
            )
            .help("remove it, or move it under `metadata:`");
    }
    if is_known_key(name, checker.target) || !checker.enabled(Rule::UnknownKey) {
        return;
    }
    let whose = match checker.target {
        Target::Agentskills => "the agentskills spec",
        Target::ClaudeCode => "Claude Code",
        Target::Copilot => "GitHub Copilot",
        _ => "any agent Hone knows",
    };
    let known = near_miss(name, checker.target);
    let help = match known {
        Some(known) => format!("did you mean `{known}`?"),
        None => "agents ignore it; keep custom data under `metadata:`".to_owned(),
    };
    // Only a plain key can be renamed in place, and not onto a key the
    // frontmatter already has.
    let written_plain = key.plain && key.raw.as_deref() == Some(name);
    let renamable = known.filter(|k| written_plain && checker.entry(k).is_none());
    let report = checker
        .report(
            Rule::UnknownKey,
            key.span.clone(),
            format!("`{name}` is not a key of {whose}"),
        )
        .help(help);
    if let Some(known) = renamable {
        report.fix(
            format!("Rename to `{known}`"),
            key.span.clone(),
            known.to_owned(),
        );
    }
}

/// A known key that `name` misspells by case, `-`/`_` or camelCase.
fn near_miss(name: &str, target: Target) -> Option<&'static str> {
    let canonical = |s: &str| {
        let mut out = String::with_capacity(s.len() + 4);
        for (i, c) in s.char_indices() {
            if c.is_ascii_uppercase() && i > 0 && !s[..i].ends_with(['-', '_']) {
                out.push('-');
            }
            out.push(if c == '_' {
                '-'
            } else {
                c.to_ascii_lowercase()
            });
        }
        out
    };
    let wanted = canonical(name);
    FIELDS
        .iter()
        .map(|f| f.key)
        .find(|k| is_known_key(k, target) && canonical(k) == wanted)
}

fn wrong_type(checker: &mut Checker, key: &str, value: &Node, wanted: &str) {
    let found = value.kind();
    checker
        .report(
            Rule::FieldType,
            value.span.clone(),
            format!("`{key}` should be {wanted}, not {found}"),
        )
        .help(format!("write `{key}` as {wanted}"));
}

fn text_field(checker: &mut Checker, key: &str, value: &Node) {
    match &value.value {
        Value::String(s) => {
            if value.plain
                && let Some(meaning) = is_yaml11_boolean(s)
            {
                yaml11(checker, key, value, meaning);
            }
        }
        Value::Null => {}
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
            let source = checker.text()[value.span.clone()].to_owned();
            let found = value.kind();
            checker
                .report(
                    Rule::FieldType,
                    value.span.clone(),
                    format!("`{key}` should be a string, not {found}"),
                )
                .help("quote the value so every parser reads text")
                .fix(
                    format!("Quote the value of `{key}`"),
                    value.span.clone(),
                    double_quoted(&source),
                );
        }
        _ => wrong_type(checker, key, value, "a string"),
    }
}

fn yaml11(checker: &mut Checker, key: &str, value: &Node, meaning: bool) {
    let raw = checker.text()[value.span.clone()].to_owned();
    checker
        .report(
            Rule::Yaml11Boolean,
            value.span.clone(),
            format!(
                "`{key}: {raw}` is text in YAML 1.2 but the boolean {meaning} in YAML 1.1 (PyYAML)"
            ),
        )
        .help("quote it so every parser reads text")
        .fix(
            format!("Quote `{raw}`"),
            value.span.clone(),
            double_quoted(&raw),
        );
}

fn bool_field(checker: &mut Checker, key: &str, value: &Node) {
    let meaning = match &value.value {
        Value::Bool(_) | Value::Null => return,
        Value::Int(1) => Some(true),
        Value::Int(0) => Some(false),
        Value::String(s) if value.plain => bool_word(s).or_else(|| is_yaml11_boolean(s)),
        Value::String(s) => bool_word(s).or_else(|| is_yaml11_boolean(s.trim())),
        _ => None,
    };
    let Some(meaning) = meaning else {
        wrong_type(checker, key, value, "a boolean (`true` or `false`)");
        return;
    };
    let written = checker.text()[value.span.clone()].to_owned();
    let claude_reads = match &value.value {
        Value::Int(_) => true,
        Value::String(s) => bool_word(s).is_some(),
        _ => false,
    };
    let message = if claude_reads {
        format!(
            "`{key}: {written}` is a boolean only to Claude Code 2.1.218+; other agents read a string or a number, and JavaScript treats any non-empty string as true"
        )
    } else {
        format!(
            "`{key}: {written}` is a string, not a boolean; JavaScript treats any non-empty string as true"
        )
    };
    checker
        .report(Rule::BooleanAsString, value.span.clone(), message)
        .help(format!("write `{key}: {meaning}`"))
        .fix(
            format!("Write `{meaning}`"),
            value.span.clone(),
            meaning.to_string(),
        );
}

fn compatibility(checker: &mut Checker, value: &Node) {
    let Some(text) = value.as_str() else { return };
    let chars = char_count(text);
    let message = if text.trim().is_empty() {
        "`compatibility` is empty".to_owned()
    } else if chars > MAX_COMPATIBILITY_CHARS {
        format!("`compatibility` has {chars} characters; the limit is {MAX_COMPATIBILITY_CHARS}")
    } else {
        return;
    };
    checker
        .report(Rule::CompatibilityTooLong, value.span.clone(), message)
        .help("state the environment in one or two sentences; put detail in the body");
}

fn metadata(checker: &mut Checker, value: &Node) {
    let Some(entries) = value.as_map() else {
        return;
    };
    for (key, item) in entries {
        if key.as_str().is_none() {
            let shown = key.key_string();
            checker
                .report(
                    Rule::MetadataNotStrings,
                    key.span.clone(),
                    format!("the metadata key `{shown}` is {}, not a string", key.kind()),
                )
                .help("quote the key");
        }
        let name = key.key_string();
        match &item.value {
            Value::String(s) => {
                if item.plain
                    && let Some(meaning) = is_yaml11_boolean(s)
                {
                    yaml11(checker, &format!("metadata.{name}"), item, meaning);
                }
            }
            Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Null => {
                let source = checker.text()[item.span.clone()].to_owned();
                let report = checker
                    .report(
                        Rule::MetadataNotStrings,
                        item.span.clone(),
                        format!("`metadata.{name}` is {}, not a string", item.kind()),
                    )
                    .help("quote the value: the spec's metadata values are strings");
                if !source.is_empty() {
                    report.fix("Quote the value", item.span.clone(), double_quoted(&source));
                }
            }
            _ => {
                checker
                    .report(
                        Rule::MetadataNotStrings,
                        item.span.clone(),
                        format!("`metadata.{name}` is {}, not a string", item.kind()),
                    )
                    .help("metadata maps strings to strings; flatten the value into a string");
            }
        }
    }
}

fn allowed_tools(checker: &mut Checker, value: &Node) {
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
                commas(checker, value, s);
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

fn commas(checker: &mut Checker, value: &Node, s: &str) {
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
    use super::super::testing::*;
    use super::*;

    /// The limits the rules enforce are the field table's: quiet at the
    /// table's figure, firing one character over it.
    #[test]
    fn limits_are_the_tables() {
        let over = |field: &fields::Field| field.max_chars.unwrap() + 1;
        let a = |n: usize| "a".repeat(n);
        let with_name = |n| format!("---\nname: {}\ndescription: Use when asked.\n---\n", a(n));
        fires(Rule::NameTooLong, &with_name(over(&fields::NAME)));
        quiet(Rule::NameTooLong, &with_name(over(&fields::NAME) - 1));
        let with_description = |n| format!("---\nname: my-skill\ndescription: {}\n---\n", a(n));
        fires(
            Rule::DescriptionTooLong,
            &with_description(over(&fields::DESCRIPTION)),
        );
        quiet(
            Rule::DescriptionTooLong,
            &with_description(over(&fields::DESCRIPTION) - 1),
        );
        let with_compatibility = |n| skill_md(&format!("compatibility: {}\n", a(n)), "");
        fires(
            Rule::CompatibilityTooLong,
            &with_compatibility(over(&fields::COMPATIBILITY)),
        );
        quiet(
            Rule::CompatibilityTooLong,
            &with_compatibility(over(&fields::COMPATIBILITY) - 1),
        );
        let listed = fields::DESCRIPTION.listing_chars.unwrap();
        let description = fields::DESCRIPTION.max_chars.unwrap();
        let with_when = |n| {
            format!(
                "---\nname: my-skill\ndescription: {}\nwhen_to_use: {}\n---\n",
                a(description),
                a(n)
            )
        };
        let code = Target::ClaudeCode;
        let fired = findings_for(
            Rule::ListingTruncated,
            &with_when(listed - description + 1),
            code,
        );
        assert_eq!(fired.len(), 1);
        assert!(
            findings_for(
                Rule::ListingTruncated,
                &with_when(listed - description),
                code
            )
            .is_empty()
        );
    }

    /// Every enumerated value of the table passes HS311 and HS306 for Claude Code.
    #[test]
    fn enumerated_values_are_the_tables() {
        for field in FIELDS {
            let ValueType::Enum { values } = field.value else {
                continue;
            };
            for value in values {
                let text = skill_md(&format!("{}: {value}\n", field.key), "");
                assert!(findings_for(Rule::FieldValue, &text, Target::ClaudeCode).is_empty());
                assert!(findings_for(Rule::UnknownKey, &text, Target::ClaudeCode).is_empty());
            }
        }
    }

    /// The rule docs that spell out the table's facts name each of them: the
    /// spec's keys (HS306, HS307), the boolean keys (HS309), the enumerated
    /// values (HS311).
    #[test]
    fn rule_docs_name_the_tables_facts() {
        for field in FIELDS {
            let key = format!("`{}`", field.key);
            if field.is_read_by(Reader::Agentskills) {
                assert!(
                    Rule::UnknownKey.doc().contains(&key),
                    "HS306 doc lacks {key}"
                );
                assert!(
                    Rule::ApiUnsupportedKey.doc().contains(&key),
                    "HS307 doc lacks {key}"
                );
            }
            match field.value {
                ValueType::Boolean => {
                    assert!(
                        Rule::BooleanAsString.doc().contains(&key),
                        "HS309 doc lacks {key}"
                    );
                }
                ValueType::Enum { values } => {
                    assert!(
                        Rule::FieldValue.doc().contains(&key),
                        "HS311 doc lacks {key}"
                    );
                    for value in values {
                        let value = format!("`{value}`");
                        assert!(
                            Rule::FieldValue.doc().contains(&value),
                            "HS311 doc lacks {value}"
                        );
                    }
                }
                _ => {}
            }
        }
    }

    #[test]
    fn wrong_types() {
        let text = skill_md("license: 2.0\n", "");
        let d = fires(Rule::FieldType, &text);
        assert_eq!(spanned(&text, &d), "2.0");
        assert!(fixed(Rule::FieldType, &text).contains("license: \"2.0\"\n"));
        fires(Rule::FieldType, &skill_md("metadata: [a]\n", ""));
        fires(Rule::FieldType, &skill_md("token_estimate: many\n", ""));
        fires(
            Rule::FieldType,
            "---\nname: [a]\ndescription: Use when asked.\n---\n",
        );
        quiet(
            Rule::FieldType,
            &skill_md("license: MIT\nmetadata:\n  a: b\ntoken_estimate: 10\n", ""),
        );
    }

    #[test]
    fn compatibility_length() {
        fires(
            Rule::CompatibilityTooLong,
            &skill_md(&format!("compatibility: {}\n", "x".repeat(501)), ""),
        );
        fires(
            Rule::CompatibilityTooLong,
            &skill_md("compatibility: \"\"\n", ""),
        );
        quiet(
            Rule::CompatibilityTooLong,
            &skill_md("compatibility: Needs Python 3.10.\n", ""),
        );
    }

    #[test]
    fn metadata_values_are_strings() {
        let text = skill_md("metadata:\n  version: 1.0\n  tags: [a]\n", "");
        let found = findings(Rule::MetadataNotStrings, &text);
        assert_eq!(found.len(), 2, "{found:#?}");
        let fix = found[0].fix.as_ref().unwrap();
        assert!(fix.apply(&text).unwrap().contains("version: \"1.0\""));
        quiet(
            Rule::MetadataNotStrings,
            &skill_md("metadata:\n  version: \"1.0\"\n", ""),
        );
    }

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

    #[test]
    fn unknown_keys_depend_on_the_target() {
        let text = skill_md("when_to_use: When asked.\nsource: x\n", "");
        let spec = findings_for(Rule::UnknownKey, &text, Target::Agentskills);
        assert_eq!(spec.len(), 2);
        let code = findings_for(Rule::UnknownKey, &text, Target::ClaudeCode);
        assert_eq!(code.len(), 1);
        assert_eq!(spanned(&text, &code[0]), "source");
        let typo = fires(Rule::UnknownKey, &skill_md("Allowed_Tools: Read\n", ""));
        assert_eq!(typo.help.as_deref(), Some("did you mean `allowed-tools`?"));
        quiet(Rule::UnknownKey, &skill_md("license: MIT\n", ""));
    }

    #[test]
    fn api_rejects_non_spec_keys() {
        let text = skill_md("when_to_use: When asked.\n", "");
        assert_eq!(
            findings_for(Rule::ApiUnsupportedKey, &text, Target::ClaudeApi).len(),
            1
        );
        assert!(findings_for(Rule::ApiUnsupportedKey, &text, Target::ClaudeCode).is_empty());
        quiet(Rule::ApiUnsupportedKey, &skill_md("license: MIT\n", ""));
    }

    #[test]
    fn yaml11_booleans_in_text_fields() {
        let text = skill_md("license: no\n", "");
        assert!(fixed(Rule::Yaml11Boolean, &text).contains("license: \"no\"\n"));
        fires(
            Rule::Yaml11Boolean,
            &skill_md("metadata:\n  internal: Yes\n", ""),
        );
        quiet(
            Rule::Yaml11Boolean,
            &skill_md("license: \"no\"\nmetadata:\n  internal: \"yes\"\n", ""),
        );
    }

    /// Claude Code CHANGELOG 2.1.218: yes/no/on/off/1/0 in any case are
    /// frontmatter booleans to Claude Code, not to YAML 1.2 readers.
    #[test]
    fn claude_code_booleans_are_a_portability_warning() {
        for (written, meaning) in [
            ("Yes", "true"),
            ("OFF", "false"),
            ("1", "true"),
            ("0", "false"),
        ] {
            let text = skill_md(&format!("background: {written}\n"), "");
            let d = fires(Rule::BooleanAsString, &text);
            assert!(d.message.contains("Claude Code 2.1.218"), "{d:?}");
            assert!(
                fixed(Rule::BooleanAsString, &text).contains(&format!("background: {meaning}\n"))
            );
            quiet(Rule::FieldType, &text);
        }
        fires(Rule::FieldType, &skill_md("background: 2\n", ""));
    }

    /// Claude Code CHANGELOG 2.1.186: only these keys take other spellings.
    #[test]
    fn respelled_keys_are_portability_findings() {
        let text = skill_md("displayName: PDF tools\n", "");
        let d = findings_for(Rule::KeySpelling, &text, Target::ClaudeCode);
        assert_eq!(d.len(), 1);
        let out = d[0].fix.as_ref().unwrap().apply(&text).unwrap();
        assert!(out.contains("display-name: PDF tools\n"), "{out}");
        assert!(findings_for(Rule::UnknownKey, &text, Target::ClaudeCode).is_empty());
        assert_eq!(
            findings_for(Rule::UnknownKey, &text, Target::Agentskills).len(),
            1
        );
        // Claude Code does not normalise its other keys: an unknown key, renamed by the fix.
        let camel = skill_md("disableModelInvocation: true\n", "");
        let d = findings_for(Rule::UnknownKey, &camel, Target::ClaudeCode);
        assert_eq!(
            d[0].help.as_deref(),
            Some("did you mean `disable-model-invocation`?")
        );
        let out = d[0].fix.as_ref().unwrap().apply(&camel).unwrap();
        assert!(out.contains("disable-model-invocation: true\n"), "{out}");
        assert!(findings_for(Rule::KeySpelling, &camel, Target::ClaudeCode).is_empty());
    }

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

    /// Copilot knows the spec's keys and three of its own.
    #[test]
    fn copilot_known_keys() {
        let text = skill_md("argument-hint: \"[file]\"\nwhen_to_use: x\n", "");
        let d = findings_for(Rule::UnknownKey, &text, Target::Copilot);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].message
                .contains("`when_to_use` is not a key of GitHub Copilot")
        );
    }

    #[test]
    fn booleans_written_as_strings() {
        let text = skill_md("disable-model-invocation: no\n", "");
        assert!(fixed(Rule::BooleanAsString, &text).contains("disable-model-invocation: false\n"));
        let quoted = skill_md("user-invocable: \"true\"\n", "");
        assert!(fixed(Rule::BooleanAsString, &quoted).contains("user-invocable: true\n"));
        quiet(
            Rule::BooleanAsString,
            &skill_md("disable-model-invocation: false\n", ""),
        );
    }
}
