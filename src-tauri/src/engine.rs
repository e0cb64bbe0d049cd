//! The one place the app calls the engine for findings, costs and rendering.
//!
//! Keeping these calls together means the commands stay about confinement
//! and data shapes, and a change in the engine's API touches one file.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use hone_core::clients::claude_code;
use hone_core::diagnostic::Diagnostic;
use hone_core::document::FrontmatterBlock;
use hone_core::library::Library;
use hone_core::rules::cache::CheckCache;
use hone_core::rules::compat::SkillCompat;
use hone_core::rules::{self, Target};
use hone_core::skill::Skill;
use hone_core::tokens::{self, Tokenizer};
use hone_core::{catalog, render};

use crate::views::{LibraryCosts, ResourceView, StageCosts};

/// Styles of the preview frame (its policy allows inline styles only).
pub const PREVIEW_STYLE: &str = "body{font:15px/1.55 system-ui,sans-serif;margin:16px;max-width:46em;color:#1d1d1f;background:#fff}pre,code{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f3f3f5;padding:8px;overflow:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}@media (prefers-color-scheme:dark){body{color:#e6e6e6;background:#1e1e20}pre{background:#2a2a2e}}";

/// The tokenizer used where the user has not chosen one.
pub const DEFAULT_TOKENIZER: &str = "o200k";

/// The findings of every skill of `library` for `target` (which decides
/// which findings are errors), library-wide rules included, by skill index.
/// Checked in the background pool, with the token-limit answers and the
/// library's collisions kept in the user's cache (shared with `hone check`),
/// so that reopening a large library redoes nothing that has not changed.
pub fn check_library_for(library: &Library, target: Target) -> Vec<Vec<Diagnostic>> {
    let cache = CheckCache::open_default();
    let found =
        background_pool().install(|| rules::check_library_with(library, target, Some(&cache)));
    // A cache that cannot be written only makes the next check slower.
    let _ = cache.save();
    let mut by_path: HashMap<PathBuf, Vec<Diagnostic>> = HashMap::new();
    for diagnostic in found {
        by_path
            .entry(diagnostic.path.clone())
            .or_default()
            .push(diagnostic);
    }
    library
        .skills
        .iter()
        .map(|skill| by_path.remove(&skill.path).unwrap_or_default())
        .collect()
}

/// Threads for work the window does not wait on (checking a whole library):
/// one core fewer than the machine has, so that the web view, a process of
/// its own, always has a core to draw and answer keystrokes on.
pub fn background_pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.saturating_sub(1).max(1))
            .thread_name(|i| format!("hone-background-{i}"))
            .build()
            .expect("a thread pool")
    })
}

/// Has the heap map every allocation of 256 KB or more on its own, and hand
/// it back when freed. glibc otherwise raises that threshold to the largest
/// mapped block freed so far: after the first scan of a library reads and
/// writes back the security memo (9 MB of text on a machine that has scanned
/// large libraries), later large buffers came from the heap, and the pieces
/// between them stayed resident (9 MB of the app's RSS on the bundled
/// library's first start of a new build).
///
/// # Safety
///
/// Call first thing in `main`, before any other thread starts.
pub unsafe fn keep_large_allocations_mapped() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a tunable; the caller runs it before any
    // other thread allocates.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
    }
}

/// Findings for one skill, as the editor's text stands, including the
/// library-wide ones that concern it (a name another skill already uses).
pub fn check_skill(skill: &Skill, library: &Library, target: Target) -> Vec<Diagnostic> {
    rules::check_skill_in(skill, library, target)
}

/// The open skill's row of the compatibility matrix, as the editor's text stands.
pub fn compatibility(skill: &Skill, library: &Library) -> SkillCompat {
    rules::compat::skill_row(skill, library)
}

/// The frontmatter for the form, or why the form cannot show it.
pub fn form_fields(
    skill: &Skill,
) -> (
    Option<serde_json::Map<String, serde_json::Value>>,
    Option<String>,
) {
    match (&skill.doc.frontmatter, &skill.yaml) {
        (FrontmatterBlock::Unclosed { .. }, _) => (
            None,
            Some("The frontmatter has no closing `---` line.".into()),
        ),
        (_, Some(Err(e))) => (
            None,
            Some(format!("The YAML does not parse: {}", e.message)),
        ),
        (_, Some(Ok(root))) => match root.to_json() {
            serde_json::Value::Object(mut fields) => {
                split_lists(&mut fields);
                (Some(fields), None)
            }
            serde_json::Value::Null => (Some(serde_json::Map::new()), None),
            _ => (
                None,
                Some("The frontmatter is not a mapping of keys to values.".into()),
            ),
        },
        (_, None) => (Some(serde_json::Map::new()), None),
    }
}

/// List fields written as one string (`allowed-tools: Read Grep`, `paths:
/// "src/**, docs/*"`) are shown as the items the engine reads.
fn split_lists(fields: &mut serde_json::Map<String, serde_json::Value>) {
    for (key, value) in fields.iter_mut() {
        let Some(field) = hone_core::fields::lookup(key) else {
            continue;
        };
        if let (serde_json::Value::String(_), Some(items)) = (&*value, field.list_items(value)) {
            *value = serde_json::Value::Array(items.into_iter().map(Into::into).collect());
        }
    }
}

pub fn tokenizers() -> Vec<String> {
    tokens::BUILTIN_NAMES
        .iter()
        .map(|name| (*name).to_owned())
        .collect()
}

fn tokenizer(name: Option<&str>) -> Result<Tokenizer, String> {
    Tokenizer::by_name(name.filter(|n| !n.is_empty()).unwrap_or(DEFAULT_TOKENIZER))
        .map_err(|e| e.to_string())
}

pub fn default_tokenizer() -> Tokenizer {
    tokenizer(None).expect("the default tokenizer is built in")
}

/// Stage-1 tokens: the skill's entry in the catalog an agent always sees.
pub fn metadata_tokens(skill: &Skill, tokenizer: &Tokenizer) -> u64 {
    tokenizer.count(&catalog::agentskills_entry(skill)) as u64
}

/// Stage costs of the editor's text. Resources are read from disk, so their
/// cost is measured once per skill by the caller and passed in.
pub fn stage_costs(skill: &Skill, resources: u64) -> StageCosts {
    let tokenizer = default_tokenizer();
    StageCosts {
        tokenizer: tokenizer.label(),
        metadata: metadata_tokens(skill, &tokenizer),
        instructions: tokenizer.count(skill.body()) as u64,
        resources,
    }
}

/// Tokens of a skill's text resources, by path relative to the skill.
pub fn resource_tokens(skill: &Skill) -> HashMap<String, u64> {
    let costs = catalog::skill_costs(skill, &default_tokenizer());
    costs
        .resources
        .files
        .into_iter()
        .map(|f| (f.path, f.tokens as u64))
        .collect()
}

pub fn library_costs(
    library: &Library,
    tokenizer_name: &str,
    model: Option<&str>,
) -> Result<LibraryCosts, String> {
    let tokenizer = tokenizer(Some(tokenizer_name))?;
    let skills: Vec<&Skill> = library.skills.iter().collect();
    // As `hone tokens` reads them: the user's settings, the library's, the variable.
    let env = std::env::var(claude_code::CHAR_BUDGET_ENV).ok();
    let settings = claude_code::ListingSettings::load(
        &library.roots,
        claude_code::user_claude_dir().as_deref(),
        env.as_deref(),
    );
    let costs = catalog::catalog_costs_with(&skills, &tokenizer, &settings, model);
    Ok(LibraryCosts {
        tokenizer: tokenizer.label(),
        metadata_total: costs.agentskills.tokens as u64,
        context_window: costs.budget.context_window_tokens,
        listing: costs.budget,
        settings_sources: settings
            .sources
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        settings_problems: settings.problems,
    })
}

/// The body as sanitised HTML for the preview frame.
pub fn render_html(skill: &Skill) -> String {
    render::render_body(skill)
}

pub fn resource_views(skill: &Skill, tokens: &HashMap<String, u64>) -> Vec<ResourceView> {
    skill
        .resources
        .iter()
        .map(|r| ResourceView {
            path: skill.dir.join(&r.path).to_string_lossy().into_owned(),
            size: r.size,
            is_text: r.is_text,
            tokens: tokens.get(&r.path).copied(),
        })
        .collect()
}
