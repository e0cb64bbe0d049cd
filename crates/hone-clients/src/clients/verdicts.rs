//! What each client does with each skill of a library: listed as written,
//! listed with changes, left out, or hidden from the model, with the exact
//! entry the model reads and why.
//!
//! A library is not where a client looks, so the verdicts are those of the
//! library installed for the client: each skill folder copied into the
//! client's first project folder (`.claude/skills`, `.agents/skills`, …) of
//! a scratch project with an empty home, and the client's profile asked what
//! it lists there ([`super::predict`]). Paths in the entries are then shown
//! under the library's root, where `hone install --client` would put them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::compare::{self, CaptureOptions, CompareError, Scratch, Shown};
use super::{Budget, Client, Entry, Environment, Scope};
use crate::skill::Skill;

/// What a client does with one skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum ClientVerdict {
    /// Listed as the frontmatter has it.
    Loads,
    /// Listed, but the entry differs from the frontmatter.
    LoadsWithChanges,
    /// Not loaded at all.
    LeftOut,
    /// Loaded, but listed by name only or not shown to the model.
    Hidden,
}

/// One skill of the library as one client lists it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SkillVerdict {
    /// The skill's id in the library.
    pub skill: String,
    /// Its `SKILL.md` in the library.
    pub path: String,
    pub verdict: ClientVerdict,
    /// The entry, byte for byte as the model reads it (its paths shown
    /// under the library's root).
    pub entry: Option<String>,
    /// What differs from the frontmatter, one phrase each.
    pub changes: Vec<String>,
    /// Why, in a sentence.
    pub why: String,
}

/// The library as one client, at one version and model, lists it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LibraryVerdicts {
    pub client: Client,
    pub client_version: &'static str,
    pub model: String,
    /// Where the listing sits in the request, in words.
    pub placement: String,
    /// The folder the library is taken to be installed in, under its root.
    pub installed_as: String,
    pub budget: Option<Budget>,
    /// One per skill of the library, in the library's order.
    pub skills: Vec<SkillVerdict>,
    /// The client's own skills, as listed.
    pub builtins: Vec<Entry>,
    /// The whole listing, as the model reads it.
    pub listing: String,
}

/// The skills of a library copied where `client` reads a project's skills,
/// in a scratch project with an empty home.
pub struct Installed {
    pub scratch: Scratch,
    /// Each skill's `SKILL.md` in the scratch project, by its index in the
    /// skills given; `None` where two skills share a folder name.
    pub copies: Vec<Option<PathBuf>>,
    /// The folder the skills went into, relative to the project.
    pub folder: &'static str,
}

/// Copies each skill folder of `skills` (its `SKILL.md` and
/// `agents/openai.yaml`, which is all a client reads to list it) into
/// `client`'s first project folder of a scratch project, with the Claude
/// Code settings files of the library's `root` (its budget fraction and
/// overrides).
pub fn install(root: &Path, skills: &[&Skill], client: Client) -> std::io::Result<Installed> {
    let scratch = Scratch::empty()?;
    for file in [".claude/settings.json", ".claude/settings.local.json"] {
        if root.join(file).is_file() {
            std::fs::create_dir_all(scratch.project.join(".claude"))?;
            std::fs::copy(root.join(file), scratch.project.join(file))?;
        }
    }
    let folder = client.skill_folders(Scope::Project)[0];
    let base = scratch.project.join(folder);
    let mut copies = Vec::with_capacity(skills.len());
    let mut taken = std::collections::HashSet::new();
    for skill in skills {
        let name = skill
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| skill.id.clone());
        if !taken.insert(name.clone()) {
            copies.push(None);
            continue;
        }
        let dir = base.join(&name);
        std::fs::create_dir_all(&dir)?;
        std::fs::copy(&skill.path, dir.join("SKILL.md"))?;
        let policy = skill.dir.join("agents/openai.yaml");
        if policy.is_file() {
            std::fs::create_dir_all(dir.join("agents"))?;
            std::fs::copy(&policy, dir.join("agents/openai.yaml"))?;
        }
        copies.push(Some(dir.join("SKILL.md")));
    }
    Ok(Installed {
        scratch,
        copies,
        folder,
    })
}

/// The verdicts of `client` (with `model`, else its default) on the skills
/// of the library at `root`. `env` gives the variables that change a
/// listing (`SLASH_COMMAND_TOOL_CHAR_BUDGET`). `None` for a client Hone does
/// not model.
pub fn library_verdicts(
    root: &Path,
    skills: &[&Skill],
    client: Client,
    model: Option<&str>,
    env: &Environment,
) -> std::io::Result<Option<LibraryVerdicts>> {
    let installed = install(root, skills, client)?;
    Ok(verdicts_for(root, skills, &installed, client, model, env))
}

/// [`library_verdicts`] on a library already [`install`]ed.
pub fn verdicts_for(
    root: &Path,
    skills: &[&Skill],
    installed: &Installed,
    client: Client,
    model: Option<&str>,
    env: &Environment,
) -> Option<LibraryVerdicts> {
    let scratch = &installed.scratch;
    let prediction = super::predict(client, &scratch.project, &scratch.environment(env), model)?;
    let relocate = Relocate::new(&scratch.project, root);
    let over_budget = prediction.budget.as_ref().is_some_and(|b| b.over_budget);
    let mut entries: HashMap<PathBuf, &Entry> = HashMap::new();
    for entry in prediction.entries.iter().filter(|e| !e.builtin) {
        entries.insert(relocate.key(&entry.path), entry);
    }
    let mut left_out: HashMap<PathBuf, &str> = HashMap::new();
    for left in &prediction.left_out {
        left_out.insert(relocate.key(&left.path), &left.reason);
    }
    let verdicts = skills
        .iter()
        .zip(&installed.copies)
        .map(|(skill, copy)| {
            let path = skill.path.display().to_string();
            let Some(copy) = copy else {
                return SkillVerdict {
                    skill: skill.id.clone(),
                    path,
                    verdict: ClientVerdict::LeftOut,
                    entry: None,
                    changes: Vec::new(),
                    why: "another skill of the library has the same folder name, and one folder holds one skill".into(),
                };
            };
            let key = relocate.key(&copy.display().to_string());
            if let Some(entry) = entries.get(&key) {
                let mut verdict = judge(client, skill, entry, over_budget);
                verdict.skill = skill.id.clone();
                verdict.path = path;
                verdict.entry = Some(relocate.text(&entry.text));
                return verdict;
            }
            let (verdict, why) = match left_out.get(&key) {
                Some(reason) if is_hidden(reason) => (
                    ClientVerdict::Hidden,
                    format!("loaded but not shown to the model: {reason}"),
                ),
                Some(reason) => (ClientVerdict::LeftOut, relocate.text(reason)),
                None => (
                    ClientVerdict::LeftOut,
                    format!(
                        "{} does not list it from {}",
                        client.display_name(),
                        installed.folder
                    ),
                ),
            };
            SkillVerdict {
                skill: skill.id.clone(),
                path,
                verdict,
                entry: None,
                changes: Vec::new(),
                why,
            }
        })
        .collect();
    Some(LibraryVerdicts {
        client,
        client_version: prediction.client_version,
        model: prediction.model.clone(),
        placement: prediction.placement.clone(),
        installed_as: root.join(installed.folder).display().to_string(),
        budget: prediction.budget.clone(),
        skills: verdicts,
        builtins: prediction
            .entries
            .iter()
            .filter(|e| e.builtin)
            .cloned()
            .collect(),
        listing: relocate.text(&prediction.listing),
    })
}

/// Runs the installed `client` on the skills of the library at `root`,
/// installed as [`install`] puts them, and compares its real listing with
/// the prediction the verdicts come from. Paths are shown under `root`.
pub fn capture(
    root: &Path,
    skills: &[&Skill],
    client: Client,
    env: &Environment,
    options: &CaptureOptions,
) -> Result<Shown, CompareError> {
    let program = compare::installed(client, env)?;
    let installed = install(root, skills, client).map_err(CompareError::Scratch)?;
    let mut shown = compare::show_in(&installed.scratch, program, env, options)?;
    let relocate = Relocate::new(&installed.scratch.project, root);
    let c = &mut shown.comparison;
    let p = &mut c.prediction;
    p.listing = relocate.text(&p.listing);
    for entry in &mut p.entries {
        entry.text = relocate.text(&entry.text);
        entry.path = relocate.text(&entry.path);
    }
    for left in &mut p.left_out {
        left.path = relocate.text(&left.path);
        left.reason = relocate.text(&left.reason);
    }
    c.captured = c.captured.as_deref().map(|t| relocate.text(t));
    for d in &mut c.differences {
        d.predicted = d.predicted.as_deref().map(|t| relocate.text(t));
        d.real = d.real.as_deref().map(|t| relocate.text(t));
    }
    Ok(shown)
}

/// A reason a client gives for loading a skill without listing it.
fn is_hidden(reason: &str) -> bool {
    [
        "disable-model-invocation",
        "allow_implicit_invocation",
        "user-invocable-only",
        "not listed",
    ]
    .iter()
    .any(|marker| reason.contains(marker))
}

/// Shows the scratch project's paths under the library's root.
struct Relocate {
    from: Vec<String>,
    to: String,
}

impl Relocate {
    fn new(project: &Path, root: &Path) -> Relocate {
        let mut from = vec![project.display().to_string()];
        if let Ok(canonical) = project.canonicalize() {
            let canonical = canonical.display().to_string();
            if canonical != from[0] {
                from.push(canonical);
            }
        }
        Relocate {
            from,
            to: root.display().to_string(),
        }
    }

    fn text(&self, text: &str) -> String {
        self.from
            .iter()
            .fold(text.to_string(), |text, from| text.replace(from, &self.to))
    }

    /// A path as a map key, whichever form of the project it was shown with.
    fn key(&self, path: &str) -> PathBuf {
        PathBuf::from(self.text(path))
    }
}

/// The verdict on a listed skill: what changed between the frontmatter and
/// the entry.
fn judge(client: Client, skill: &Skill, entry: &Entry, over_budget: bool) -> SkillVerdict {
    let mut changes = Vec::new();
    let folder = skill
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match skill.meta.name.as_deref().map(str::trim) {
        Some(name) if name == entry.name => {}
        Some(name) if entry.text.contains(&format!("({name})")) => changes.push(format!(
            "called `{}` (its folder's name), with `{name}` as an alias",
            entry.name
        )),
        Some(name) => changes.push(format!(
            "called `{}`, not `{name}` as the frontmatter names it",
            entry.name
        )),
        None if entry.name == folder => changes.push(format!(
            "no `name`: called by its folder's name, `{folder}`"
        )),
        None => changes.push(format!("no `name`: called `{}`", entry.name)),
    }
    if client == Client::ClaudeCode
        && super::claude_code::builtins()
            .iter()
            .any(|b| b.name == entry.name)
    {
        changes.push(format!(
            "takes the place of Claude Code's own `{}`, which is no longer listed",
            entry.name
        ));
    }
    if entry.bare {
        let cause = if over_budget {
            format!(
                "the listing is over {}'s budget for this model",
                client.display_name()
            )
        } else {
            "the skill is set to `name-only`".to_string()
        };
        return SkillVerdict {
            skill: String::new(),
            path: String::new(),
            verdict: ClientVerdict::Hidden,
            entry: None,
            changes,
            why: format!("listed by name only, without its description: {cause}"),
        };
    }
    let written = written_description(client, skill);
    description_changes(&written, &entry.description, &mut changes);
    // Some profiles keep the description unescaped and escape it in the text.
    let escaped_in_text = ["&lt;", "&gt;", "&amp;"].iter().any(|escaped| {
        entry.text.contains(escaped)
            && !entry.description.contains(escaped)
            && written.as_deref().is_some_and(|w| !w.contains(escaped))
    });
    if escaped_in_text && !changes.iter().any(|c| c.contains("escaped")) {
        changes.insert(0, ESCAPED.into());
    }
    let verdict = if changes.is_empty() {
        ClientVerdict::Loads
    } else {
        ClientVerdict::LoadsWithChanges
    };
    let why = if changes.is_empty() {
        "listed with its name and description as written".to_string()
    } else {
        format!("listed, but {}", changes.join("; "))
    };
    SkillVerdict {
        skill: String::new(),
        path: String::new(),
        verdict,
        entry: None,
        changes,
        why,
    }
}

/// The description a client would show if it changed nothing: the
/// frontmatter's, with Claude Code's `when_to_use` after ` - `.
fn written_description(client: Client, skill: &Skill) -> Option<String> {
    let description = skill.meta.description.clone()?;
    match (&skill.meta.when_to_use, client) {
        (Some(when), Client::ClaudeCode) if !when.trim().is_empty() => {
            Some(format!("{} - {}", description.trim(), when.trim()))
        }
        _ => Some(description),
    }
}

const ESCAPED: &str = "`<`, `>`, `&` or quotes escaped as XML";

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What turned the `written` description into the `shown` one.
fn description_changes(written: &Option<String>, shown: &str, changes: &mut Vec<String>) {
    let Some(written) = written.as_deref().filter(|w| !w.trim().is_empty()) else {
        if shown.is_empty() {
            changes.push("no description: listed with none".into());
        } else {
            changes.push(
                "no description in the frontmatter: the body's first line stands in for it".into(),
            );
        }
        return;
    };
    if shown == written {
        return;
    }
    let unescaped = unescape(shown);
    if unescaped != shown {
        changes.push(ESCAPED.into());
    }
    if unescaped == written {
        return;
    }
    if unescaped == written.trim() {
        changes.push("surrounding white space trimmed".into());
        return;
    }
    let collapsed = collapse_whitespace(written);
    if unescaped == collapsed {
        changes.push("line breaks and runs of white space became one space".into());
        return;
    }
    for ellipsis in ["…", "..."] {
        if let Some(kept) = unescaped.strip_suffix(ellipsis)
            && !kept.is_empty()
            && (written.starts_with(kept) || collapsed.starts_with(kept.trim_end()))
        {
            if !written.starts_with(kept) {
                changes.push("line breaks and runs of white space became one space".into());
            }
            changes.push(format!(
                "description cut to {} of its {} characters",
                kept.chars().count(),
                collapsed.chars().count()
            ));
            return;
        }
    }
    changes.push("the description shown differs from the frontmatter's".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library of skill folders, each `(folder, SKILL.md text)`.
    fn library(skills: &[(&str, &str)]) -> (tempfile::TempDir, Vec<Skill>) {
        let root = tempfile::tempdir().unwrap();
        let loaded = skills
            .iter()
            .map(|(folder, text)| {
                let dir = root.path().join(folder);
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("SKILL.md"), text).unwrap();
                Skill::load(&dir).unwrap()
            })
            .collect();
        (root, loaded)
    }

    fn verdicts(
        root: &Path,
        skills: &[Skill],
        client: Client,
        model: Option<&str>,
    ) -> LibraryVerdicts {
        let refs: Vec<&Skill> = skills.iter().collect();
        let env = Environment::with_home(Path::new("/nonexistent-home"));
        library_verdicts(root, &refs, client, model, &env)
            .unwrap()
            .unwrap()
    }

    /// The verdict on the skill in `folder`.
    fn of<'a>(v: &'a LibraryVerdicts, folder: &str) -> &'a SkillVerdict {
        let file = format!("/{folder}/SKILL.md");
        v.skills.iter().find(|s| s.path.ends_with(&file)).unwrap()
    }

    #[test]
    fn a_plain_skill_loads_as_written_everywhere() {
        let (root, skills) = library(&[(
            "pdf",
            "---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody\n",
        )]);
        for client in Client::ALL {
            let v = verdicts(root.path(), &skills, client, None);
            let pdf = of(&v, "pdf");
            assert_eq!(pdf.verdict, ClientVerdict::Loads, "{client}: {pdf:?}");
            assert!(pdf.entry.as_deref().unwrap().contains("Fill PDF forms."));
            assert!(
                !v.builtins.is_empty() || client == Client::Opencode,
                "{client}"
            );
        }
    }

    #[test]
    fn escaping_cutting_and_aliases_are_changes() {
        let long = "x".repeat(2000);
        let (root, skills) = library(&[
            (
                "xml",
                "---\nname: xml\ndescription: Reads <tags> & more.\n---\n",
            ),
            (
                "long",
                &format!("---\nname: long\ndescription: {long}\n---\n"),
            ),
            (
                "folder",
                "---\nname: other\ndescription: Named apart.\n---\n",
            ),
            ("nodesc", "---\nname: nodesc\n---\n# Does things\n"),
        ]);
        let copilot = verdicts(root.path(), &skills, Client::Copilot, None);
        let xml = of(&copilot, "xml");
        assert_eq!(xml.verdict, ClientVerdict::LoadsWithChanges);
        assert!(xml.changes[0].contains("escaped"), "{xml:?}");

        let claude = verdicts(root.path(), &skills, Client::ClaudeCode, None);
        assert_eq!(of(&claude, "xml").verdict, ClientVerdict::LoadsWithChanges);
        let long = of(&claude, "long");
        assert_eq!(long.verdict, ClientVerdict::LoadsWithChanges);
        assert!(long.why.contains("cut to"), "{long:?}");
        let folder = of(&claude, "folder");
        assert_eq!(folder.verdict, ClientVerdict::LoadsWithChanges);
        assert!(folder.why.contains("alias"), "{folder:?}");
        let nodesc = of(&claude, "nodesc");
        assert!(nodesc.why.contains("first line"), "{nodesc:?}");
        assert!(nodesc.entry.as_deref().unwrap().contains("Does things"));

        // Gemini escapes nothing, cuts nothing; a skill with no description is dropped.
        let gemini = verdicts(root.path(), &skills, Client::Gemini, None);
        assert_eq!(of(&gemini, "xml").verdict, ClientVerdict::Loads);
        assert_eq!(of(&gemini, "long").verdict, ClientVerdict::Loads);
        assert_eq!(of(&gemini, "nodesc").verdict, ClientVerdict::LeftOut);
        // Its entries name the file under the library's root.
        let entry = of(&gemini, "xml").entry.clone().unwrap();
        assert!(
            entry.contains(&format!(
                "{}/.gemini/skills/xml/SKILL.md",
                root.path().display()
            )),
            "{entry}"
        );
    }

    #[test]
    fn model_invocation_off_is_hidden_and_a_budget_hides_descriptions() {
        let (root, skills) = library(&[
            (
                "manual",
                "---\nname: manual\ndescription: Only by hand.\ndisable-model-invocation: true\n---\n",
            ),
            ("bom", "\u{feff}---\nname: bom\ndescription: A BOM.\n---\n"),
        ]);
        let claude = verdicts(root.path(), &skills, Client::ClaudeCode, None);
        let manual = of(&claude, "manual");
        assert_eq!(manual.verdict, ClientVerdict::Hidden);
        assert!(manual.why.contains("disable-model-invocation"));
        let gemini = verdicts(root.path(), &skills, Client::Gemini, None);
        let bom = of(&gemini, "bom");
        assert_eq!(bom.verdict, ClientVerdict::LeftOut);
        assert!(bom.why.contains("byte-order mark"), "{bom:?}");

        // Many long descriptions overflow Claude Code's budget for a small window.
        let many: Vec<(String, String)> = (0..60)
            .map(|i| {
                (
                    format!("s{i:02}"),
                    format!(
                        "---\nname: s{i:02}\ndescription: {}\n---\n",
                        "word ".repeat(60)
                    ),
                )
            })
            .collect();
        let refs: Vec<(&str, &str)> = many.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let (root, skills) = library(&refs);
        let small = verdicts(
            root.path(),
            &skills,
            Client::ClaudeCode,
            Some("claude-haiku-4-5"),
        );
        let budget = small.budget.clone().unwrap();
        assert!(budget.over_budget && budget.bare > 0, "{budget:?}");
        assert!(
            small
                .skills
                .iter()
                .any(|s| s.verdict == ClientVerdict::Hidden)
        );
        let hidden = small
            .skills
            .iter()
            .find(|s| s.verdict == ClientVerdict::Hidden)
            .unwrap();
        assert!(hidden.why.contains("budget"), "{hidden:?}");
    }

    #[test]
    fn a_skill_named_like_a_builtin_takes_its_place() {
        let (root, skills) = library(&[(
            "simplify",
            "---\nname: simplify\ndescription: Simplify code.\n---\n",
        )]);
        let claude = verdicts(root.path(), &skills, Client::ClaudeCode, None);
        let s = of(&claude, "simplify");
        assert_eq!(s.verdict, ClientVerdict::LoadsWithChanges);
        assert!(s.why.contains("own `simplify`"), "{s:?}");
        assert!(claude.builtins.iter().all(|b| b.name != "simplify"));
    }

    #[test]
    fn description_changes_name_what_happened() {
        let mut changes = Vec::new();
        description_changes(&Some("a\n  b".into()), "a b", &mut changes);
        assert_eq!(
            changes,
            ["line breaks and runs of white space became one space"]
        );
        let mut changes = Vec::new();
        description_changes(&Some(" a ".into()), "a", &mut changes);
        assert_eq!(changes, ["surrounding white space trimmed"]);
        let mut changes = Vec::new();
        description_changes(&Some("same".into()), "same", &mut changes);
        assert!(changes.is_empty());
    }
}
