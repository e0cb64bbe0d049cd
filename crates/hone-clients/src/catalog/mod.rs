//! The catalog: the stage-1 text an agent is given about every skill, and
//! what it costs.
//!
//! Before any skill is chosen, a runtime puts each skill's name and
//! description in front of the model. That text is paid for on *every*
//! request, so it is worth measuring exactly as it is sent. Two forms:
//!
//! - **agentskills**: the `<available_skills>` XML block that the reference
//!   implementation (`skills-ref to-prompt`, version 0.1.1) prints. Each tag
//!   sits on its own line; name and description are trimmed and XML-escaped
//!   as Python's `html.escape` does (`& < > " '`); the location is the
//!   absolute path of the `SKILL.md`. One deliberate difference: the location
//!   is escaped too, so the block is always well-formed XML.
//! - **claude-code**: Claude Code's listing, as its client profile
//!   ([`crate::clients::claude_code`]) predicts it for a model: entries,
//!   the client's own skills, the budget. This module only reads the
//!   settings that shape it ([`ListingSettings`], kept in the profile) and
//!   reports how the library fits the budget ([`listing_budget_with`]);
//!   every rule of the
//!   listing itself lives in the profile, which the real-client suite holds
//!   to the real client byte for byte.
//!
//! The settings: `skillListingBudgetFraction` (default 0.01 of the model's
//! window), `skillListingMaxDescChars` (default 1,536), `skillOverrides`
//! (a skill name to `off`, hidden from the model and the `/` menu;
//! `user-invocable-only`, hidden from the model; `name-only`, listed as a
//! bare name; CHANGELOG 2.1.129), read from the user's
//! `~/.claude/settings.json`, then the project's `.claude/settings.json` and
//! `.claude/settings.local.json` (later files win), and
//! `SLASH_COMMAND_TOOL_CHAR_BUDGET`, the budget in characters.
//!
//! Over budget, names are always kept and the client's own skills keep
//! their descriptions; the author's keep theirs greedily, most used first
//! (`skillUsage` in `~/.claude.json`). A library's report cannot know the
//! author's history, so it names every skill at risk and how many lose
//! their descriptions at least and at most; `kept`/`dropped` show the fill
//! with no history (listing order), what a fresh install shows.
//!
//! It also measures what one skill costs at each stage of progressive
//! disclosure ([`skill_costs`]: the catalog entry, the body, the resources;
//! `stages.rs`), since stage 1 is this catalog. The catalog sits above the
//! tokenizer ([`crate::tokens`]) and the client profiles
//! ([`crate::clients`]), and neither imports it.

mod stages;

pub use stages::{
    BinaryResource, InstructionsCost, MetadataCost, ResourceCost, ResourceCosts, SkillCosts,
    StageText, StageTotals, UnreadableResource, skill_costs, skills_costs, skills_stage_totals,
};

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::clients::claude_code::{self, CHAR_BUDGET_ENV, ListingSettings};
use crate::skill::Skill;
use crate::tokens::Tokenizer;

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

/// How the library fits Claude Code's listing budget for one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct BudgetReport {
    /// The Claude Code version whose profile made the listing.
    pub client_version: &'static str,
    /// The model the listing is for: its window and characters a token set
    /// the budget.
    pub model: String,
    pub context_window_tokens: u64,
    /// The characters the client counts per token for this model.
    pub chars_per_token: u32,
    /// The budget, in characters as the client counts them (terminal
    /// columns): window × characters a token × `skillListingBudgetFraction`,
    /// or `SLASH_COMMAND_TOOL_CHAR_BUDGET`.
    pub budget_chars: usize,
    /// Length of the full listing, the client's own skills included.
    pub full_chars: usize,
    /// Length of the listing as sent with no record of use.
    pub listed_chars: usize,
    pub over_budget: bool,
    /// The library's skills listed with their description, with no record
    /// of use, in listing order.
    pub kept: Vec<String>,
    /// The library's skills shown as bare names to fit the budget, with no
    /// record of use, in listing order.
    pub dropped: Vec<String>,
    /// The library's skills not listed at all (`disable-model-invocation:
    /// true`, a `skillOverrides` of `off` / `user-invocable-only`, or a
    /// folder name taken by an earlier skill).
    pub unlisted: Vec<String>,
    /// The client's own skills listed beside the library's.
    pub builtins: Vec<String>,
    /// What the client's own skills take of the budget before any of the
    /// library's descriptions (their full entries and newlines).
    pub builtin_chars: usize,
    /// The listing as the model reads it, with no record of use.
    pub listing: String,
    /// `skillListingBudgetFraction` used.
    pub budget_fraction: f64,
    /// `skillListingMaxDescChars` used.
    pub max_desc_chars: usize,
    /// Where the budget came from: `context-window` or `SLASH_COMMAND_TOOL_CHAR_BUDGET`.
    pub budget_source: &'static str,
    /// Over budget: every entry that may lose its description (which ones
    /// do depends on recent use, never-used first).
    pub at_risk: Vec<String>,
    /// Over budget: the fewest and the most descriptions the client drops,
    /// depending on which skills were used most recently.
    pub min_dropped: usize,
    pub max_dropped: usize,
    /// Every skill of the library, then each of the client's own, and how
    /// it is listed, with the reason.
    pub entries: Vec<ListingStatus>,
    /// The listed entries by cost, largest first (ties in listing order), as
    /// indices into `entries`: the order of the sorted listing chart.
    pub by_cost: Vec<usize>,
}

/// How one skill appears in Claude Code's listing, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ListingStatus {
    /// The library skill's identity, or the built-in's name.
    pub id: String,
    /// `listed`, `truncated`, `name-only`, `at-risk`, `unlisted` or `built-in`.
    pub status: &'static str,
    /// Why, in words ("skillOverrides: name-only", "cut at 1,536 characters").
    pub reason: String,
    /// One of the client's own skills.
    pub builtin: bool,
    /// The entry's length in the full listing, as the budget counts it; 0
    /// when unlisted.
    pub chars: usize,
    /// Its length as a bare name (what is left when its description is dropped).
    pub name_chars: usize,
    /// Where the entry starts when the client's own skills come first (they
    /// take their share first), then the library's in listing order,
    /// newlines included.
    pub offset: usize,
    /// Whether the entry loses its description when no skill was used more
    /// recently: the fill in listing order.
    pub past_budget: bool,
    /// Where the entry starts when the listed entries are laid end to end by
    /// cost, largest first: in that order, the entries that start before the
    /// budget are the largest ones that fill it on their own.
    pub offset_by_cost: usize,
}

/// Claude Code's listing of `skills` for `model` (its default when `None`)
/// with default settings.
pub fn listing_budget(skills: &[&Skill], model: Option<&str>) -> BudgetReport {
    listing_budget_with(skills, &ListingSettings::new(), model)
}

/// How `skills` fit Claude Code's listing for `model` (its default when
/// `None`) with `settings`: which are left out, cut or shown as bare names,
/// and why. The listing comes from the client profile; this lays it out.
pub fn listing_budget_with(
    skills: &[&Skill],
    settings: &ListingSettings,
    model: Option<&str>,
) -> BudgetReport {
    // As sent, and with room for everything: each entry's full length.
    let claude_code::BudgetLayout { sent, full, cut } =
        claude_code::budget_layout(skills, settings, model);
    let (window, chars_per_token, budget, from_env) = match &sent.budget {
        Some(b) => (
            b.context_window_tokens,
            b.bytes_per_token,
            usize::try_from(b.budget_chars).unwrap_or(usize::MAX),
            b.source == "env",
        ),
        None => (0, 0, usize::MAX, false),
    };
    let over_budget = sent.budget.as_ref().is_some_and(|b| b.over_budget);
    let cap = crate::text::thousands(settings.max_desc_chars);

    // One layout per entry of the listing, in the client's order.
    struct Layout {
        chars: usize,
        name_chars: usize,
        /// Keeps its description whatever the budget.
        fixed: bool,
        dropped: bool,
    }
    let layouts: Vec<Layout> = full
        .entries
        .iter()
        .zip(&sent.entries)
        .map(|(entry, as_sent)| {
            let label = &entry.text[..entry.text.len() - entry.description.len()];
            let bare = label.strip_suffix(": ").unwrap_or(label);
            let name_only = entry.bare;
            let fixed =
                name_only || (entry.builtin && !claude_code::builtin_is_budgeted(&entry.name));
            Layout {
                chars: claude_code::budget_width(&entry.text),
                name_chars: claude_code::budget_width(if name_only { &entry.text } else { bare }),
                fixed,
                dropped: as_sent.bare && !name_only,
            }
        })
        .collect();
    let joined = |widths: &mut dyn Iterator<Item = usize>| -> usize {
        let (sum, count) = widths.fold((0usize, 0usize), |(s, n), w| (s + w, n + 1));
        sum + count.saturating_sub(1)
    };
    let full_chars = joined(&mut layouts.iter().map(|l| l.chars));
    let listed_chars = joined(
        &mut layouts
            .iter()
            .map(|l| if l.dropped { l.name_chars } else { l.chars }),
    );

    // What each droppable description saves, and the room left for them
    // once every name and every fixed entry is in.
    let droppable = |i: usize| !layouts[i].fixed && layouts[i].chars > layouts[i].name_chars;
    let floor = joined(
        &mut layouts
            .iter()
            .map(|l| if l.fixed { l.chars } else { l.name_chars }),
    );
    let (min_dropped, max_dropped) = if over_budget {
        let mut extras: Vec<usize> = (0..layouts.len())
            .filter(|&i| droppable(i))
            .map(|i| layouts[i].chars - layouts[i].name_chars)
            .collect();
        let room = budget.saturating_sub(floor);
        let fits = |extras: &[usize]| -> usize {
            let mut left = room;
            extras
                .iter()
                .filter(|&&extra| {
                    let fits = extra <= left;
                    if fits {
                        left -= extra;
                    }
                    fits
                })
                .count()
        };
        // Smallest used most recently: the most kept; largest: the fewest.
        extras.sort_unstable();
        let most_kept = fits(&extras);
        extras.reverse();
        let fewest_kept = fits(&extras);
        (extras.len() - most_kept, extras.len() - fewest_kept)
    } else {
        (0, 0)
    };
    // The library's skills by the SKILL.md they are listed from.
    let index_of: HashMap<&str, usize> = full
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.builtin)
        .map(|(i, e)| (e.path.as_str(), i))
        .collect();
    let left_out: HashMap<&str, &str> = full
        .left_out
        .iter()
        .map(|l| (l.path.as_str(), l.reason.as_str()))
        .collect();
    let mut at_risk_ids = Vec::new();
    let mut entries: Vec<ListingStatus> = Vec::with_capacity(skills.len() + layouts.len());
    // Which entry of the listing each status shows, if listed.
    let mut shown: Vec<Option<usize>> = Vec::with_capacity(entries.capacity());
    let (mut kept, mut dropped, mut unlisted) = (Vec::new(), Vec::new(), Vec::new());
    let risk_reason = format!(
        "the listing is over its {}-character budget: {min_dropped} to {max_dropped} descriptions are dropped, least recently used first",
        crate::text::thousands(budget)
    );
    for skill in skills {
        let path = skill.dir.join("SKILL.md").display().to_string();
        let status = |status, reason: String| ListingStatus {
            id: skill.id.clone(),
            status,
            reason,
            builtin: false,
            chars: 0,
            name_chars: 0,
            offset: 0,
            past_budget: false,
            offset_by_cost: 0,
        };
        let Some(&i) = index_of.get(path.as_str()) else {
            let reason = left_out.get(path.as_str()).copied().unwrap_or("not listed");
            unlisted.push(skill.id.clone());
            entries.push(status("unlisted", reason.to_string()));
            shown.push(None);
            continue;
        };
        let entry = &full.entries[i];
        let (state, reason) = if entry.bare {
            ("name-only", "skillOverrides: name-only".to_string())
        } else if over_budget && droppable(i) {
            at_risk_ids.push(skill.id.clone());
            ("at-risk", risk_reason.clone())
        } else if cut.get(i).copied().unwrap_or(false) {
            (
                "truncated",
                format!("cut at {cap} characters (skillListingMaxDescChars)"),
            )
        } else {
            ("listed", String::new())
        };
        if layouts[i].dropped {
            dropped.push(skill.id.clone());
        } else if !entry.bare {
            kept.push(skill.id.clone());
        }
        entries.push(status(state, reason));
        shown.push(Some(i));
    }
    let mut builtins = Vec::new();
    for (i, entry) in full.entries.iter().enumerate().filter(|(_, e)| e.builtin) {
        builtins.push(entry.name.clone());
        let (state, reason) = if over_budget && droppable(i) {
            at_risk_ids.push(entry.name.clone());
            ("at-risk", risk_reason.clone())
        } else {
            (
                "built-in",
                "Claude Code's own skill: listed whatever the library, before the library's descriptions".to_string(),
            )
        };
        entries.push(ListingStatus {
            id: entry.name.clone(),
            status: state,
            reason,
            builtin: true,
            chars: 0,
            name_chars: 0,
            offset: 0,
            past_budget: false,
            offset_by_cost: 0,
        });
        shown.push(Some(i));
    }

    // Lengths and places: the client's own skills first, as the budget
    // takes them, then the library's in listing order.
    let mut order: Vec<usize> = (0..entries.len()).filter(|&k| shown[k].is_some()).collect();
    order.sort_by_key(|&k| !entries[k].builtin);
    let mut offset = 0;
    for &k in &order {
        let Some(i) = shown[k] else { continue };
        let status = &mut entries[k];
        status.chars = layouts[i].chars;
        status.name_chars = layouts[i].name_chars;
        status.offset = offset;
        status.past_budget = layouts[i].dropped;
        offset += layouts[i].chars + 1;
    }
    let builtin_chars = joined(
        &mut layouts
            .iter()
            .zip(&full.entries)
            .filter(|(_, e)| e.builtin)
            .map(|(l, _)| l.chars),
    );
    let mut by_cost: Vec<usize> = (0..entries.len()).filter(|&k| shown[k].is_some()).collect();
    // Stable: equal costs stay in listing order.
    by_cost.sort_by(|&a, &b| entries[b].chars.cmp(&entries[a].chars));
    let mut offset = 0;
    for &k in &by_cost {
        entries[k].offset_by_cost = offset;
        offset += entries[k].chars + 1;
    }
    BudgetReport {
        client_version: sent.client_version,
        model: sent.model,
        context_window_tokens: window,
        chars_per_token,
        budget_chars: budget,
        full_chars,
        listed_chars,
        over_budget,
        kept,
        dropped,
        unlisted,
        builtins,
        builtin_chars,
        listing: sent.listing,
        budget_fraction: settings.budget_fraction,
        max_desc_chars: settings.max_desc_chars,
        budget_source: if from_env {
            CHAR_BUDGET_ENV
        } else {
            "context-window"
        },
        at_risk: at_risk_ids,
        min_dropped,
        max_dropped,
        entries,
        by_cost,
    }
}

/// The whole library's stage-1 cost in both runtime forms.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogCosts {
    pub skills: usize,
    /// The `<available_skills>` block.
    pub agentskills: StageText,
    /// Claude Code's listing as the model reads it (its header and its own
    /// skills included), with no record of use.
    pub claude_code: StageText,
    pub budget: BudgetReport,
}

/// Measures the catalog of `skills` with `tokenizer`, Claude Code's listing
/// for `model` (its default when `None`) with default settings.
pub fn catalog_costs(
    skills: &[&Skill],
    tokenizer: &Tokenizer,
    model: Option<&str>,
) -> CatalogCosts {
    catalog_costs_with(skills, tokenizer, &ListingSettings::new(), model)
}

/// [`catalog_costs`] with Claude Code's listing `settings`.
pub fn catalog_costs_with(
    skills: &[&Skill],
    tokenizer: &Tokenizer,
    settings: &ListingSettings,
    model: Option<&str>,
) -> CatalogCosts {
    let agentskills = StageText::measure(agentskills_prompt(skills), tokenizer, false);
    let budget = listing_budget_with(skills, settings, model);
    let claude_code = StageText::measure(budget.listing.clone(), tokenizer, false);
    CatalogCosts {
        skills: skills.len(),
        agentskills,
        claude_code,
        budget,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::clients::claude_code::SkillOverride;
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

    /// The report is the profile's listing laid out: the model sets the
    /// budget (window × characters a token × 1%), the client's own skills
    /// are listed after the library's and counted first.
    #[test]
    fn the_model_sets_the_budget_and_built_ins_take_their_share() {
        let skills = skills_of(3, 5);
        let refs: Vec<&Skill> = skills.iter().collect();
        let default = listing_budget(&refs, None);
        assert_eq!(default.model, claude_code::DEFAULT_MODEL);
        assert_eq!(default.budget_chars, 30_000);
        let sonnet = listing_budget(&refs, Some("claude-sonnet-4-5"));
        assert_eq!(
            (sonnet.context_window_tokens, sonnet.chars_per_token),
            (200_000, 4)
        );
        assert_eq!(sonnet.budget_chars, 8_000);
        assert!(!default.over_budget && default.dropped.is_empty());
        assert_eq!(default.kept, ["s0", "s1", "s2"]);
        assert_eq!(default.builtins.len(), claude_code::builtins().len());
        assert!(
            default
                .listing
                .contains("\n- s0: word word word word word\n")
        );
        let built_in = default.entries.iter().find(|e| e.builtin).unwrap();
        assert_eq!(built_in.status, "built-in");
        // The client's own skills are placed first; the library's follow.
        let first_library = &default.entries[0];
        assert_eq!(first_library.offset, default.builtin_chars + 1);
        let last = default.entries.iter().max_by_key(|e| e.offset).unwrap();
        assert_eq!(last.offset + last.chars, default.full_chars);
    }

    /// Over budget, with no record of use, the library's descriptions are
    /// kept greedily in listing order; the report names every one at risk
    /// and the range of how many go.
    #[test]
    fn over_budget_descriptions_go_greedily_and_the_range_is_named() {
        let mut skills = skills_of(3, 20);
        skills.push(skill(
            "/l/short",
            "---\nname: short\ndescription: tiny\n---\n",
        ));
        let refs: Vec<&Skill> = skills.iter().collect();
        let roomy = listing_budget(&refs, None);
        // Room for the built-ins, every name, one long description and the
        // short one: s0 keeps its, s1 and s2 lose theirs, short still fits.
        // Names are always listed, and the bundled built-ins whole.
        let fixed = |e: &ListingStatus| e.builtin && !claude_code::builtin_is_budgeted(&e.id);
        let floor: usize = roomy
            .entries
            .iter()
            .map(|e| if fixed(e) { e.chars } else { e.name_chars } + 1)
            .sum::<usize>()
            - 1;
        let library = &roomy.entries[..4];
        let extra = |e: &ListingStatus| e.chars - e.name_chars;
        let mut settings = ListingSettings::new();
        settings.char_budget = Some(floor + extra(&library[0]) + extra(&library[3]) + 50);
        let tight = listing_budget_with(&refs, &settings, None);
        assert!(tight.over_budget);
        assert_eq!(tight.budget_source, CHAR_BUDGET_ENV);
        assert_eq!(tight.kept, ["s0", "short"]);
        assert_eq!(tight.dropped, ["s1", "s2"]);
        assert!(tight.listed_chars <= tight.budget_chars);
        assert!(tight.listing.contains("\n- s1\n- s2\n- short: tiny\n"));
        assert_eq!(tight.at_risk[..4], ["s0", "s1", "s2", "short"]);
        // Whatever the order of use, one long description and the short one
        // fit, and the built-in that may lose its description does not.
        assert_eq!((tight.min_dropped, tight.max_dropped), (3, 3));
        let past: Vec<&str> = tight
            .entries
            .iter()
            .filter(|e| e.past_budget)
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(past, ["s1", "s2", "security-review"]);
        assert!(tight.entries[..4].iter().all(|e| e.status == "at-risk"));
    }

    /// The sorted chart's order and positions come from the engine: largest
    /// first, ties in listing order, unlisted skills left out.
    #[test]
    fn entries_are_ordered_by_cost() {
        let texts = [
            ("short", "Short."),
            ("long", &"A much longer description. ".repeat(40)),
            ("mid-a", &"A middling description. ".repeat(20)),
            ("mid-b", &"A middling description. ".repeat(20)),
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
        let report = listing_budget(&refs, None);
        let library: Vec<&str> = report
            .by_cost
            .iter()
            .map(|&i| &report.entries[i])
            .filter(|e| !e.builtin)
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(library, ["long", "mid-a", "mid-b", "short"]);
        let first = &report.entries[report.by_cost[0]];
        let second = &report.entries[report.by_cost[1]];
        assert_eq!(first.offset_by_cost, 0);
        assert_eq!(second.offset_by_cost, first.chars + 1);
        assert_eq!(report.unlisted, ["hidden"]);
        assert!(report.entries.iter().all(|e| !e.past_budget));
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
        let settings = ListingSettings::load(&[lib], Some(&home), None);
        assert!(settings.problems.is_empty(), "{:?}", settings.problems);
        assert_eq!(settings.max_desc_chars, 20);
        assert_eq!(settings.overrides["s0"], SkillOverride::UserInvocableOnly);
        let skills = skills_of(3, 10);
        let refs: Vec<&Skill> = skills.iter().collect();
        let report = listing_budget_with(&refs, &settings, Some("claude-sonnet-4-5"));
        assert_eq!(report.budget_chars, 16_000);
        assert_eq!(report.unlisted, ["s0"]);
        let status = |id: &str| report.entries.iter().find(|e| e.id == id).unwrap().clone();
        assert_eq!(status("s0").reason, "skillOverrides: user-invocable-only");
        assert_eq!(status("s1").status, "name-only");
        assert_eq!(status("s2").status, "truncated");
        assert!(
            report
                .listing
                .contains("\n\n- s1\n- s2: word word word word…\n"),
            "{}",
            report.listing
        );
    }

    /// SLASH_COMMAND_TOOL_CHAR_BUDGET sets the budget in characters;
    /// integers take `_` and `1e3` forms (CHANGELOG 2.1.211).
    #[test]
    fn the_environment_budget_wins() {
        let settings = ListingSettings::load(&[], None, Some("1_000"));
        assert_eq!(settings.char_budget, Some(1_000));
        let skills = skills_of(1, 1);
        let report = listing_budget_with(&[&skills[0]], &settings, None);
        assert_eq!(report.budget_source, CHAR_BUDGET_ENV);
        assert_eq!(report.budget_chars, 1_000);
        let bad = ListingSettings::load(&[], None, Some("lots"));
        assert_eq!(bad.problems.len(), 1);
    }
}
