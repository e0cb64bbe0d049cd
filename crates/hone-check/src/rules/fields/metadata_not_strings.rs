//! HS303 `metadata-not-strings`: its documentation, check and tests.

use super::yaml11_boolean;
use crate::rules::yaml_text::double_quoted;
use crate::rules::{Checker, Rule};
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// The spec defines `metadata` as a map from string keys to string values.
    /// `version: 1.0` is the number 1 to PyYAML and JavaScript (`1.10` even
    /// becomes `1.1`), and nested lists or maps are not allowed at all.
    ///
    /// ```yaml
    /// metadata:
    ///   version: 1.0       # HS303
    ///   version: "1.0"     # fixed
    /// ```
    ///
    /// The fix quotes a number or boolean. **skills-ref differs:** it converts every
    /// metadata value to a string with `str()`, so it never reports this, and a
    /// `1.10` it read through PyYAML would silently become `"1.1"`.
}

/// `HS303` for each key or value of `metadata` that is not a string
/// (`HS308` for a plain YAML 1.1 boolean word).
pub(super) fn check(checker: &mut Checker, value: &Node) {
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
                yaml11_boolean::check(checker, &format!("metadata.{name}"), item, s);
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

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

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
}
