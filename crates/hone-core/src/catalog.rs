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
//! Claude Code also caps the whole listing ([`listing_budget`]): a fraction of
//! the context window (`skillListingBudgetFraction`, default 0.01), counted in
//! characters at about 4 characters per token (8,000 characters for a
//! 200,000-token window, 40,000 for 1M), or `SLASH_COMMAND_TOOL_CHAR_BUDGET`
//! characters when that variable is set. Each entry is cut at
//! `skillListingMaxDescChars` (default 1,536). `skillOverrides` maps a skill
//! name to `off` (hidden from the model and the `/` menu),
//! `user-invocable-only` (hidden from the model) or `name-only` (listed as a
//! bare name) (CHANGELOG 2.1.129). [`ListingSettings::load`] reads these from
//! the user's `~/.claude/settings.json`, then the project's
//! `.claude/settings.json` and `.claude/settings.local.json` (later files
//! win), as Claude Code layers its settings.
//!
//! Over budget, names are always kept and descriptions are dropped, the
//! least recently used first ("full descriptions kept for most-used skills",
//! Claude Code's warning; claude-code issues #68135, #81081, #56832). Use is
//! not on disk, so the report cannot say *which* skills lose theirs: it names
//! every skill at risk and how many will lose theirs at least and at most.
//! `kept`/`dropped` keep one illustration, the library's order with the last
//! ones dropped first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::Serialize;

use crate::skill::Skill;
use crate::tokens::{StageText, Tokenizer};

/// Claude Code's cap on one listing entry's description text, in UTF-16 units.
pub const CLAUDE_CODE_ENTRY_LIMIT: usize = 1536;
/// Share of the context window the Claude Code listing may use, in percent
/// (`skillListingBudgetFraction` 0.01).
pub const LISTING_BUDGET_PERCENT: u64 = 1;
/// The default `skillListingBudgetFraction`.
pub const DEFAULT_BUDGET_FRACTION: f64 = 0.01;
/// The environment variable that sets the listing budget in characters.
pub const CHAR_BUDGET_ENV: &str = "SLASH_COMMAND_TOOL_CHAR_BUDGET";
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
pub(crate) fn first_paragraph(body: &str) -> String {
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
    claude_code_entry_capped(skill, CLAUDE_CODE_ENTRY_LIMIT)
}

/// [`claude_code_entry`] with the entry cut at `max_desc_chars` UTF-16 units
/// (`skillListingMaxDescChars`).
pub fn claude_code_entry_capped(skill: &Skill, max_desc_chars: usize) -> Option<ListingEntry> {
    if skill.meta.disable_model_invocation == Some(true) {
        return None;
    }
    let (text, truncated) = cut_utf16(&claude_code_text(skill), max_desc_chars.max(1));
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
    /// Skills not listed at all (`disable-model-invocation: true`, or a
    /// `skillOverrides` of `off` / `user-invocable-only`).
    pub unlisted: Vec<String>,
    /// The listing as it would be sent.
    pub listing: String,
    /// `skillListingBudgetFraction` used.
    pub budget_fraction: f64,
    /// `skillListingMaxDescChars` used.
    pub max_desc_chars: usize,
    /// Where the budget came from: `context-window` or `SLASH_COMMAND_TOOL_CHAR_BUDGET`.
    pub budget_source: &'static str,
    /// Over budget: every skill that may lose its description (which ones
    /// do depends on recent use, never-used first).
    pub at_risk: Vec<String>,
    /// Over budget: the fewest and the most descriptions Claude Code drops,
    /// whatever the order of use.
    pub min_dropped: usize,
    pub max_dropped: usize,
    /// Every skill and how it is listed, with the reason.
    pub entries: Vec<ListingStatus>,
    /// The listed entries by cost, largest first (ties in listing order), as
    /// indices into `entries`: the order of the sorted listing chart.
    pub by_cost: Vec<usize>,
}

/// How one skill appears in Claude Code's listing, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ListingStatus {
    pub id: String,
    /// `listed`, `truncated`, `name-only`, `at-risk` or `unlisted`.
    pub status: &'static str,
    /// Why, in words ("skillOverrides: name-only", "cut at 1,536 characters").
    pub reason: String,
    /// The entry's length in the full listing (UTF-16 units, as the budget
    /// counts them); 0 when unlisted.
    pub chars: usize,
    /// Its length as a bare name (what is left when its description is dropped).
    pub name_chars: usize,
    /// Where the entry starts in the full listing (UTF-16 units, newlines
    /// included): the entries from the budget on are past it.
    pub offset: usize,
    /// Whether the entry ends past the budget in listing order: the entries
    /// whose descriptions go first when no skill was used more recently.
    pub past_budget: bool,
    /// Where the entry starts when the listed entries are laid end to end by
    /// cost, largest first: in that order, the entries that start before the
    /// budget are the largest ones that fill it on their own.
    pub offset_by_cost: usize,
}

/// What `skillOverrides` does to one skill (CHANGELOG 2.1.129).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkillOverride {
    /// Hidden from the model and from the `/` menu.
    Off,
    /// Hidden from the model; the user can still invoke it.
    UserInvocableOnly,
    /// Listed as a bare name.
    NameOnly,
}

/// The settings Claude Code builds its listing from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListingSettings {
    pub context_window_tokens: u64,
    /// `skillListingBudgetFraction`.
    pub budget_fraction: f64,
    /// `skillListingMaxDescChars`.
    pub max_desc_chars: usize,
    /// `SLASH_COMMAND_TOOL_CHAR_BUDGET`, when set: the budget in characters.
    pub char_budget: Option<usize>,
    /// `skillOverrides`, by skill name.
    pub overrides: BTreeMap<String, SkillOverride>,
    /// The settings files read, in the order applied.
    pub sources: Vec<PathBuf>,
    /// Settings that could not be read or understood, in words.
    pub problems: Vec<String>,
}

impl ListingSettings {
    /// Claude Code's defaults at a context window of `context_window_tokens`.
    pub fn new(context_window_tokens: u64) -> ListingSettings {
        ListingSettings {
            context_window_tokens,
            budget_fraction: DEFAULT_BUDGET_FRACTION,
            max_desc_chars: CLAUDE_CODE_ENTRY_LIMIT,
            char_budget: None,
            overrides: BTreeMap::new(),
            sources: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The defaults, then the user's `settings.json` (in `user_claude_dir`,
    /// normally `~/.claude`), then each root's project settings (the nearest
    /// `.claude/settings.json` and `.claude/settings.local.json` at or above
    /// the root, lowest-priority root first), then `char_budget_env` (the
    /// value of `SLASH_COMMAND_TOOL_CHAR_BUDGET`, if set).
    pub fn load(
        context_window_tokens: u64,
        roots: &[PathBuf],
        user_claude_dir: Option<&Path>,
        char_budget_env: Option<&str>,
    ) -> ListingSettings {
        let mut settings = ListingSettings::new(context_window_tokens);
        let mut files: Vec<PathBuf> = Vec::new();
        if let Some(dir) = user_claude_dir {
            files.push(dir.join("settings.json"));
        }
        for root in roots.iter().rev() {
            if let Some(dir) = project_claude_dir(root) {
                files.push(dir.join("settings.json"));
                files.push(dir.join("settings.local.json"));
            }
        }
        let mut seen = Vec::new();
        for file in files {
            let key = file.canonicalize().unwrap_or_else(|_| file.clone());
            if seen.contains(&key) || !file.is_file() {
                continue;
            }
            seen.push(key);
            match std::fs::read_to_string(&file)
                .map_err(|e| e.to_string())
                .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
            {
                Ok(json) => settings.apply(&json, &file),
                Err(err) => settings.problems.push(format!("{}: {err}", file.display())),
            }
        }
        if let Some(value) = char_budget_env.filter(|v| !v.trim().is_empty()) {
            match parse_count(value) {
                Some(chars) => settings.char_budget = Some(chars),
                None => settings.problems.push(format!(
                    "{CHAR_BUDGET_ENV}={value} is not a number of characters"
                )),
            }
        }
        settings
    }

    /// Applies the listing keys of one `settings.json` document.
    pub fn apply(&mut self, json: &serde_json::Value, path: &Path) {
        let shown = path.display();
        if let Some(value) = json.get("skillListingBudgetFraction") {
            match value.as_f64().filter(|f| *f > 0.0 && *f <= 1.0) {
                Some(f) => self.budget_fraction = f,
                None => self.problems.push(format!(
                    "{shown}: skillListingBudgetFraction must be a number above 0 and at most 1"
                )),
            }
        }
        if let Some(value) = json.get("skillListingMaxDescChars") {
            match value.as_u64().filter(|n| *n > 0) {
                Some(n) => self.max_desc_chars = usize::try_from(n).unwrap_or(usize::MAX),
                None => self.problems.push(format!(
                    "{shown}: skillListingMaxDescChars must be a positive integer"
                )),
            }
        }
        if let Some(map) = json.get("skillOverrides").and_then(|v| v.as_object()) {
            for (name, value) in map {
                let parsed = match value.as_str() {
                    Some("off") => Some(SkillOverride::Off),
                    Some("user-invocable-only") => Some(SkillOverride::UserInvocableOnly),
                    Some("name-only") => Some(SkillOverride::NameOnly),
                    _ => None,
                };
                match parsed {
                    Some(o) => {
                        self.overrides.insert(name.clone(), o);
                    }
                    None => self.problems.push(format!(
                        "{shown}: skillOverrides.{name} must be off, user-invocable-only or name-only"
                    )),
                }
            }
        }
        self.sources.push(path.to_path_buf());
    }

    /// The listing budget in UTF-16 units.
    pub fn budget_chars(&self) -> usize {
        if let Some(chars) = self.char_budget {
            return chars;
        }
        let chars =
            self.context_window_tokens as f64 * CHARS_PER_TOKEN as f64 * self.budget_fraction;
        // Whole characters; the float product of integers and 0.01 may sit a hair below.
        (chars + 1e-6).floor().min(usize::MAX as f64) as usize
    }
}

/// The `.claude` folder of the project holding `root`: the nearest
/// `.claude` with a settings file at or above it.
fn project_claude_dir(root: &Path) -> Option<PathBuf> {
    let start = root.canonicalize().ok()?;
    start.ancestors().find_map(|dir| {
        let claude = dir.join(".claude");
        (claude.join("settings.json").is_file() || claude.join("settings.local.json").is_file())
            .then_some(claude)
    })
}

/// The `skillListingMaxDescChars` the project settings of `roots` set, else
/// 1,536: the cap HS204 checks against. Only the project's files count (not
/// the user's): a check of a library gives the same verdict on any machine.
pub fn project_listing_cap(roots: &[PathBuf]) -> usize {
    ListingSettings::load(DEFAULT_CONTEXT_WINDOW, roots, None, None).max_desc_chars
}

/// The user's Claude Code folder, `~/.claude`, where their `settings.json` lives.
pub fn user_claude_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".claude"))
}

/// A count as Claude Code reads integer variables since 2.1.211: digits with
/// optional `_` separators, or scientific notation (`64_000`, `1e6`).
fn parse_count(value: &str) -> Option<usize> {
    let cleaned = value.trim().replace('_', "");
    if let Ok(n) = cleaned.parse::<usize>() {
        return Some(n);
    }
    let f: f64 = cleaned.parse().ok()?;
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0).then_some(f as usize)
}

/// A context window given as tokens: `200000`, `200k`, `1m`, `1M`.
pub fn parse_context_window(value: &str) -> Result<u64, String> {
    let v = value.trim().to_ascii_lowercase().replace(['_', ','], "");
    let (digits, scale) = if let Some(d) = v.strip_suffix('k') {
        (d, 1_000.0)
    } else if let Some(d) = v.strip_suffix('m') {
        (d, 1_000_000.0)
    } else {
        (v.as_str(), 1.0)
    };
    let n: f64 = digits.parse().map_err(|_| {
        format!("`{value}` is not a context window (write e.g. 200k, 1m or 200000)")
    })?;
    let tokens = n * scale;
    if !(tokens.is_finite() && tokens >= 1.0) {
        return Err(format!(
            "`{value}` is not a context window (write e.g. 200k, 1m or 200000)"
        ));
    }
    Ok(tokens.round() as u64)
}

/// The listing budget, in characters, for a context window of `tokens`.
pub fn budget_chars(context_window_tokens: u64) -> usize {
    let chars =
        context_window_tokens.saturating_mul(LISTING_BUDGET_PERCENT * CHARS_PER_TOKEN) / 100;
    usize::try_from(chars).unwrap_or(usize::MAX)
}

/// Simulates Claude Code's listing budget at a context window of
/// `context_window_tokens` with default settings.
pub fn listing_budget(skills: &[&Skill], context_window_tokens: u64) -> BudgetReport {
    listing_budget_with(skills, &ListingSettings::new(context_window_tokens))
}

/// Simulates Claude Code's listing with `settings`: which skills are left
/// out or shown as bare names, and why.
pub fn listing_budget_with(skills: &[&Skill], settings: &ListingSettings) -> BudgetReport {
    let budget = settings.budget_chars();
    let mut entries = Vec::new();
    let mut statuses: Vec<ListingStatus> = Vec::with_capacity(skills.len());
    let mut unlisted = Vec::new();
    // Skills listed by name only whatever the budget (`name-only`).
    let mut named_only = Vec::new();
    let cap = crate::text::thousands(settings.max_desc_chars);
    for skill in skills {
        let status = |status, reason: String| ListingStatus {
            id: skill.id.clone(),
            status,
            reason,
            chars: 0,
            name_chars: 0,
            offset: 0,
            past_budget: false,
            offset_by_cost: 0,
        };
        let override_ = settings.overrides.get(&skill.id).copied();
        if let Some(hidden @ (SkillOverride::Off | SkillOverride::UserInvocableOnly)) = override_ {
            let which = if hidden == SkillOverride::Off {
                "off"
            } else {
                "user-invocable-only"
            };
            unlisted.push(skill.id.clone());
            statuses.push(status("unlisted", format!("skillOverrides: {which}")));
            continue;
        }
        let Some(mut entry) = claude_code_entry_capped(skill, settings.max_desc_chars) else {
            unlisted.push(skill.id.clone());
            statuses.push(status("unlisted", "disable-model-invocation: true".into()));
            continue;
        };
        if override_ == Some(SkillOverride::NameOnly) {
            entry.line = entry.name_line();
            entry.truncated = false;
            named_only.push(entries.len());
            statuses.push(status("name-only", "skillOverrides: name-only".into()));
        } else if entry.line == entry.name_line() {
            statuses.push(status(
                "name-only",
                "no description and no body paragraph".into(),
            ));
        } else if entry.truncated {
            statuses.push(status(
                "truncated",
                format!("cut at {cap} characters (skillListingMaxDescChars)"),
            ));
        } else {
            statuses.push(status("listed", String::new()));
        }
        entries.push(entry);
    }
    let full_lengths: Vec<usize> = entries
        .iter()
        .map(|e| e.line.encode_utf16().count())
        .collect();
    let name_lengths: Vec<usize> = entries
        .iter()
        .map(|e| e.name_line().encode_utf16().count())
        .collect();
    // The listed entries, in order, are the statuses that are not `unlisted`.
    let mut offset = 0;
    let listed = statuses.iter_mut().filter(|s| s.status != "unlisted");
    for ((status, &full), &name) in listed.zip(&full_lengths).zip(&name_lengths) {
        status.chars = full;
        status.name_chars = name;
        status.offset = offset;
        status.past_budget = offset + full > budget;
        offset += full + 1;
    }
    let mut by_cost: Vec<usize> = (0..statuses.len())
        .filter(|&i| statuses[i].status != "unlisted")
        .collect();
    // Stable: equal costs stay in listing order.
    by_cost.sort_by(|&a, &b| statuses[b].chars.cmp(&statuses[a].chars));
    let mut offset = 0;
    for &i in &by_cost {
        statuses[i].offset_by_cost = offset;
        offset += statuses[i].chars + 1;
    }
    // Lines are joined by one newline each.
    let newlines = entries.len().saturating_sub(1);
    let full_chars = full_lengths.iter().sum::<usize>() + newlines;
    // One illustration: descriptions dropped from the end until it fits.
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
    let over_budget = full_chars > budget;
    // What dropping each description saves; only real descriptions can go.
    let savings: Vec<(usize, usize)> = (0..entries.len())
        .map(|i| (i, full_lengths[i] - name_lengths[i]))
        .filter(|&(i, saved)| saved > 0 && !named_only.contains(&i))
        .collect();
    let (min_dropped, max_dropped) = if over_budget {
        let excess = full_chars - budget;
        let mut sizes: Vec<usize> = savings.iter().map(|&(_, s)| s).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let fewest = count_to_cover(&sizes, excess);
        sizes.reverse();
        let most = count_to_cover(&sizes, excess);
        (fewest, most)
    } else {
        (0, 0)
    };
    let at_risk: Vec<String> = if over_budget {
        savings
            .iter()
            .map(|&(i, _)| entries[i].id.clone())
            .collect()
    } else {
        Vec::new()
    };
    if over_budget {
        for status in &mut statuses {
            if at_risk.contains(&status.id) && matches!(status.status, "listed" | "truncated") {
                status.status = "at-risk";
                status.reason = format!(
                    "the listing is over its {}-character budget: {min_dropped} to {max_dropped} descriptions are dropped, least recently used first",
                    crate::text::thousands(budget)
                );
            }
        }
    }
    BudgetReport {
        context_window_tokens: settings.context_window_tokens,
        budget_chars: budget,
        full_chars,
        listed_chars,
        over_budget,
        kept: ids(0..kept_count),
        dropped: ids(kept_count..entries.len()),
        unlisted,
        listing: lines.join("\n"),
        budget_fraction: settings.budget_fraction,
        max_desc_chars: settings.max_desc_chars,
        budget_source: if settings.char_budget.is_some() {
            CHAR_BUDGET_ENV
        } else {
            "context-window"
        },
        at_risk,
        min_dropped,
        max_dropped,
        entries: statuses,
        by_cost,
    }
}

/// How many of `sizes`, taken in order, add up to at least `excess` (all of
/// them when they never do).
fn count_to_cover(sizes: &[usize], excess: usize) -> usize {
    let mut covered = 0;
    for (i, size) in sizes.iter().enumerate() {
        if covered >= excess {
            return i;
        }
        covered += size;
    }
    sizes.len()
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
    catalog_costs_with(
        skills,
        tokenizer,
        &ListingSettings::new(context_window_tokens),
    )
}

/// [`catalog_costs`] with Claude Code's listing `settings`.
pub fn catalog_costs_with(
    skills: &[&Skill],
    tokenizer: &Tokenizer,
    settings: &ListingSettings,
) -> CatalogCosts {
    let agentskills = StageText::measure(agentskills_prompt(skills), tokenizer, false);
    let claude_code = StageText::measure(claude_code_listing(skills), tokenizer, false);
    CatalogCosts {
        skills: skills.len(),
        agentskills,
        claude_code,
        budget: listing_budget_with(skills, settings),
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
        // Each entry says what it costs and where it starts, so a chart of the
        // listing against its budget needs no sums of its own.
        let lengths: Vec<(usize, usize, usize)> = tight
            .entries
            .iter()
            .map(|e| (e.chars, e.name_chars, e.offset))
            .collect();
        assert_eq!(lengths[0], (105, 4, 0));
        assert_eq!(lengths[2], (105, 4, 2 * 106));
        let last = tight.entries.last().unwrap();
        assert_eq!(last.offset + last.chars, tight.full_chars);
        let tiny = listing_budget(&refs, 100);
        assert_eq!(tiny.kept.len(), 0);
        assert_eq!(tiny.listing.lines().count(), 5);
    }

    /// The sorted chart's order and positions come from the engine: largest
    /// first, ties in listing order, unlisted skills left out; and which
    /// entries end past the budget in listing order.
    #[test]
    fn entries_are_ordered_by_cost_and_marked_past_the_budget() {
        let texts = [
            ("short", "Short."),
            ("long", "A much longer description of what this skill does."),
            ("mid-a", "A middling description."),
            ("mid-b", "A middling description."),
        ];
        let mut skills: Vec<Skill> = texts
            .iter()
            .map(|(name, description)| {
                skill(
                    &format!("/l/{name}"),
                    &format!("---\nname: {name}\ndescription: {description}\n---\n"),
                )
            })
            .collect();
        skills.push(skill(
            "/l/hidden",
            "---\nname: hidden\ndescription: Hidden.\ndisable-model-invocation: true\n---\n",
        ));
        let refs: Vec<&Skill> = skills.iter().collect();
        let report = listing_budget(&refs, 200_000);
        let order: Vec<&str> = report
            .by_cost
            .iter()
            .map(|&i| report.entries[i].id.as_str())
            .collect();
        assert_eq!(order, ["long", "mid-a", "mid-b", "short"]);
        let first = &report.entries[report.by_cost[0]];
        let second = &report.entries[report.by_cost[1]];
        assert_eq!(first.offset_by_cost, 0);
        assert_eq!(second.offset_by_cost, first.chars + 1);
        assert!(report.entries.iter().all(|e| !e.past_budget));
        // 40 characters: only the first entry ends before the line.
        let mut settings = ListingSettings::new(200_000);
        settings.char_budget = Some(40);
        let tight = listing_budget_with(&refs, &settings);
        let past: Vec<&str> = tight
            .entries
            .iter()
            .filter(|e| e.past_budget)
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(past, ["long", "mid-a", "mid-b"]);
    }

    #[test]
    fn budget_is_one_percent_of_the_window_at_four_chars_per_token() {
        assert_eq!(budget_chars(200_000), 8_000);
        assert_eq!(budget_chars(1_000_000), 40_000);
        assert_eq!(ListingSettings::new(200_000).budget_chars(), 8_000);
        assert_eq!(ListingSettings::new(1_000_000).budget_chars(), 40_000);
        assert_eq!(parse_context_window("200k"), Ok(200_000));
        assert_eq!(parse_context_window("1M"), Ok(1_000_000));
        assert_eq!(parse_context_window("150000"), Ok(150_000));
        assert!(parse_context_window("big").is_err());
    }

    fn skills_of(n: usize, words: usize) -> Vec<Skill> {
        (0..n)
            .map(|i| {
                let text = format!(
                    "---\nname: s{i}\ndescription: {}\n---\n",
                    "word ".repeat(words)
                );
                skill(&format!("/l/s{i}"), &text)
            })
            .collect()
    }

    /// Claude Code 2.1.129: skillListingBudgetFraction, skillListingMaxDescChars
    /// and skillOverrides, read from settings.json (user, then project).
    #[test]
    fn settings_files_shape_the_listing() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home/.claude");
        let project = tmp.path().join("project");
        let lib = project.join("skills");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(
            home.join("settings.json"),
            r#"{"skillListingBudgetFraction": 0.02, "skillOverrides": {"s0": "off", "s1": "name-only"}}"#,
        )
        .unwrap();
        std::fs::write(
            project.join(".claude/settings.json"),
            r#"{"skillListingMaxDescChars": 20, "skillOverrides": {"s0": "user-invocable-only"}}"#,
        )
        .unwrap();
        let settings = ListingSettings::load(200_000, &[lib], Some(&home), None);
        assert!(settings.problems.is_empty(), "{:?}", settings.problems);
        assert_eq!(settings.budget_chars(), 16_000);
        assert_eq!(settings.max_desc_chars, 20);
        assert_eq!(settings.overrides["s0"], SkillOverride::UserInvocableOnly);
        let skills = skills_of(3, 10);
        let refs: Vec<&Skill> = skills.iter().collect();
        let report = listing_budget_with(&refs, &settings);
        assert_eq!(report.unlisted, ["s0"]);
        let status = |id: &str| report.entries.iter().find(|e| e.id == id).unwrap().clone();
        assert_eq!(status("s0").reason, "skillOverrides: user-invocable-only");
        assert_eq!(status("s1").status, "name-only");
        assert_eq!(status("s2").status, "truncated");
        assert_eq!(
            report.listing,
            format!("- s1\n- s2: {}…", "word word word word".trim_end())
        );
    }

    /// SLASH_COMMAND_TOOL_CHAR_BUDGET sets the budget in characters;
    /// integers take `_` and `1e3` forms (CHANGELOG 2.1.211).
    #[test]
    fn the_environment_budget_wins() {
        let settings = ListingSettings::load(200_000, &[], None, Some("1_000"));
        assert_eq!(settings.budget_chars(), 1_000);
        let skills = skills_of(1, 1);
        let report = listing_budget_with(&[&skills[0]], &settings);
        assert_eq!(report.budget_source, CHAR_BUDGET_ENV);
        let bad = ListingSettings::load(200_000, &[], None, Some("lots"));
        assert_eq!(bad.problems.len(), 1);
    }

    /// Drop order follows recent use (claude-code #68135): the report names
    /// every skill at risk and the range of how many lose their descriptions.
    #[test]
    fn over_budget_skills_are_at_risk_in_a_range() {
        let mut skills = skills_of(3, 20);
        skills.push(skill(
            "/l/short",
            "---\nname: short\ndescription: tiny\n---\n",
        ));
        let refs: Vec<&Skill> = skills.iter().collect();
        // Full lines: 3 × 105 + 13 and 3 newlines, 331; names alone save 101 each and 6.
        let mut settings = ListingSettings::new(200_000);
        settings.char_budget = Some(300);
        let report = listing_budget_with(&refs, &settings);
        assert!(report.over_budget);
        assert_eq!(report.at_risk, ["s0", "s1", "s2", "short"]);
        assert_eq!((report.min_dropped, report.max_dropped), (1, 2));
        assert!(report.entries.iter().all(|e| e.status == "at-risk"));
    }
}
