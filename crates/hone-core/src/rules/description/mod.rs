//! `HS201`–`HS206`: the `description`, the only text an agent sees when it
//! decides whether to load a skill. It must exist, fit the limits, and say
//! *when* to use the skill in words a real request would share.

// One module per rule: its documentation (see `Rule::doc`).
pub(crate) mod description_empty;
pub(crate) mod description_from_body;
pub(crate) mod description_missing;
pub(crate) mod description_too_long;
pub(crate) mod generic_trigger;
pub(crate) mod listing_truncated;
pub(crate) mod no_trigger;

use super::yaml_text::find_ascii_ci;
use super::{Checker, Rule, char_count};
use crate::document::FrontmatterBlock;
use crate::fields;
use crate::yaml::{Node, Value};

/// The spec's limit on `description`, from the field table.
pub const MAX_DESCRIPTION_CHARS: usize = fields::DESCRIPTION.max_chars.unwrap();
/// Claude Code cuts `description` + `when_to_use` to this many characters in
/// the skill listing the model sees (from the field table).
pub const LISTING_CAP_CHARS: usize = fields::DESCRIPTION.listing_chars.unwrap();

/// Phrases of a description that say when to use the skill.
const TRIGGER_WORDS: &[&str] = &[
    "when",
    "whenever",
    "use for",
    "use this",
    "use it",
    "use to",
    "use on",
    "use in",
    "use with",
    "useful for",
    "if the user",
    "if you",
    "asks",
    "asked",
    "ask for",
    "trigger",
    "triggers",
    "invoke",
    "before",
    "after",
    "during",
];

/// Phrases that match almost any request.
const GENERIC_PHRASES: &[&str] = &[
    "help me",
    "do this",
    "do that",
    "do it",
    "do something",
    "any task",
    "any request",
    "any question",
    "anything",
    "all tasks",
    "general purpose",
    "general-purpose",
    "all-purpose",
    "whatever the user",
];

/// `triggers` entries too common to route on.
const GENERIC_WORDS: &[&str] = &[
    "help", "do", "run", "make", "create", "fix", "use", "it", "this", "code", "task", "go",
];

pub(super) fn check(checker: &mut Checker) {
    let when_to_use = checker.entry("when_to_use").map(|(_, v)| v);
    let Some((_, value)) = checker.entry("description") else {
        let range = match &checker.skill.doc.frontmatter {
            FrontmatterBlock::Closed { open, .. } => open.clone(),
            _ => return,
        };
        checker
            .report(
                Rule::DescriptionMissing,
                range.clone(),
                "the frontmatter has no `description`",
            )
            .help("add `description:` saying what the skill does and when to use it");
        if checker.enabled(Rule::DescriptionFromBody) {
            let listed = crate::catalog::first_paragraph(checker.skill.body());
            let message = if listed.is_empty() {
                "no `description` and no body paragraph: Claude Code lists the bare name".to_owned()
            } else {
                let shown: String = listed.chars().take(120).collect();
                let more = if shown.len() < listed.len() {
                    "…"
                } else {
                    ""
                };
                format!(
                    "no `description`: Claude Code lists the body's first paragraph, \"{shown}{more}\""
                )
            };
            checker
                .report(Rule::DescriptionFromBody, range, message)
                .help("add `description:` saying what the skill does and when to use it; other clients refuse the skill without one");
        }
        return;
    };
    let text = match &value.value {
        Value::String(s) => s.as_str(),
        Value::Null => "",
        _ => return, // HS301 reports the type
    };
    if text.trim().is_empty() {
        checker
            .report(
                Rule::DescriptionEmpty,
                value_or_key(checker, value),
                "`description` is empty",
            )
            .help("say what the skill does and when to use it, in 1 to 1,024 characters");
        return;
    }
    let chars = char_count(text);
    if chars > MAX_DESCRIPTION_CHARS {
        checker
            .report(
                Rule::DescriptionTooLong,
                value.span.clone(),
                format!(
                    "`description` has {chars} characters; the limit is {MAX_DESCRIPTION_CHARS}"
                ),
            )
            .help("move detail into the body, which loads only when the skill is used");
    }
    let when_text = when_to_use.and_then(Node::as_str).unwrap_or_default();
    let listed = chars + char_count(when_text);
    let cap = checker.listing_cap;
    if listed > cap {
        let whose = if cap == LISTING_CAP_CHARS {
            ""
        } else {
            " (skillListingMaxDescChars in the project's .claude/settings.json)"
        };
        checker
            .report(Rule::ListingTruncated, value.span.clone(), format!("description and when_to_use have {listed} characters; Claude Code lists only the first {cap}{whose}"))
            .help("shorten, and put the \"Use when ...\" part first");
    }
    if checker.enabled(Rule::NoTrigger) && !says_when(text) && !says_when(when_text) {
        checker
            .report(
                Rule::NoTrigger,
                value.span.clone(),
                "the description never says when to use the skill",
            )
            .help("add a sentence like \"Use when the user asks to ...\" naming concrete requests");
    }
    if checker.enabled(Rule::GenericTrigger) {
        generic_phrases(checker, "description", value);
        if let Some(when) = when_to_use {
            generic_phrases(checker, "when_to_use", when);
        }
        generic_trigger_entries(checker);
    }
}

/// The value's span, or the key's when the value is empty (a null has no text).
fn value_or_key(checker: &Checker, value: &Node) -> std::ops::Range<usize> {
    if value.span.is_empty() {
        checker
            .entry("description")
            .map_or(value.span.clone(), |(k, _)| k.span.clone())
    } else {
        value.span.clone()
    }
}

fn says_when(text: &str) -> bool {
    TRIGGER_WORDS.iter().any(|w| find_word(text, w).is_some())
}

/// The first case-insensitive occurrence of `phrase` as whole words.
fn find_word(text: &str, phrase: &str) -> Option<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = find_ascii_ci(&text[from..], phrase) {
        let range = from + found.start..from + found.end;
        let before_ok = range.start == 0 || !bytes[range.start - 1].is_ascii_alphanumeric();
        let after_ok = range.end == bytes.len() || !bytes[range.end].is_ascii_alphanumeric();
        if before_ok && after_ok {
            return Some(range);
        }
        from = range.start + 1;
    }
    None
}

fn generic_phrases(checker: &mut Checker, key: &str, node: &Node) {
    let Some(value) = node.as_str() else { return };
    let source = &checker.text()[node.span.clone()];
    for phrase in GENERIC_PHRASES {
        if find_word(value, phrase).is_none() {
            continue;
        }
        // Point at the phrase when the source spells it the same way.
        let range = find_word(source, phrase).map_or(node.span.clone(), |r| {
            node.span.start + r.start..node.span.start + r.end
        });
        checker
            .report(
                Rule::GenericTrigger,
                range,
                format!("`{key}` uses the generic trigger \"{phrase}\""),
            )
            .help("it matches almost any request; name the concrete situations the skill is for");
        return;
    }
}

fn generic_trigger_entries(checker: &mut Checker) {
    let Some((_, triggers)) = checker.entry("triggers") else {
        return;
    };
    let items: Vec<&Node> = match &triggers.value {
        Value::Seq(items) => items.iter().collect(),
        Value::String(_) => vec![triggers],
        _ => return,
    };
    for item in items {
        let Some(entry) = item.as_str() else { continue };
        let entry = entry.trim();
        let generic = GENERIC_WORDS.iter().any(|w| entry.eq_ignore_ascii_case(w))
            || GENERIC_PHRASES
                .iter()
                .any(|p| entry.eq_ignore_ascii_case(p));
        if generic {
            checker
                .report(Rule::GenericTrigger, item.span.clone(), format!("the trigger \"{entry}\" is generic"))
                .help("it matches almost any request; use a phrase only this skill's requests contain");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::rules::Target;

    fn with_description(d: &str) -> String {
        format!("---\nname: my-skill\ndescription: {d}\n---\n")
    }

    #[test]
    fn missing_and_empty() {
        fires(Rule::DescriptionMissing, "---\nname: my-skill\n---\n");
        quiet(Rule::DescriptionMissing, &skill_md("", ""));
        let text = with_description("");
        assert_eq!(
            spanned(&text, &fires(Rule::DescriptionEmpty, &text)),
            "description"
        );
        fires(Rule::DescriptionEmpty, &with_description("\"  \""));
        quiet(Rule::DescriptionEmpty, &skill_md("", ""));
    }

    /// Claude Code skills docs: a missing description falls back to the
    /// body's first paragraph; the spec, the upload and Copilot require one.
    #[test]
    fn missing_description_per_target() {
        let text = "---\nname: my-skill\n---\n# Title\n\nFormats reports for the team.\n";
        let claude = findings_for(Rule::DescriptionFromBody, text, Target::ClaudeCode);
        assert_eq!(claude.len(), 1);
        assert!(
            claude[0]
                .message
                .contains("\"Formats reports for the team.\""),
            "{:?}",
            claude[0]
        );
        assert!(findings_for(Rule::DescriptionMissing, text, Target::ClaudeCode).is_empty());
        for target in [Target::Agentskills, Target::ClaudeApi, Target::Copilot] {
            assert_eq!(
                findings_for(Rule::DescriptionMissing, text, target).len(),
                1,
                "{target}"
            );
            assert!(
                findings_for(Rule::DescriptionFromBody, text, target).is_empty(),
                "{target}"
            );
        }
    }

    #[test]
    fn too_long_counts_characters() {
        fires(
            Rule::DescriptionTooLong,
            &with_description(&format!("Use when {}", "é".repeat(1020))),
        );
        quiet(
            Rule::DescriptionTooLong,
            &with_description(&format!("Use when {}", "é".repeat(1000))),
        );
    }

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

    #[test]
    fn description_without_when() {
        fires(
            Rule::NoTrigger,
            &with_description("A toolkit for PDF files."),
        );
        quiet(
            Rule::NoTrigger,
            &with_description("Reads PDFs. Use when the user sends a PDF."),
        );
        let with_when = "---\nname: my-skill\ndescription: A PDF toolkit.\nwhen_to_use: When the user sends a PDF.\n---\n";
        quiet(Rule::NoTrigger, with_when);
        // "whenever" is a word; "somewhen" is not "when".
        fires(Rule::NoTrigger, &with_description("Somewhen toolkit."));
    }

    #[test]
    fn generic_triggers() {
        let text = with_description("Use when the user says help me.");
        assert_eq!(
            spanned(&text, &fires(Rule::GenericTrigger, &text)),
            "help me"
        );
        let triggers = skill_md("triggers:\n  - help\n  - fill pdf form\n", "");
        assert_eq!(
            spanned(&triggers, &fires(Rule::GenericTrigger, &triggers)),
            "help"
        );
        quiet(
            Rule::GenericTrigger,
            &skill_md("triggers: [fill pdf form]\n", ""),
        );
        quiet(
            Rule::GenericTrigger,
            &with_description("Use when the user asks for helpful menus."),
        );
    }
}
