//! The catalog: the stage-1 text an agent is given about every skill, and
//! what it costs.
//!
//! Before any skill is chosen, a runtime puts each skill's name and
//! description in front of the model. That text is paid for on *every*
//! request, so it is worth measuring exactly as it is sent. Two runtimes'
//! forms are modelled:
//!
//! - **agentskills**: the `<available_skills>` XML block that the reference
//!   implementation (`skills-ref to-prompt`, version 0.1.1) prints. Each tag
//!   sits on its own line; name and description are trimmed and XML-escaped
//!   as Python's `html.escape` does (`& < > " '`); the location is the
//!   absolute path of the `SKILL.md`. One deliberate difference: the location
//!   is escaped too, so the block is always well-formed XML.
//! - **claude-code**: one line per skill, `- name: text`, where the text is
//!   the description followed by ` - ` and `when_to_use` when present, cut at
//!   1,536 characters ([`CLAUDE_CODE_ENTRY_LIMIT`]) with a trailing `…`.
//!   Characters are counted as Claude Code, a JavaScript program, counts
//!   them: in UTF-16 code units. A skill with `disable-model-invocation:
//!   true` is not listed at all; one without a description is listed with
//!   the first paragraph of its body, as Claude Code documents. The
//!   separator and the ellipsis are our choice: Claude Code documents the
//!   fields and the cap but not the exact layout.
//!
//! Claude Code also caps the whole listing ([`listing_budget`]): about 1% of
//! the context window, counted in characters at about 4 characters per token
//! (8,000 characters for a 200,000-token window). Over budget, names are
//! always kept and descriptions are dropped from the end of the listing
//! backwards until it fits; the report says which skills lose theirs. The
//! order is the library's (root priority, then path), the order in which a
//! runtime discovers them.

use std::path::PathBuf;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::Serialize;

use crate::skill::Skill;
use crate::tokens::{StageText, Tokenizer};

/// Claude Code's cap on one listing entry's description text, in UTF-16 units.
pub const CLAUDE_CODE_ENTRY_LIMIT: usize = 1536;
/// Share of the context window the Claude Code listing may use, in percent.
pub const LISTING_BUDGET_PERCENT: u64 = 1;
/// Characters per token assumed when turning that share into characters.
pub const CHARS_PER_TOKEN: u64 = 4;
/// The context window assumed when none is given (Claude's standard window).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// The absolute path a runtime reports for a skill's `SKILL.md`.
pub fn location(skill: &Skill) -> PathBuf {
    std::fs::canonicalize(&skill.path)
        .or_else(|_| std::path::absolute(&skill.path))
        .unwrap_or_else(|_| skill.path.clone())
}

/// XML escaping as Python's `html.escape(text, quote=True)` does it.
fn escape_xml(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
}

/// One skill's `<skill>` entry of the agentskills block, without a trailing newline.
pub fn agentskills_entry(skill: &Skill) -> String {
    let description = skill.meta.description.as_deref().unwrap_or_default().trim();
    let mut out = String::with_capacity(description.len() + 128);
    out.push_str("<skill>\n<name>\n");
    escape_xml(skill.id.trim(), &mut out);
    out.push_str("\n</name>\n<description>\n");
    escape_xml(description, &mut out);
    out.push_str("\n</description>\n<location>\n");
    escape_xml(&location(skill).to_string_lossy(), &mut out);
    out.push_str("\n</location>\n</skill>");
    out
}

/// The whole `<available_skills>` block, without a trailing newline.
pub fn agentskills_prompt(skills: &[&Skill]) -> String {
    let mut out = String::from("<available_skills>\n");
    for skill in skills {
        out.push_str(&agentskills_entry(skill));
        out.push('\n');
    }
    out.push_str("</available_skills>");
    out
}

/// One skill's line of the Claude Code listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListingEntry {
    pub id: String,
    /// `- name: text`, the text cut at [`CLAUDE_CODE_ENTRY_LIMIT`].
    pub line: String,
    /// Whether the cut removed text.
    pub truncated: bool,
}

impl ListingEntry {
    /// The line without its description, as the budget leaves it: `- name`.
    pub fn name_line(&self) -> String {
        format!("- {}", self.id)
    }
}

/// The text Claude Code lists for a skill: description, then `when_to_use`.
fn claude_code_text(skill: &Skill) -> String {
    let description = match skill.meta.description.as_deref().map(str::trim) {
        Some(d) if !d.is_empty() => d.to_owned(),
        _ => first_paragraph(skill.body()),
    };
    match skill.meta.when_to_use.as_deref().map(str::trim) {
        Some(when) if !when.is_empty() && description.is_empty() => when.to_owned(),
        Some(when) if !when.is_empty() => format!("{description} - {when}"),
        _ => description,
    }
}

/// The plain text of the first paragraph of a markdown body.
fn first_paragraph(body: &str) -> String {
    let mut text = String::new();
    let mut inside = false;
    for event in Parser::new(body) {
        match event {
            Event::Start(Tag::Paragraph) => inside = true,
            Event::End(TagEnd::Paragraph) if inside => break,
            Event::Text(t) | Event::Code(t) if inside => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak if inside => text.push(' '),
            _ => {}
        }
    }
    text.trim().to_owned()
}

/// `text` cut to at most `limit` UTF-16 units, the last one an ellipsis when cut.
fn cut_utf16(text: &str, limit: usize) -> (String, bool) {
    if text.encode_utf16().count() <= limit {
        return (text.to_owned(), false);
    }
    let mut units = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        // Leave one unit for the ellipsis, and never split a surrogate pair.
        if units + c.len_utf16() > limit - 1 {
            break;
        }
        units += c.len_utf16();
        end = at + c.len_utf8();
    }
    (format!("{}…", &text[..end]), true)
}

/// The skill's Claude Code listing entry; `None` when
/// `disable-model-invocation: true` keeps it out of the listing.
pub fn claude_code_entry(skill: &Skill) -> Option<ListingEntry> {
    if skill.meta.disable_model_invocation == Some(true) {
        return None;
    }
    let (text, truncated) = cut_utf16(&claude_code_text(skill), CLAUDE_CODE_ENTRY_LIMIT);
    let line = if text.is_empty() {
        format!("- {}", skill.id)
    } else {
        format!("- {}: {text}", skill.id)
    };
    Some(ListingEntry {
        id: skill.id.clone(),
        line,
        truncated,
    })
}

/// The full Claude Code listing, one line per listed skill, before any budget.
pub fn claude_code_listing(skills: &[&Skill]) -> String {
    let lines: Vec<String> = skills
        .iter()
        .filter_map(|s| claude_code_entry(s))
        .map(|e| e.line)
        .collect();
    lines.join("\n")
}

/// How the Claude Code listing fits its budget at a context-window size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetReport {
    pub context_window_tokens: u64,
    /// The budget, in UTF-16 units: window × 1% × 4 characters per token.
    pub budget_chars: usize,
    /// Length of the full listing, in UTF-16 units.
    pub full_chars: usize,
    /// Length of the listing as it would be sent, after dropping descriptions.
    pub listed_chars: usize,
    pub over_budget: bool,
    /// Skills listed with their description, in listing order.
    pub kept: Vec<String>,
    /// Skills listed by name only, in listing order.
    pub dropped: Vec<String>,
    /// Skills not listed at all (`disable-model-invocation: true`).
    pub unlisted: Vec<String>,
    /// The listing as it would be sent.
    pub listing: String,
}

/// The listing budget, in characters, for a context window of `tokens`.
pub fn budget_chars(context_window_tokens: u64) -> usize {
    let chars =
        context_window_tokens.saturating_mul(LISTING_BUDGET_PERCENT * CHARS_PER_TOKEN) / 100;
    usize::try_from(chars).unwrap_or(usize::MAX)
}

/// Simulates Claude Code's listing budget: which skills lose their
/// descriptions at a context window of `context_window_tokens`.
pub fn listing_budget(skills: &[&Skill], context_window_tokens: u64) -> BudgetReport {
    let budget = budget_chars(context_window_tokens);
    let mut entries = Vec::new();
    let mut unlisted = Vec::new();
    for skill in skills {
        match claude_code_entry(skill) {
            Some(entry) => entries.push(entry),
            None => unlisted.push(skill.id.clone()),
        }
    }
    let full_lengths: Vec<usize> = entries
        .iter()
        .map(|e| e.line.encode_utf16().count())
        .collect();
    let name_lengths: Vec<usize> = entries
        .iter()
        .map(|e| e.name_line().encode_utf16().count())
        .collect();
    // Lines are joined by one newline each.
    let newlines = entries.len().saturating_sub(1);
    let full_chars = full_lengths.iter().sum::<usize>() + newlines;
    // Drop descriptions from the end until the listing fits (or none are left).
    let mut kept_count = entries.len();
    let mut listed_chars = full_chars;
    while listed_chars > budget && kept_count > 0 {
        kept_count -= 1;
        listed_chars -= full_lengths[kept_count] - name_lengths[kept_count];
    }
    let lines: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if i < kept_count {
                e.line.clone()
            } else {
                e.name_line()
            }
        })
        .collect();
    let ids = |range: std::ops::Range<usize>| entries[range].iter().map(|e| e.id.clone()).collect();
    BudgetReport {
        context_window_tokens,
        budget_chars: budget,
        full_chars,
        listed_chars,
        over_budget: full_chars > budget,
        kept: ids(0..kept_count),
        dropped: ids(kept_count..entries.len()),
        unlisted,
        listing: lines.join("\n"),
    }
}

/// The whole library's stage-1 cost in both runtime forms.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogCosts {
    pub skills: usize,
    /// The `<available_skills>` block.
    pub agentskills: StageText,
    /// The full Claude Code listing, before the budget.
    pub claude_code: StageText,
    pub budget: BudgetReport,
}

/// Measures the catalog of `skills` with `tokenizer`, simulating the Claude
/// Code budget at `context_window_tokens`.
pub fn catalog_costs(
    skills: &[&Skill],
    tokenizer: &Tokenizer,
    context_window_tokens: u64,
) -> CatalogCosts {
    let agentskills = StageText::measure(agentskills_prompt(skills), tokenizer, false);
    let claude_code = StageText::measure(claude_code_listing(skills), tokenizer, false);
    CatalogCosts {
        skills: skills.len(),
        agentskills,
        claude_code,
        budget: listing_budget(skills, context_window_tokens),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::document::SkillDocument;

    fn skill(dir: &str, text: &str) -> Skill {
        Skill::from_document(Path::new(dir), SkillDocument::parse(text.into()))
    }

    /// What `skills-ref to-prompt pdf-tools notes` (0.1.1) printed for the
    /// same two skills, under /tmp/cat/lib.
    #[test]
    fn agentskills_block_matches_the_reference_implementation() {
        let pdf = skill(
            "/tmp/cat/lib/pdf-tools",
            "---\nname: pdf-tools\ndescription: >-\n  Reads & fills <PDF> forms, \"quoted\" and it's fine.\n  Use when asked about PDFs.\n---\n# PDF\n",
        );
        let notes = skill(
            "/tmp/cat/lib/notes",
            "---\nname: notes\ndescription: \"  Takes notes.  \"\n---\nBody\n",
        );
        let want = "<available_skills>\n<skill>\n<name>\npdf-tools\n</name>\n<description>\nReads &amp; fills &lt;PDF&gt; forms, &quot;quoted&quot; and it&#x27;s fine. Use when asked about PDFs.\n</description>\n<location>\n/tmp/cat/lib/pdf-tools/SKILL.md\n</location>\n</skill>\n<skill>\n<name>\nnotes\n</name>\n<description>\nTakes notes.\n</description>\n<location>\n/tmp/cat/lib/notes/SKILL.md\n</location>\n</skill>\n</available_skills>";
        if cfg!(unix) {
            assert_eq!(agentskills_prompt(&[&pdf, &notes]), want);
        }
        assert_eq!(
            agentskills_prompt(&[]),
            "<available_skills>\n</available_skills>"
        );
    }

    #[test]
    fn claude_code_lines_join_when_to_use_and_fall_back_to_the_body() {
        let with_when = skill(
            "/l/a",
            "---\nname: a\ndescription: Does a.\nwhen_to_use: Asked for a.\n---\n",
        );
        assert_eq!(
            claude_code_entry(&with_when).unwrap().line,
            "- a: Does a. - Asked for a."
        );
        let no_description = skill(
            "/l/b",
            "---\nname: b\n---\n# Title\n\nFirst *paragraph*\nwraps.\n\nSecond.\n",
        );
        assert_eq!(
            claude_code_entry(&no_description).unwrap().line,
            "- b: First paragraph wraps."
        );
        let hidden = skill(
            "/l/c",
            "---\nname: c\ndescription: x\ndisable-model-invocation: true\n---\n",
        );
        assert_eq!(claude_code_entry(&hidden), None);
    }

    #[test]
    fn long_entries_are_cut_at_1536_utf16_units() {
        // An emoji is two UTF-16 units; the cut never splits one.
        let description = "🚀".repeat(1000);
        let long = skill(
            "/l/long",
            &format!("---\nname: long\ndescription: {description}\n---\n"),
        );
        let entry = claude_code_entry(&long).unwrap();
        assert!(entry.truncated);
        let text = entry.line.strip_prefix("- long: ").unwrap();
        assert_eq!(text.encode_utf16().count(), CLAUDE_CODE_ENTRY_LIMIT - 1);
        assert!(text.ends_with("🚀…"));
        let exact = skill(
            "/l/x",
            &format!("---\nname: x\ndescription: {}\n---\n", "a".repeat(1536)),
        );
        assert!(!claude_code_entry(&exact).unwrap().truncated);
    }

    #[test]
    fn over_budget_descriptions_are_dropped_from_the_end() {
        let skills: Vec<Skill> = (0..5)
            .map(|i| {
                let text = format!(
                    "---\nname: s{i}\ndescription: {}\n---\n",
                    "word ".repeat(20)
                );
                skill(&format!("/l/s{i}"), &text)
            })
            .collect();
        let refs: Vec<&Skill> = skills.iter().collect();
        let roomy = listing_budget(&refs, 200_000);
        assert!(!roomy.over_budget && roomy.dropped.is_empty());
        assert_eq!(roomy.listing, claude_code_listing(&refs));
        // 300 chars: each full line is 105, a name line 4.
        let tight = listing_budget(&refs, 7_500);
        assert_eq!(tight.budget_chars, 300);
        assert!(tight.over_budget);
        assert_eq!(tight.kept, ["s0", "s1"]);
        assert_eq!(tight.dropped, ["s2", "s3", "s4"]);
        assert!(tight.listed_chars <= 300);
        assert!(tight.listing.ends_with("\n- s2\n- s3\n- s4"));
        let tiny = listing_budget(&refs, 100);
        assert_eq!(tiny.kept.len(), 0);
        assert_eq!(tiny.listing.lines().count(), 5);
    }

    #[test]
    fn budget_is_one_percent_of_the_window_at_four_chars_per_token() {
        assert_eq!(budget_chars(200_000), 8_000);
        assert_eq!(budget_chars(1_000_000), 40_000);
    }
}
