//! HS310 `key-spelling`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::skill::claude_code_respelling;
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Claude Code 2.1.186 reads `display-name`, `default-enabled` and `fallback`
    /// (and keys under `metadata`) whether written in kebab-case, snake_case or
    /// camelCase (CHANGELOG 2.1.186: "… now accept kebab-case, snake_case, and
    /// camelCase"). Other clients and earlier Claude Code see `displayName` as an
    /// unknown key and ignore it.
    ///
    /// ```yaml
    /// displayName: PDF tools     # HS310
    /// display-name: PDF tools    # fixed
    /// ```
    ///
    /// **The issue said "the key spellings Claude Code normalises (kebab, snake,
    /// camel)" in general; the CHANGELOG names only these keys.** Claude Code's
    /// other keys are read only as documented (`allowed-tools`,
    /// `disable-model-invocation`, `when_to_use`): `allowedTools` is an unknown key
    /// for Claude Code too, reported by HS306 with a fix. Only for `claude-code`.
}

/// `HS310` at a key only Claude Code reads, in its other spelling.
pub(super) fn check(checker: &mut Checker, name: &str, key: &Node) {
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
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

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
}
