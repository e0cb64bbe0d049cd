//! HS308 `yaml11-boolean`: its documentation, check and tests.

use crate::rules::yaml_text::double_quoted;
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// In YAML 1.2 `no` is the text "no"; in YAML 1.1, which PyYAML and most Python
    /// tools implement, it is the boolean `false`. A text field written as `yes`,
    /// `no`, `on`, `off`, `y` or `n` (any case) therefore changes type with the
    /// parser.
    ///
    /// ```yaml
    /// metadata:
    ///   experimental: no      # HS308: false to PyYAML, "no" to Hone
    ///   experimental: "no"    # fixed
    /// ```
    ///
    /// The fix quotes the value. For fields that *are* booleans, see HS309.
}

/// The YAML 1.1 boolean a plain word reads as, if it is one.
pub(super) fn is_yaml11_boolean(raw: &str) -> Option<bool> {
    match raw {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// `HS308` when `value`, a string whose text is `text`, is a plain word
/// that YAML 1.1 reads as a boolean.
pub(super) fn check(checker: &mut Checker, key: &str, value: &Node, text: &str) {
    let Some(meaning) = is_yaml11_boolean(text).filter(|_| value.plain) else {
        return;
    };
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

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

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
}
