//! HS007 `duplicate-key`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// YAML requires keys to be unique, but parsers differ on what to do when they
    /// are not: PyYAML silently keeps the *last* value, while the `yaml` and
    /// `js-yaml` npm packages and strictyaml (skills-ref) reject the whole file. So
    /// one agent loads the skill with the second value and another drops it.
    ///
    /// ```yaml
    /// description: Reads PDFs.
    /// description: Reads and fills PDFs.   # HS007: remove one
    /// ```
    ///
    /// No fix is offered: only the author knows which value is meant.
}

/// Reports repeated keys in every mapping of the tree.
pub(super) fn check(checker: &mut Checker, root: &Node) {
    root.walk(&mut |node| {
        let Value::Map(entries) = &node.value else {
            return;
        };
        for (i, (key, _)) in entries.iter().enumerate() {
            let name = key.key_string();
            if entries[..i].iter().any(|(k, _)| k.key_string() == name) {
                checker
                    .report(
                        Rule::DuplicateKey,
                        key.span.clone(),
                        format!("`{name}` appears more than once"),
                    )
                    .help("PyYAML keeps the last value, other parsers reject the file; keep one");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn duplicate_keys() {
        let text = skill_md("license: MIT\nlicense: Apache-2.0\n", "");
        let d = fires(Rule::DuplicateKey, &text);
        assert_eq!(d.span.start.line, 5);
        quiet(Rule::DuplicateKey, &skill_md("license: MIT\n", ""));
    }
}
