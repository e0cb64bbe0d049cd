//! HS013 `yaml-tag`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// YAML lets a value carry a tag naming its type. Loaders meant for untrusted
    /// files refuse the language-specific ones: PyYAML's `safe_load` (used by
    /// skill-creator's scripts and most Python agents) raises "could not determine a
    /// constructor" for `!!python/object`, `!!python/name:…` and local tags such as
    /// `!secret`, strictyaml (skills-ref) rejects tags altogether, and `js-yaml`'s
    /// default schema has no Python types. `!!binary` loads, but as bytes, not the
    /// text an agent expects. Hone reads the value as its untagged text.
    ///
    /// ```yaml
    /// description: !!python/str Reads PDFs.   # HS013
    /// description: Reads PDFs.                # fixed
    /// ```
    ///
    /// The core schema's own tags (`!!str`, `!!int`, `!!bool`, `!!float`, `!!null`,
    /// `!!map`, `!!seq`) are safe and not reported. No fix is offered: what the tag
    /// was meant to do is the author's call.
}

/// Tags of the YAML core schema, which every loader resolves.
const CORE_TAGS: &[&str] = &[
    "!!str", "!!int", "!!bool", "!!float", "!!null", "!!map", "!!seq",
];

/// Explicit tags outside the core schema, anywhere in the tree.
pub(super) fn check(checker: &mut Checker, root: &Node) {
    root.walk(&mut |node| {
        let Some(tag) = node.tag.as_deref().filter(|t| !CORE_TAGS.contains(t)) else {
            return;
        };
        let who = if tag.starts_with("!!binary") {
            "loads as bytes, not text, in PyYAML and the `yaml` npm package"
        } else if tag.starts_with("!!python/") {
            "is refused by PyYAML's `safe_load`, js-yaml and strictyaml (skills-ref)"
        } else {
            "is refused by PyYAML's `safe_load` and strictyaml (skills-ref), and left unresolved by the `yaml` npm package"
        };
        checker
            .report(
                Rule::YamlTag,
                node.span.clone(),
                format!("the YAML tag `{tag}` {who}"),
            )
            .help("remove the tag; frontmatter values are plain text, lists and mappings");
    });
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    /// PyYAML `safe_load` refuses python tags ("could not determine a
    /// constructor"); strictyaml refuses tags.
    #[test]
    fn yaml_tags_outside_the_core_schema() {
        let d = fires(
            Rule::YamlTag,
            &skill_md("metadata:\n  data: !!binary aGk=\n", ""),
        );
        assert!(d.message.contains("bytes"), "{d:?}");
        let d = fires(Rule::YamlTag, &skill_md("license: !!python/str MIT\n", ""));
        assert!(d.message.contains("safe_load"), "{d:?}");
        quiet(Rule::YamlTag, &skill_md("license: !!str MIT\n", ""));
    }
}
