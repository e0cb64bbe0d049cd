//! Claude Code's skill listing, as version 2.1.328 builds it.
//!
//! Every rule here was read off the real client: its requests to a loopback
//! stand-in of the Anthropic API, on planted libraries (the real-client
//! suite in `crates/hone-cli/tests/clients_real.rs` holds each to the client
//! byte for byte). In short:
//!
//! - **Folders.** `~/.claude/skills/<folder>/SKILL.md` first, then
//!   `.claude/skills/<folder>/SKILL.md` in the working folder and each folder
//!   above it up to the git root (never `$HOME` itself), one level deep,
//!   folders in code-unit order, hidden ones included. A name seen
//!   earlier wins, so a user skill hides a project skill of the same name.
//!   `synced` and `anthropic-skills` are reserved; a folder without a
//!   `SKILL.md` (a lowercase `skill.md` included) is not a skill.
//! - **Names.** A skill is called by its folder's name; a frontmatter `name`
//!   that differs is shown as an alias in brackets when it is a plain word.
//! - **Descriptions.** A string is trimmed, a number or boolean is written
//!   out, anything else (a list, a map, unparsable YAML) is dropped; a missing
//!   or empty one becomes the body's first non-blank line (a heading's marks
//!   stripped, cut at 100 characters). `when_to_use` follows after ` - `.
//!   Runs of control characters (line breaks, tabs) become one space, `<`
//!   and `>` are escaped, and the whole is cut at `skillListingMaxDescChars`
//!   (1,536) UTF-16 units with `…`.
//! - **Budget.** `SLASH_COMMAND_TOOL_CHAR_BUDGET`, else the model's context
//!   window × its characters per token (4 for models up to the 4.6
//!   generation, 3 after) × `skillListingBudgetFraction` (0.01). The
//!   client's own skills always keep their descriptions; the author's keep
//!   theirs greedily, most used first (`skillUsage` in `~/.claude.json`),
//!   and the rest are shown as bare names.
//!
//! The settings that shape the listing ([`ListingSettings`]: the
//! `settings.json` keys and `SLASH_COMMAND_TOOL_CHAR_BUDGET`) are read
//! here too, so the catalog's budget report, the token stages and the rules
//! (HS204's cap, [`project_listing_cap`]) take them from the profile; the
//! profile imports none of those.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Client;
use super::bundled::{Builtin, SkillTool, bundled};
use super::prediction::{Budget, Entry, Environment, LeftOut, Prediction, shown_path};
use crate::skill::Skill;

/// Anthropic's API, which Claude Code and the Anthropic agent provider talk to.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

pub const VERSION: &str = "2.1.328";

/// The model Claude Code uses when none is chosen.
pub const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// The listing's header, as the model reads it.
const HEADER: &str = "The following skills are available for use with the Skill tool:\n\n";

/// Folders Claude Code keeps for skills it syncs itself.
const RESERVED_FOLDERS: [&str; 2] = ["synced", "anthropic-skills"];

/// Models whose budget counts 4 characters a token; later ones count 3.
const FOUR_CHARS_PER_TOKEN: [&str; 14] = [
    "claude-3-opus",
    "claude-3-sonnet",
    "claude-3-haiku",
    "claude-3-5-sonnet",
    "claude-3-5-haiku",
    "claude-3-7-sonnet",
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-sonnet-4-0",
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
];

/// The heading-stripped first body line is cut at this many characters.
const BODY_LINE_LIMIT: usize = 100;

/// The client's own skills at [`VERSION`], captured from the real client.
pub fn builtins() -> &'static [Builtin] {
    &bundled(Client::ClaudeCode).skills
}

/// The `Skill` tool at [`VERSION`]: its description is fixed, and the
/// listing travels apart from it (see [`placement`]).
pub fn skill_tool() -> &'static SkillTool {
    bundled(Client::ClaudeCode)
        .skill_tool
        .as_ref()
        .expect("the bundled capture of Claude Code has its Skill tool (a unit test checks)")
}

/// The model's context window and characters per token, as the client
/// counts them.
pub fn model_window(model: &str) -> (u64, u32) {
    let base = model.strip_suffix("[1m]").unwrap_or(model);
    let family = base
        .split('@')
        .next()
        .unwrap_or(base)
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '-')
        .replace(['.', '_'], "-");
    // A date suffix (claude-sonnet-4-5-20250929) is stripped with the digits;
    // put back what identifies the model.
    let known = FOUR_CHARS_PER_TOKEN
        .iter()
        .find(|m| base.replace(['.', '_'], "-").starts_with(*m));
    let chars_per_token = if known.is_some() { 4 } else { 3 };
    let one_million = model.ends_with("[1m]") || (known.is_none() && family.starts_with("claude-"));
    let window = if one_million { 1_000_000 } else { 200_000 };
    (window, chars_per_token)
}

/// A skill folder found, before it is read.
struct Found {
    folder: String,
    skill_md: PathBuf,
}

/// The skill folders under `skills_dir`, one level deep, in the order the
/// client reads them, and the folders it passes over.
fn scan(skills_dir: &Path, left_out: &mut Vec<LeftOut>) -> Vec<Found> {
    let Ok(read) = std::fs::read_dir(skills_dir) else {
        return Vec::new();
    };
    let mut folders: Vec<(String, PathBuf)> = read
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            )
        })
        .collect();
    // JavaScript sorts strings by UTF-16 code units.
    folders.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let mut found = Vec::new();
    for (folder, path) in folders {
        let skill_md = path.join("SKILL.md");
        if RESERVED_FOLDERS.contains(&folder.as_str()) {
            left_out.push(LeftOut {
                path: shown_path(&path),
                reason: format!("`{folder}` is a folder Claude Code keeps for skills it syncs"),
            });
        } else if skill_md.is_file() {
            found.push(Found { folder, skill_md });
        } else if path.join("skill.md").is_file() {
            left_out.push(LeftOut {
                path: shown_path(&path.join("skill.md")),
                reason: "the file must be named SKILL.md (upper case)".into(),
            });
        } else {
            left_out.push(LeftOut {
                path: shown_path(&path),
                reason: "no SKILL.md in this folder (nested folders are not read)".into(),
            });
        }
    }
    found
}

/// The project's skill folders: the working folder's and each above it, up
/// to the git root, nearest first; never the home folder's.
fn project_skill_dirs(dir: &Path, home: &Path) -> Vec<PathBuf> {
    let start = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
    let mut dirs = Vec::new();
    for ancestor in start.ancestors() {
        if ancestor == home {
            break;
        }
        dirs.push(ancestor.join(".claude/skills"));
        if ancestor.join(".git").exists() {
            break;
        }
    }
    dirs
}

/// The user's Claude folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
fn user_dir(env: &Environment) -> PathBuf {
    env.var("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.home.join(".claude"))
}

/// A skill as the client holds it for the listing.
#[derive(Clone)]
struct Listed {
    name: String,
    alias: Option<String>,
    description: String,
    path: PathBuf,
}

/// The frontmatter as the client reads it, and the body: YAML that does not
/// load is read again with `: ` values quoted (the client quotes values it
/// would lose), then given up on (no metadata). An unclosed frontmatter is
/// all body.
fn read_frontmatter(text: &str) -> (serde_json::Map<String, serde_json::Value>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((yaml_text, body)) = super::frontmatter::split(text) else {
        return (serde_json::Map::new(), text);
    };
    let last_wins = |yaml: &str| -> Option<serde_json::Map<String, serde_json::Value>> {
        let node = crate::yaml::parse(yaml, 0).ok()?;
        let mut map = serde_json::Map::new();
        for (key, value) in node.as_map().unwrap_or_default() {
            map.insert(key.key_string(), value.to_json());
        }
        Some(map)
    };
    let map = last_wins(yaml_text)
        .or_else(|| last_wins(&super::frontmatter::quote_lossy_values(yaml_text)))
        .unwrap_or_default();
    (map, body)
}

/// The description the client lists for `skill`, before the cut: the
/// frontmatter's, else the body's first line; then `when_to_use`.
pub fn listing_description(skill: &Skill) -> String {
    let (map, body) = read_frontmatter(skill.text());
    let field = |key: &str| -> Option<String> {
        let value = map.get(key)?.clone();
        match value {
            serde_json::Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    let description = field("description").unwrap_or_else(|| first_body_line(body));
    let description = one_line(&description);
    match field("when_to_use") {
        Some(when) => format!("{description} - {}", one_line(&when)),
        None => description,
    }
}

/// The body's first non-blank line, a heading's marks stripped, cut at 100
/// characters.
fn first_body_line(body: &str) -> String {
    let Some(line) = body
        .split('\n')
        .map(str::trim)
        .find(|line| !line.is_empty())
    else {
        return "Skill".to_string();
    };
    let heading = line
        .strip_prefix('#')
        .map(|rest| rest.trim_start_matches('#'))
        .filter(|rest| rest.starts_with(char::is_whitespace))
        .map(str::trim_start)
        .filter(|rest| !rest.is_empty());
    let line = heading.unwrap_or(line);
    if line.encode_utf16().count() > BODY_LINE_LIMIT {
        format!("{}...", utf16_prefix(line, BODY_LINE_LIMIT - 3))
    } else {
        line.to_string()
    }
}

/// Runs of control characters (line breaks, tabs) become one space; `<`
/// and `>` are escaped.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.chars() {
        if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
            continue;
        }
        in_run = false;
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// The longest prefix of `text` of at most `units` UTF-16 code units.
fn utf16_prefix(text: &str, units: usize) -> &str {
    let mut count = 0;
    for (at, c) in text.char_indices() {
        count += c.len_utf16();
        if count > units {
            return &text[..at];
        }
    }
    text
}

/// `text` cut as the client cuts a description: past `limit` UTF-16 units,
/// `limit - 1` units and `…`.
fn cut(text: &str, limit: usize) -> String {
    if text.encode_utf16().count() > limit {
        format!("{}…", utf16_prefix(text, limit.saturating_sub(1)))
    } else {
        text.to_string()
    }
}

/// Whether a frontmatter name may be shown as an alias: letters, marks,
/// digits, `_`, `:`, `.` and `-`, at most 256 units.
fn plain_alias(name: &str) -> bool {
    name.encode_utf16().count() <= 256
        && !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.' | '-') || is_mark(c))
}

fn is_mark(c: char) -> bool {
    use unicode_normalization::char::is_combining_mark;
    is_combining_mark(c)
}

/// How wide the client counts a string for its budget: terminal columns.
fn width(text: &str) -> u64 {
    unicode_width::UnicodeWidthStr::width(text) as u64
}

/// How much each skill has been used (`skillUsage` in `~/.claude.json`),
/// decayed by a half-life of a week, as the client ranks them over budget.
fn usage_scores(env: &Environment, now_ms: f64) -> std::collections::HashMap<String, f64> {
    let path = env
        .var("CLAUDE_CONFIG_DIR")
        .map(|dir| PathBuf::from(dir).join(".claude.json"))
        .unwrap_or_else(|| env.home.join(".claude.json"));
    let Some(usage) = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|json| json.get("skillUsage").cloned())
    else {
        return Default::default();
    };
    let Some(map) = usage.as_object() else {
        return Default::default();
    };
    map.iter()
        .filter_map(|(name, entry)| {
            let count = entry.get("usageCount")?.as_f64()?;
            let last = entry.get("lastUsedAt")?.as_f64()?;
            let days = (now_ms - last) / 86_400_000.0;
            Some((name.clone(), count * 0.5f64.powf(days / 7.0).max(0.1)))
        })
        .collect()
}

/// Predicts the listing Claude Code gives `model` when started in `dir`.
pub fn predict(dir: &Path, env: &Environment, model: Option<&str>) -> Prediction {
    let model = model
        .map(str::to_string)
        .or_else(|| env.var("ANTHROPIC_MODEL").map(str::to_string))
        .unwrap_or_else(|| DEFAULT_MODEL.to_string());
    let user = user_dir(env);
    let project_dirs = project_skill_dirs(dir, &env.home);
    let mut left_out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut listed: Vec<Listed> = Vec::new();

    let settings = ListingSettings::load(
        &[dir.to_path_buf()],
        Some(user.as_path()),
        env.var("SLASH_COMMAND_TOOL_CHAR_BUDGET"),
    );

    let groups = std::iter::once(user.join("skills")).chain(project_dirs);
    for skills_dir in groups {
        for found in scan(&skills_dir, &mut left_out) {
            let shown = shown_path(&found.skill_md);
            if !seen.insert(found.folder.clone()) {
                left_out.push(LeftOut {
                    path: shown,
                    reason: format!(
                        "a skill named `{}` was found first (user skills come before project skills)",
                        found.folder
                    ),
                });
                continue;
            }
            let skill = match Skill::load(found.skill_md.parent().unwrap_or(&found.skill_md)) {
                Ok(skill) => skill,
                Err(err) => {
                    left_out.push(LeftOut {
                        path: shown,
                        reason: format!("cannot be read: {err}"),
                    });
                    continue;
                }
            };
            match listed_as(&skill, found.folder, found.skill_md, &settings) {
                Ok(entry) => listed.push(entry),
                Err(reason) => left_out.push(LeftOut {
                    path: shown,
                    reason,
                }),
            }
        }
    }

    render(listed, left_out, &settings, model, env)
}

/// The listing of `skills` (a library held in memory, edits included) as
/// Claude Code shows it to `model` (its default when `None`), with its own
/// skills, `settings`' cut, overrides and budget variable, and no usage
/// history: what the agent ranker shows a model to ask as Claude Code would.
pub fn predict_skills(
    skills: &[&Skill],
    settings: &ListingSettings,
    model: Option<&str>,
) -> Prediction {
    let (listed, left_out) = read_skills(skills, settings);
    render_fresh(listed, left_out, settings, model)
}

/// The library's skills as the client reads them from memory, in order:
/// the listed ones, and the others with the reason.
fn read_skills(skills: &[&Skill], settings: &ListingSettings) -> (Vec<Listed>, Vec<LeftOut>) {
    let mut left_out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut listed = Vec::new();
    for skill in skills {
        let folder = skill.dir_name();
        let shown = shown_path(&skill.dir.join("SKILL.md"));
        if !seen.insert(folder.clone()) {
            left_out.push(LeftOut {
                path: shown,
                reason: format!("a skill named `{folder}` was found first"),
            });
            continue;
        }
        match listed_as(skill, folder, skill.dir.join("SKILL.md"), settings) {
            Ok(entry) => listed.push(entry),
            Err(reason) => left_out.push(LeftOut {
                path: shown,
                reason,
            }),
        }
    }
    (listed, left_out)
}

/// [`render`] for `model` (the client's default when `None`) with no home:
/// no usage history ranks the skills over budget.
fn render_fresh(
    listed: Vec<Listed>,
    left_out: Vec<LeftOut>,
    settings: &ListingSettings,
    model: Option<&str>,
) -> Prediction {
    let model = model.unwrap_or(DEFAULT_MODEL).to_string();
    let env = Environment::with_home(Path::new("/nonexistent"));
    render(listed, left_out, settings, model, &env)
}

/// A library's listing laid out against the budget: as [`predict_skills`]
/// sends it, the same with room for every description (what each entry
/// costs whole), and, per listed skill of the library in order, whether
/// `skillListingMaxDescChars` cut its description. The library is read once.
pub struct BudgetLayout {
    pub sent: Prediction,
    pub full: Prediction,
    pub cut: Vec<bool>,
}

/// The [`BudgetLayout`] of `skills` for `model`.
pub fn budget_layout(
    skills: &[&Skill],
    settings: &ListingSettings,
    model: Option<&str>,
) -> BudgetLayout {
    let (listed, left_out) = read_skills(skills, settings);
    let cut = listed.iter().map(|l| is_cut(l, settings)).collect();
    let full = render_fresh(listed.clone(), left_out.clone(), &roomy(settings), model);
    let sent = render_fresh(listed, left_out, settings, model);
    BudgetLayout { sent, full, cut }
}

/// `settings` with room for every description.
fn roomy(settings: &ListingSettings) -> ListingSettings {
    let mut roomy = settings.clone();
    roomy.char_budget = Some(usize::MAX);
    roomy
}

/// Whether `skillListingMaxDescChars` cuts `skill`'s description.
fn is_cut(skill: &Listed, settings: &ListingSettings) -> bool {
    skill.description.encode_utf16().count() > settings.max_desc_chars
}

/// One skill's entry as the client lists it beside no other skill and
/// within any budget, and whether `skillListingMaxDescChars` cut its
/// description; `None` when the client does not list it: the line a
/// per-skill cost counts.
pub fn entry(skill: &Skill, settings: &ListingSettings) -> Option<(Entry, bool)> {
    let (listed, left_out) = read_skills(&[skill], settings);
    let cut = is_cut(listed.first()?, settings);
    let full = render_fresh(listed, left_out, &roomy(settings), None);
    let entry = full.entries.into_iter().find(|e| !e.builtin)?;
    Some((entry, cut))
}

/// Whether the client's own skill `name` may lose its description over
/// budget like the author's (the bundled ones never do).
pub fn builtin_is_budgeted(name: &str) -> bool {
    builtins().iter().any(|b| b.name == name && b.budgeted)
}

/// How wide the client counts `text` against its budget.
pub fn budget_width(text: &str) -> usize {
    usize::try_from(width(text)).unwrap_or(usize::MAX)
}

/// The entry of a loaded `skill` found in `folder`, or why the client does
/// not list it (`disable-model-invocation`, or a `skillOverrides` setting).
fn listed_as(
    skill: &Skill,
    folder: String,
    skill_md: PathBuf,
    settings: &ListingSettings,
) -> Result<Listed, String> {
    if skill.meta.disable_model_invocation == Some(true) {
        return Err("disable-model-invocation: only the user can invoke it".into());
    }
    match settings.overrides.get(&folder) {
        Some(SkillOverride::Off) => return Err("skillOverrides: off".into()),
        Some(SkillOverride::UserInvocableOnly) => {
            return Err("skillOverrides: user-invocable-only".into());
        }
        _ => {}
    }
    let alias = skill
        .meta
        .name
        .clone()
        .filter(|name| *name != folder && plain_alias(name));
    Ok(Listed {
        name: folder,
        alias,
        description: listing_description(skill),
        path: skill_md,
    })
}

/// Where Claude Code puts the listing for `model`.
pub fn placement(model: &str) -> Placement {
    if FOUR_CHARS_PER_TOKEN.iter().any(|m| model.starts_with(m)) {
        Placement::Reminder
    } else {
        Placement::SystemMessage
    }
}

/// Where the listing sits in Claude Code's request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// A `system` message after the first user message (recent models).
    SystemMessage,
    /// A `<system-reminder>` block at the start of the first user message
    /// (models up to the 4.6 generation).
    Reminder,
}

/// The entries, budget and listing of `listed`, Claude Code's own skills
/// added.
fn render(
    listed: Vec<Listed>,
    left_out: Vec<LeftOut>,
    settings: &ListingSettings,
    model: String,
    env: &Environment,
) -> Prediction {
    let (window, chars_per_token) = model_window(&model);
    // An alias is shown only where it calls this skill and no other.
    let names: HashSet<&str> = listed.iter().map(|l| l.name.as_str()).collect();
    // `- label` is what an entry shrinks to over budget.
    let mut bare_texts: Vec<String> = Vec::with_capacity(listed.len());
    let mut entries: Vec<Entry> = Vec::with_capacity(listed.len() + builtins().len());
    for skill in &listed {
        let alias = skill
            .alias
            .as_deref()
            .filter(|alias| !names.contains(alias) && !skill.name.ends_with(&format!(":{alias}")));
        let label = match alias {
            Some(alias) => format!("{} ({alias})", skill.name),
            None => skill.name.clone(),
        };
        let name_only = settings.overrides.get(&skill.name) == Some(&SkillOverride::NameOnly);
        let description = if name_only {
            String::new()
        } else {
            cut(&skill.description, settings.max_desc_chars)
        };
        let text = if name_only {
            format!("- {}", skill.name)
        } else {
            format!("- {label}: {description}")
        };
        bare_texts.push(if name_only {
            text.clone()
        } else {
            format!("- {label}")
        });
        entries.push(Entry {
            text,
            name: skill.name.clone(),
            description,
            path: shown_path(&skill.path),
            bare: name_only,
            builtin: false,
        });
    }
    let authored = entries.len();
    // A skill of the author's with a built-in's name takes its place: the
    // client lists the author's and drops its own (seen with `init`).
    let shown_builtins: Vec<&Builtin> = builtins()
        .iter()
        .filter(|b| !names.contains(b.name.as_str()))
        .collect();
    for builtin in &shown_builtins {
        let description = cut(&builtin.description, settings.max_desc_chars);
        bare_texts.push(format!("- {}", builtin.name));
        entries.push(Entry {
            text: format!("- {}: {description}", builtin.name),
            name: builtin.name.clone(),
            description,
            path: String::new(),
            bare: false,
            builtin: true,
        });
    }

    let (budget_chars, source) = match settings.char_budget {
        Some(chars) => (chars as u64, "env"),
        None => (
            ((window as f64 * chars_per_token as f64 * settings.budget_fraction) + 1e-6)
                .floor()
                .max(1.0) as u64,
            "fraction",
        ),
    };
    let full_chars: u64 = entries.iter().map(|e| width(&e.text)).sum::<u64>()
        + entries.len().saturating_sub(1) as u64;
    let mut bare = 0;
    if full_chars > budget_chars {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as f64)
            .unwrap_or(0.0);
        let scores = usage_scores(env, now);
        let fixed_set: Vec<bool> = (0..entries.len())
            .map(|i| entries[i].bare || i >= authored && !shown_builtins[i - authored].budgeted)
            .collect();
        let fixed = |i: usize| fixed_set[i];
        let floor: u64 = (0..entries.len())
            .map(|i| {
                if fixed(i) {
                    width(&entries[i].text)
                } else {
                    width(&bare_texts[i])
                }
            })
            .sum::<u64>()
            + entries.len().saturating_sub(1) as u64;
        let mut room = budget_chars as i64 - floor as i64;
        let mut order: Vec<usize> = (0..entries.len()).filter(|&i| !fixed(i)).collect();
        let score = |i: usize| scores.get(&entries[i].name).copied().unwrap_or(0.0);
        order.sort_by(|&a, &b| score(b).total_cmp(&score(a)));
        let mut keep = vec![false; entries.len()];
        for i in order {
            let extra = width(&entries[i].text) as i64 - width(&bare_texts[i]) as i64;
            if extra <= room {
                keep[i] = true;
                room -= extra;
            }
        }
        for i in 0..entries.len() {
            if !fixed(i) && !keep[i] {
                entries[i].text = bare_texts[i].clone();
                entries[i].description.clear();
                entries[i].bare = true;
                bare += 1;
            }
        }
    }
    let body: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    let listing = format!("{HEADER}{}", body.join("\n"));
    let placement = match placement(&model) {
        Placement::Reminder => "a <system-reminder> in the first user message",
        Placement::SystemMessage => "a system message after the environment section",
    };
    Prediction {
        client: Client::ClaudeCode,
        client_version: VERSION,
        model,
        placement: placement.to_string(),
        budget: Some(Budget {
            context_window_tokens: window,
            bytes_per_token: chars_per_token,
            fraction: settings.budget_fraction,
            budget_chars,
            source,
            full_chars,
            over_budget: full_chars > budget_chars,
            bare,
        }),
        entries,
        left_out,
        listing,
    }
}

/// The listing in one of the client's requests: from its header to the end
/// of its last entry (the next blank line, or the end of the text).
pub fn listing_in_request(body: &serde_json::Value) -> Option<String> {
    super::capture::texts(body).into_iter().find_map(|text| {
        let start = text.find(HEADER)?;
        let rest = &text[start..];
        let end = rest[HEADER.len()..]
            .find("\n\n")
            .map(|at| at + HEADER.len())
            .unwrap_or(rest.len());
        let listing = &rest[..end];
        Some(
            listing
                .strip_suffix("\n</system-reminder>")
                .unwrap_or(listing)
                .to_string(),
        )
    })
}

/// Claude Code's default cap on one listing entry's description text
/// (`skillListingMaxDescChars`), in UTF-16 units.
pub const CLAUDE_CODE_ENTRY_LIMIT: usize = 1536;
/// The default `skillListingBudgetFraction`.
pub const DEFAULT_BUDGET_FRACTION: f64 = 0.01;
/// The environment variable that sets the listing budget in characters.
pub const CHAR_BUDGET_ENV: &str = "SLASH_COMMAND_TOOL_CHAR_BUDGET";

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
    /// Claude Code's defaults.
    pub fn new() -> ListingSettings {
        ListingSettings {
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
        roots: &[PathBuf],
        user_claude_dir: Option<&Path>,
        char_budget_env: Option<&str>,
    ) -> ListingSettings {
        let mut settings = ListingSettings::new();
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
}

impl Default for ListingSettings {
    fn default() -> ListingSettings {
        ListingSettings::new()
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
    ListingSettings::load(roots, None, None).max_desc_chars
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_runs_become_one_space_and_angles_are_escaped() {
        assert_eq!(one_line("a\n\nb\tc  d"), "a b c  d");
        assert_eq!(one_line("<b>&</b>"), "&lt;b&gt;&&lt;/b&gt;");
    }

    #[test]
    fn the_body_line_drops_heading_marks_and_is_cut_at_100() {
        assert_eq!(first_body_line("\n## Heading two\nsecond"), "Heading two");
        assert_eq!(first_body_line("#hashtag"), "#hashtag");
        let long = "x".repeat(120);
        assert_eq!(first_body_line(&long), format!("{}...", "x".repeat(97)));
    }

    #[test]
    fn descriptions_are_cut_in_utf16_units() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abcd", 4), "abcd");
        assert_eq!(cut("🎉🎉🎉", 4), "🎉…");
    }

    #[test]
    fn models_differ_in_window_and_chars_per_token() {
        assert_eq!(model_window("claude-opus-5-5"), (1_000_000, 3));
        assert_eq!(model_window("claude-sonnet-4-5"), (200_000, 4));
        assert_eq!(model_window("claude-sonnet-4-5-20250929"), (200_000, 4));
        assert_eq!(model_window("claude-sonnet-4-5[1m]"), (1_000_000, 4));
    }

    #[test]
    fn the_builtins_are_the_thirteen_captured() {
        assert_eq!(builtins().len(), 13);
        assert!(builtins().iter().all(|b| !b.description.is_empty()));
        assert_eq!(builtins().iter().filter(|b| b.budgeted).count(), 1);
    }

    #[test]
    fn a_skill_named_like_a_built_in_takes_its_place() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        let skill = project.join(".claude/skills/init/SKILL.md");
        std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::write(
            &skill,
            "---\nname: init\ndescription: Sets up our project skeleton.\n---\nbody\n",
        )
        .unwrap();
        let env = super::super::Environment::with_home(&tmp.path().join("home"));
        let prediction = predict(&project, &env, None);
        let inits: Vec<&Entry> = prediction
            .entries
            .iter()
            .filter(|e| e.name == "init")
            .collect();
        assert_eq!(inits.len(), 1, "{:#?}", prediction.entries);
        assert!(!inits[0].builtin);
        assert_eq!(prediction.entries.len(), 13);
    }
}
