//! Commands of the editor: reading a skill, analysing its text as typed
//! (findings, form, costs, compatibility), editing fields, applying fixes
//! and saving.

use std::path::Path;
use std::time::Instant;

use hone_core::diagnostic::Fix;
use hone_core::edit::{self, FieldValue};
use hone_core::skill::Skill;
use hone_core::workspace::{self, SaveError, Stamp};
use tauri::State;

use crate::commands::{CommandError, CommandResult};
use crate::engine;
use crate::session::{Session, display};
use crate::state::AppState;
use crate::views::{Analysis, SaveOutcome, SkillFile};

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn open_skill(state: State<'_, AppState>, path: String) -> CommandResult<SkillFile> {
    let path = state.session().confine(&path)?;
    let (bytes, stamp) = workspace::read_stamped(&path).map_err(|e| e.to_string())?;
    let text = hone_core::document::SkillDocument::from_vec(bytes).text;
    Ok(SkillFile {
        path: display(&path),
        text,
        stamp,
    })
}

/// The skill at `path` with `text` as its content: the loaded skill when
/// known (keeping its resources), else one built from the text alone.
pub(crate) fn skill_with_text(session: &Session, path: &Path, text: String) -> Skill {
    match session.skill_at(path) {
        Some(skill) => skill.with_text(text),
        None => {
            let dir = path.parent().unwrap_or(path);
            let mut skill =
                Skill::from_document(dir, hone_core::document::SkillDocument::parse(text));
            skill.resources = hone_core::folder::scan_resources(dir);
            skill
        }
    }
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn analyze(state: State<'_, AppState>, path: String, text: String) -> CommandResult<Analysis> {
    let started = Instant::now();
    let session = state.session();
    let path = session.confine(&path)?;
    let skill = skill_with_text(&session, &path, text);
    let diagnostics = engine::check_skill(&skill, session.library(), session.target());
    let (fields, form_blocked) = engine::form_fields(&skill);
    let description_chars = skill
        .meta
        .description
        .as_deref()
        .map_or(0, |d| d.chars().count());
    let listing_chars = description_chars
        + skill
            .meta
            .when_to_use
            .as_deref()
            .map_or(0, |w| w.chars().count());
    let resources = state.library.resource_tokens(&skill).values().sum();
    let costs = engine::stage_costs(&skill, resources);
    let compatibility = engine::compatibility(&skill, session.library());
    Ok(Analysis {
        compatibility,
        diagnostics,
        fields,
        form_blocked,
        costs,
        description_chars,
        listing_chars,
        engine_micros: started.elapsed().as_micros() as u64,
    })
}

/// The frontmatter field table (`hone_core::fields`) the form is built from.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn frontmatter_fields() -> &'static [hone_core::fields::Field] {
    hone_core::fields::FIELDS
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn set_field(text: String, key: String, value: FieldValue) -> CommandResult<String> {
    edit::set_field(&text, &key, &value).map_err(|e| CommandError::invalid(e.to_string()))
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn apply_fix(text: String, fix: Fix) -> CommandResult<String> {
    fix.apply(&text)
        .ok_or_else(|| CommandError::from("the text changed since the fix was computed"))
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn save_skill(
    state: State<'_, AppState>,
    path: String,
    text: String,
    expected: Option<Stamp>,
) -> CommandResult<SaveOutcome> {
    let path = state.session().confine(&path)?;
    match workspace::save_atomic(&path, text.as_bytes(), expected.as_ref()) {
        Ok(stamp) => Ok(SaveOutcome::Saved { stamp }),
        Err(SaveError::Conflict { on_disk }) => Ok(SaveOutcome::Conflict {
            disk_text: std::fs::read(&path)
                .ok()
                .map(|b| hone_core::document::SkillDocument::from_vec(b).text),
            disk_stamp: on_disk,
        }),
        Err(SaveError::Io(e)) => Err(CommandError {
            message: format!("cannot save {}: {e}", path.display()),
            ..CommandError::io(&e)
        }),
    }
}
