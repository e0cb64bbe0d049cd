//! HS204 `listing-truncated`: its documentation, check and tests.

use super::LISTING_CAP_CHARS;
use crate::rules::{Checker, Rule, char_count};
use crate::yaml::Node;

crate::rules::rule_doc! {
    /// Claude Code lists each skill to the model as its description followed by
    /// `when_to_use`, cut at 1,536 characters. Text past the cap is never seen, and
    /// the trigger phrases at the end of a long description are the first to go.
    /// Put the "Use when …" part first, or shorten. Only for `claude-code`.
    ///
    /// The cap is the setting `skillListingMaxDescChars` (default 1,536; Claude
    /// Code CHANGELOG 2.1.129). Where the library's project `.claude/settings.json`
    /// or `settings.local.json` sets it, HS204 checks against that value; the
    /// user's own `~/.claude/settings.json` is not read, so a check gives the same
    /// verdict on every machine.
}

/// `HS204` when `description` (`value`, whose text is `text`) and
/// `when_to_use` together are over the listing's cap.
pub(super) fn check(checker: &mut Checker, value: &Node, text: &str, when_text: &str) {
    let listed = char_count(text) + char_count(when_text);
    let cap = checker.listing_cap;
    if listed <= cap {
        return;
    }
    let whose = if cap == LISTING_CAP_CHARS {
        ""
    } else {
        " (skillListingMaxDescChars in the project's .claude/settings.json)"
    };
    checker
        .report(Rule::ListingTruncated, value.span.clone(), format!("description and when_to_use have {listed} characters; Claude Code lists only the first {cap}{whose}"))
        .help("shorten, and put the \"Use when ...\" part first");
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

    #[test]
    fn listing_cap_for_claude_code() {
        let long = format!(
            "---\nname: my-skill\ndescription: {}\nwhen_to_use: {}\n---\n",
            "a".repeat(1000),
            "b".repeat(600)
        );
        assert_eq!(
            findings_for(Rule::ListingTruncated, &long, Target::ClaudeCode).len(),
            1
        );
        assert!(findings_for(Rule::ListingTruncated, &long, Target::Agentskills).is_empty());
        quiet(Rule::ListingTruncated, &skill_md("", ""));
    }

    /// Claude Code CHANGELOG 2.1.129: `skillListingMaxDescChars` sets the
    /// cap; HS204 follows the library's project settings.
    #[test]
    fn listing_cap_follows_the_project_settings() {
        use crate::library::{Filters, Library};
        use crate::rules::check_library;
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("skills");
        let skill = lib.join("my-skill");
        std::fs::create_dir_all(&skill).unwrap();
        let text = format!(
            "---\nname: my-skill\ndescription: Use when asked. {}\n---\nBody\n",
            "word ".repeat(40)
        );
        std::fs::write(skill.join("SKILL.md"), text).unwrap();
        let hs204 = |lib: &std::path::Path| -> Vec<String> {
            let library = Library::open(&[lib.to_path_buf()], &Filters::default()).unwrap();
            check_library(&library, Target::ClaudeCode)
                .into_iter()
                .filter(|d| d.code == "HS204")
                .map(|d| d.message)
                .collect()
        };
        assert!(hs204(&lib).is_empty(), "215 characters fit 1,536");
        std::fs::create_dir_all(tmp.path().join(".claude")).unwrap();
        std::fs::write(
            tmp.path().join(".claude/settings.json"),
            r#"{"skillListingMaxDescChars": 100}"#,
        )
        .unwrap();
        let found = hs204(&lib);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("only the first 100 (skillListingMaxDescChars"),
            "{}",
            found[0]
        );
        // A cap above the default silences a long description.
        std::fs::write(
            tmp.path().join(".claude/settings.json"),
            r#"{"skillListingMaxDescChars": 4000}"#,
        )
        .unwrap();
        let long = format!(
            "---\nname: my-skill\ndescription: Use when asked. {}\n---\nBody\n",
            "word ".repeat(400)
        );
        std::fs::write(skill.join("SKILL.md"), long).unwrap();
        assert!(hs204(&lib).is_empty());
    }
}
