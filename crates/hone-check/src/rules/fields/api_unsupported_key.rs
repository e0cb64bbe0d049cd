//! HS307 `api-unsupported-key`: its documentation, check and tests.

use crate::fields::{self, Reader};
use crate::rules::{Checker, Rule};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Anthropic's upload and Skills API accept only the spec's frontmatter keys:
    /// `name`, `description`, `license`, `compatibility`, `metadata` and
    /// `allowed-tools`. Anything else (including Claude Code's own keys) fails the
    /// upload. Move custom data under `metadata`. Only for `claude-api`.
}

/// `HS307` at a key Anthropic's upload does not take.
pub(super) fn check(checker: &mut Checker, name: &str, key: &Node) {
    if !fields::lookup(name).is_some_and(|f| f.is_read_by(Reader::ClaudeApi)) {
        checker
            .report(
                Rule::ApiUnsupportedKey,
                key.span.clone(),
                format!("`{name}` is not a spec key; Anthropic's upload rejects it"),
            )
            .help("remove it, or move it under `metadata:`");
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

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
}
