//! HS004 `frontmatter-not-mapping`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// The frontmatter must be a YAML mapping (`key: value` lines). An empty block,
    /// a list or a lone string parses as YAML but gives an agent no `name` or
    /// `description`.
    ///
    /// ```yaml
    /// ---
    /// - name: pdf-tools       # HS004: a list, not a mapping
    /// ---
    /// ```
}

pub(super) fn check(checker: &mut Checker, root: &Node, open: std::ops::Range<usize>) {
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

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn not_a_mapping() {
        let text = "---\n- name: x\n---\n";
        fires(Rule::FrontmatterNotMapping, text);
        fires(Rule::FrontmatterNotMapping, "---\n---\nbody");
        quiet(Rule::FrontmatterNotMapping, &skill_md("", ""));
    }
}
