//! `HS201`–`HS206`: the `description`, the only text an agent sees when it
//! decides whether to load a skill. It must exist, fit the limits, and say
//! *when* to use the skill in words a real request would share.

use super::yaml_text::find_ascii_ci;
use super::{Checker, EVERY, REQUIRING, RuleInfo, SPEC_AND_API, Target, char_count};
use crate::diagnostic::Severity;
use crate::document::FrontmatterBlock;
use crate::fields;
use crate::yaml::{Node, Value};

/// The spec's limit on `description`, from the field table.
pub const MAX_DESCRIPTION_CHARS: usize = fields::DESCRIPTION.max_chars.unwrap();
/// Claude Code cuts `description` + `when_to_use` to this many characters in
/// the skill listing the model sees (from the field table).
pub const LISTING_CAP_CHARS: usize = fields::DESCRIPTION.listing_chars.unwrap();

pub static DESCRIPTION_MISSING: RuleInfo = RuleInfo {
    code: "HS201",
    name: "description-missing",
    severity: Severity::Error,
    summary: "the frontmatter has no `description`",
    doc: r#"The description is what an agent reads to decide whether to use the skill.
The spec and Anthropic's API require it, GitHub Copilot's docs list it as
required, and the agentskills.io client guide tells clients to *skip* a
skill without one (`adding-skills-support.mdx`, "Lenient validation").
Claude Code instead falls back to the body's first paragraph (skills docs,
"Frontmatter reference"; CHANGELOG 2.1.69 "Fixed project skills without a
`description:` … not appearing"), so for `claude-code` the finding is
HS207, a warning that shows the text it will list.

```yaml
---
name: pdf-tools          # HS201: add a description
---
```"#,
    targets: REQUIRING,
    fixable: false,
};

pub static DESCRIPTION_EMPTY: RuleInfo = RuleInfo {
    code: "HS202",
    name: "description-empty",
    severity: Severity::Error,
    summary: "`description` is empty",
    doc: r#"`description:` with nothing after it is null in YAML, and `""` or a blank
string gives the agent nothing to route on. The spec requires 1–1024
characters. A value on the *next* line without a block indicator is a
common slip:

```yaml
description:            # HS202: null
Reads PDFs.             # not part of the description
description: >-         # fine: a folded block
  Reads PDFs.
```"#,
    targets: EVERY,
    fixable: false,
};

pub static DESCRIPTION_TOO_LONG: RuleInfo = RuleInfo {
    code: "HS203",
    name: "description-too-long",
    severity: Severity::Error,
    summary: "`description` is longer than 1,024 characters",
    doc: r#"The spec and Anthropic's API cap `description` at 1,024 characters (Unicode
scalar values, as skills-ref counts them). A longer one fails validation and
upload; agents that accept it pay for it in every request's catalog. Move
detail into the body, which loads only when the skill is used."#,
    targets: SPEC_AND_API,
    fixable: false,
};

pub static LISTING_TRUNCATED: RuleInfo = RuleInfo {
    code: "HS204",
    name: "listing-truncated",
    severity: Severity::Warning,
    summary: "`description` + `when_to_use` exceed Claude Code's 1,536-character listing cap",
    doc: r#"Claude Code lists each skill to the model as its description followed by
`when_to_use`, cut at 1,536 characters. Text past the cap is never seen, and
the trigger phrases at the end of a long description are the first to go.
Put the "Use when …" part first, or shorten. Only for `claude-code`.

The cap is the setting `skillListingMaxDescChars` (default 1,536; Claude
Code CHANGELOG 2.1.129). Where the library's project `.claude/settings.json`
or `settings.local.json` sets it, HS204 checks against that value; the
user's own `~/.claude/settings.json` is not read, so a check gives the same
verdict on every machine."#,
    targets: &[Target::ClaudeCode],
    fixable: false,
};

pub static NO_TRIGGER: RuleInfo = RuleInfo {
    code: "HS205",
    name: "no-trigger",
    severity: Severity::Warning,
    summary: "the description never says when to use the skill",
    doc: r#"Agents choose a skill by matching the request against its description. A
description that only says what the skill *is* ("A PDF toolkit") loses to
one that says when to use it ("Use when the user sends a PDF or asks to fill
a form"). Anthropic's authoring guide asks for both what and when.

The rule looks, in `description` and `when_to_use`, for phrases such as
"use when", "use for", "use this", "when", "whenever", "if the user",
"asks", "trigger" or "invoke". It is a heuristic: reword rather than
silence it.

```yaml
description: A toolkit for PDF files.                                # HS205
description: Reads and fills PDFs. Use when the user sends a PDF.    # fine
```"#,
    targets: EVERY,
    fixable: false,
};

pub static DESCRIPTION_FROM_BODY: RuleInfo = RuleInfo {
    code: "HS207",
    name: "description-from-body",
    severity: Severity::Warning,
    summary: "no `description`: Claude Code lists the body's first paragraph instead",
    doc: r#"Claude Code loads a skill without `description` and lists it with the first
paragraph of its body (skills docs: "If omitted, uses the first paragraph of
markdown content"). That paragraph was written for a reader who already
chose the skill, and rarely says when to use it. The finding shows the text
Claude Code will list; every other client refuses the skill (HS201). Only
for `claude-code`."#,
    targets: &[Target::ClaudeCode],
    fixable: false,
};

pub static GENERIC_TRIGGER: RuleInfo = RuleInfo {
    code: "HS206",
    name: "generic-trigger",
    severity: Severity::Warning,
    summary: "a trigger phrase that matches almost any request",
    doc: r#"Phrases such as "help me", "do this", "any task" or "general purpose" match
nearly every request, so the skill fires when it should not and crowds out
the skill that fits. Name the concrete situations instead.

Checked in `description`, `when_to_use` and each `triggers` entry (which
skill routers read); a `triggers` entry that is one common verb (`help`,
`run`, `fix`) is generic too.

```yaml
description: Use when the user says "help me" with anything.     # HS206
description: Use when the user asks to fix a failing CI job.      # fine
```"#,
    targets: EVERY,
    fixable: false,
};

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
                &DESCRIPTION_MISSING,
                range.clone(),
                "the frontmatter has no `description`",
            )
            .help("add `description:` saying what the skill does and when to use it");
        if checker.enabled(&DESCRIPTION_FROM_BODY) {
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
                .report(&DESCRIPTION_FROM_BODY, range, message)
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
                &DESCRIPTION_EMPTY,
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
                &DESCRIPTION_TOO_LONG,
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
            .report(&LISTING_TRUNCATED, value.span.clone(), format!("description and when_to_use have {listed} characters; Claude Code lists only the first {cap}{whose}"))
            .help("shorten, and put the \"Use when ...\" part first");
    }
    if checker.enabled(&NO_TRIGGER) && !says_when(text) && !says_when(when_text) {
        checker
            .report(
                &NO_TRIGGER,
                value.span.clone(),
                "the description never says when to use the skill",
            )
            .help("add a sentence like \"Use when the user asks to ...\" naming concrete requests");
    }
    if checker.enabled(&GENERIC_TRIGGER) {
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
                &GENERIC_TRIGGER,
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
                .report(&GENERIC_TRIGGER, item.span.clone(), format!("the trigger \"{entry}\" is generic"))
                .help("it matches almost any request; use a phrase only this skill's requests contain");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn with_description(d: &str) -> String {
        format!("---\nname: my-skill\ndescription: {d}\n---\n")
    }

    #[test]
    fn missing_and_empty() {
        fires("HS201", "---\nname: my-skill\n---\n");
        quiet("HS201", &skill_md("", ""));
        let text = with_description("");
        assert_eq!(spanned(&text, &fires("HS202", &text)), "description");
        fires("HS202", &with_description("\"  \""));
        quiet("HS202", &skill_md("", ""));
    }

    /// Claude Code skills docs: a missing description falls back to the
    /// body's first paragraph; the spec, the upload and Copilot require one.
    #[test]
    fn missing_description_per_target() {
        let text = "---\nname: my-skill\n---\n# Title\n\nFormats reports for the team.\n";
        let claude = findings_for("HS207", text, Target::ClaudeCode);
        assert_eq!(claude.len(), 1);
        assert!(
            claude[0]
                .message
                .contains("\"Formats reports for the team.\""),
            "{:?}",
            claude[0]
        );
        assert!(findings_for("HS201", text, Target::ClaudeCode).is_empty());
        for target in [Target::Agentskills, Target::ClaudeApi, Target::Copilot] {
            assert_eq!(findings_for("HS201", text, target).len(), 1, "{target}");
            assert!(findings_for("HS207", text, target).is_empty(), "{target}");
        }
    }

    #[test]
    fn too_long_counts_characters() {
        fires(
            "HS203",
            &with_description(&format!("Use when {}", "é".repeat(1020))),
        );
        quiet(
            "HS203",
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
        assert_eq!(findings_for("HS204", &long, Target::ClaudeCode).len(), 1);
        assert!(findings_for("HS204", &long, Target::Agentskills).is_empty());
        quiet("HS204", &skill_md("", ""));
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
        fires("HS205", &with_description("A toolkit for PDF files."));
        quiet(
            "HS205",
            &with_description("Reads PDFs. Use when the user sends a PDF."),
        );
        let with_when = "---\nname: my-skill\ndescription: A PDF toolkit.\nwhen_to_use: When the user sends a PDF.\n---\n";
        quiet("HS205", with_when);
        // "whenever" is a word; "somewhen" is not "when".
        fires("HS205", &with_description("Somewhen toolkit."));
    }

    #[test]
    fn generic_triggers() {
        let text = with_description("Use when the user says help me.");
        assert_eq!(spanned(&text, &fires("HS206", &text)), "help me");
        let triggers = skill_md("triggers:\n  - help\n  - fill pdf form\n", "");
        assert_eq!(spanned(&triggers, &fires("HS206", &triggers)), "help");
        quiet("HS206", &skill_md("triggers: [fill pdf form]\n", ""));
        quiet(
            "HS206",
            &with_description("Use when the user asks for helpful menus."),
        );
    }
}
