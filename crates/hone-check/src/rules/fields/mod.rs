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
//!
//! Each rule is checked in its own module; this one walks the frontmatter's
//! keys once and calls the rules that apply to each key.

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

use super::{Checker, Target};
use crate::fields::{self, Reader, ValueType};
use crate::skill::claude_code_respelling;
use crate::yaml::Value;

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

pub(super) fn check(checker: &mut Checker) {
    let Some(entries) = checker.root_map() else {
        return;
    };
    for (key, value) in entries {
        let Some(name) = key.as_str() else { continue };
        key_spelling::check(checker, name, key);
        api_unsupported_key::check(checker, name, key);
        unknown_key::check(checker, name, key);
        if !is_known_key(name, checker.target) {
            continue;
        }
        let name = claude_code_respelling(name).unwrap_or(name);
        let Some(field) = fields::lookup(name) else {
            continue;
        };
        match field.value {
            // `allowed-tools` has its own rule (HS304), which looks inside the entries.
            _ if name == "allowed-tools" => allowed_tools_form::check(checker, value),
            ValueType::String | ValueType::Text => field_type::text_field(checker, name, value),
            ValueType::Enum { values } => {
                field_type::text_field(checker, name, value);
                field_value::check(checker, name, value, values);
            }
            ValueType::Boolean => boolean_as_string::check(checker, name, value),
            ValueType::Map if !matches!(value.value, Value::Map(_) | Value::Null) => {
                field_type::wrong_type(checker, name, value, "a mapping");
            }
            ValueType::List { .. } => {
                let ok = match &value.value {
                    Value::String(_) | Value::Null => true,
                    Value::Seq(items) => items.iter().all(|i| i.as_str().is_some()),
                    _ => false,
                };
                if !ok {
                    field_type::wrong_type(checker, name, value, "a string or a list of strings");
                }
            }
            ValueType::Integer if !matches!(value.value, Value::Int(_) | Value::Null) => {
                field_type::wrong_type(checker, name, value, "an integer");
            }
            _ => {}
        }
        match name {
            "compatibility" => compatibility_too_long::check(checker, value),
            "metadata" => metadata_not_strings::check(checker, value),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::fields::FIELDS;

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
}
