//! The library's health, for the window's Problems panel: every skill
//! checked for one target (the target decides which findings are errors),
//! counted by rule and by skill in one pass over the engine's findings. The
//! rules, their severities per target and their docs are the engine's.
//!
//! The target chosen in the panel is remembered with the library (its
//! `evals/hone-settings.json`), so the editor, the export, serving and
//! `hone check` all judge the library by it.

use std::collections::BTreeMap;

use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::library::Library;
use hone_core::library_settings::LibrarySettings;
use hone_core::rules::Target;
use serde::Serialize;
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandResult, blocking};
use crate::engine;
use crate::session::display;

/// Findings per severity.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
pub struct Counts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

impl Counts {
    fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.error += 1,
            Severity::Warning => self.warning += 1,
            Severity::Info => self.info += 1,
        }
    }
}

/// One rule's findings across the library.
#[derive(Debug, Serialize, specta::Type)]
pub struct RuleHealth {
    pub code: String,
    pub rule: String,
    pub counts: Counts,
    /// The skills with at least one finding of this rule, by index into `skills`.
    pub skills: Vec<usize>,
}

/// One skill's findings. Skills of one name are told apart by their folder.
#[derive(Debug, Serialize, specta::Type)]
pub struct SkillHealth {
    pub id: String,
    pub dir: String,
    pub path: String,
    pub counts: Counts,
}

#[derive(Debug, Serialize, specta::Type)]
pub struct LibraryHealth {
    pub target: Target,
    pub totals: Counts,
    /// Rules with findings, most errors first, then most findings, then by code.
    pub rules: Vec<RuleHealth>,
    pub skills: Vec<SkillHealth>,
}

/// Checks the open library for `target`, off the window's thread.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn library_health(app: AppHandle, target: Target) -> CommandResult<LibraryHealth> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let library = session.library();
        Ok(health(
            library,
            &engine::check_library_for(library, target),
            target,
        ))
    })
    .await
}

/// Remembers `target` as the open library's (an atomic rewrite of its
/// settings file that keeps every other setting), then reads and checks the
/// library again for it; the window hears of the new view as of any change.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn set_library_target(app: AppHandle, target: Target) -> CommandResult<()> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let root = session.project_root().ok_or("no library is open")?;
        LibrarySettings::remember_target(root, target).map_err(|e| e.to_string())?;
        crate::library::refresh(&app, Vec::new())
    })
    .await
}

/// Counts `found` (each skill's findings, by index into `library.skills`).
pub fn health(library: &Library, found: &[Vec<Diagnostic>], target: Target) -> LibraryHealth {
    let mut totals = Counts::default();
    let mut rules: BTreeMap<&str, RuleHealth> = BTreeMap::new();
    let mut skills = Vec::with_capacity(library.skills.len());
    for (index, (skill, findings)) in library.skills.iter().zip(found).enumerate() {
        let mut counts = Counts::default();
        for d in findings {
            counts.add(d.severity);
            totals.add(d.severity);
            let rule = rules.entry(&d.code).or_insert_with(|| RuleHealth {
                code: d.code.clone(),
                rule: d.rule.clone(),
                counts: Counts::default(),
                skills: Vec::new(),
            });
            rule.counts.add(d.severity);
            if rule.skills.last() != Some(&index) {
                rule.skills.push(index);
            }
        }
        skills.push(SkillHealth {
            id: skill.id.clone(),
            dir: display(&skill.dir),
            path: display(&skill.path),
            counts,
        });
    }
    let mut rules: Vec<RuleHealth> = rules.into_values().collect();
    rules.sort_by(|a, b| {
        let total = |r: &RuleHealth| r.counts.error + r.counts.warning + r.counts.info;
        b.counts
            .error
            .cmp(&a.counts.error)
            .then(total(b).cmp(&total(a)))
            .then(a.code.cmp(&b.code))
    });
    LibraryHealth {
        target,
        totals,
        rules,
        skills,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;
    use std::fs;

    #[test]
    fn counts_by_rule_and_skill_and_the_target_decides_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (folder, text) in [
            (
                "fine",
                "---\nname: fine\ndescription: Reads PDF files. Use when a PDF is mentioned.\n---\nBody\n",
            ),
            // A key outside the spec: an error only for Anthropic's upload (HS307), a warning elsewhere.
            (
                "extra",
                "---\nname: extra\ndescription: Formats dates. Use when a date appears.\nfavourite-colour: blue\n---\nBody\n",
            ),
        ] {
            fs::create_dir(root.join(folder)).unwrap();
            fs::write(root.join(folder).join("SKILL.md"), text).unwrap();
        }
        let session = Session::open(&root, None).unwrap();
        let library = session.library();
        let for_target =
            |target| health(library, &engine::check_library_for(library, target), target);

        let spec = for_target(Target::Agentskills);
        let upload = for_target(Target::ClaudeApi);
        let extra = spec.skills.iter().position(|s| s.id == "extra").unwrap();
        assert_eq!(spec.skills[extra].counts.error, 0, "{spec:?}");
        assert!(upload.skills[extra].counts.error > 0, "{upload:?}");
        let fine = upload.skills.iter().position(|s| s.id == "fine").unwrap();
        assert_eq!(upload.skills[fine].counts.error, 0, "{upload:?}");
        // Each rule names the skills it was found in; the totals add up.
        for rule in &upload.rules {
            assert!(rule.skills.contains(&extra), "{rule:?}");
        }
        let sum = |h: &LibraryHealth| {
            h.skills
                .iter()
                .map(|s| s.counts.error + s.counts.warning + s.counts.info)
                .sum::<usize>()
        };
        assert_eq!(
            sum(&upload),
            upload.totals.error + upload.totals.warning + upload.totals.info
        );
    }

    #[test]
    fn the_session_checks_for_the_target_the_library_remembers() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir(root.join("extra")).unwrap();
        fs::write(
            root.join("extra/SKILL.md"),
            "---\nname: extra\ndescription: Formats dates. Use when a date appears.\nfavourite-colour: blue\n---\nBody\n",
        )
        .unwrap();
        let errors = |session: &Session| {
            session.check();
            session.view().skills[0].errors
        };
        let session = Session::open(&root, None).unwrap();
        assert_eq!(session.target(), Target::Agentskills);
        assert_eq!(errors(&session), 0);

        // What the panel's switch does: remember, then read the library again.
        LibrarySettings::remember_target(&root, Target::ClaudeApi).unwrap();
        let session = session.reopen().unwrap();
        assert_eq!(session.target(), Target::ClaudeApi);
        assert_eq!(session.view().target, Target::ClaudeApi);
        assert!(errors(&session) > 0);
        let skill = &session.library().skills[0];
        let found = engine::check_skill(skill, session.library(), session.target());
        assert!(found.iter().any(|d| d.code == "HS307"), "{found:?}");

        // Broken settings: the library still opens, with the default target and the reason.
        fs::write(LibrarySettings::path(&root), "{\"target\": 3}").unwrap();
        let session = session.reopen().unwrap();
        assert_eq!(session.target(), Target::Agentskills);
        let view = session.view();
        assert!(
            view.problems
                .iter()
                .any(|p| p.path.ends_with("hone-settings.json") && p.message.contains(":1:")),
            "{:?}",
            view.problems
        );
    }
}
