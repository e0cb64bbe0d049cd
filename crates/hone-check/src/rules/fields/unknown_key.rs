//! HS306 `unknown-key`: its documentation, check and tests.

use super::is_known_key;
use crate::fields::FIELDS;
use crate::rules::{Checker, Rule, Target};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Agents ignore keys they do not know, so a misspelt key (`Description`,
    /// `allowed_tools`) silently does nothing. Which keys are known depends on the
    /// target: `agentskills` knows the spec's six (`name`, `description`,
    /// `license`, `compatibility`, `metadata`, `allowed-tools`); `claude-code` adds
    /// Claude Code's (`when_to_use`, `argument-hint`, `disable-model-invocation`,
    /// `user-invocable`, `model`, `hooks`, …); `all` also accepts the router keys
    /// `triggers`, `tools` and `token_estimate`. A near miss of a known key gets a
    /// "did you mean" help. Keep custom data under `metadata`.
    ///
    /// **skills-ref differs:** it reports every non-spec key as an error ("Unexpected
    /// fields in frontmatter"), 330 corpus skills, mostly `source`, `risk`,
    /// `date_added` and `author`. Hone warns, because every agent loads such a
    /// skill; for Anthropic's API, where they are errors, see HS307.
}

/// `HS306` at a key the target does not know, with a rename when it
/// misspells a known one.
pub(super) fn check(checker: &mut Checker, name: &str, key: &Node) {
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

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

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
}
