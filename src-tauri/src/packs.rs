//! Commands of the export and import dialogs: thin calls of the engine's
//! pack module, which does the reproducible zipping, the verification and the
//! safe unzip (`hone pack` / `hone unpack` run the same code).
//!
//! The pack file and the import destination are chosen by the user, outside
//! the library, so they cannot be confined like other paths. Instead these
//! commands write only what they are for: an export writes a new `.zip` or
//! `.skill` file (or replaces one), and an import writes only into an opened
//! library root or into an empty (or new) folder.
//!
//! Every skill of a pack is scanned for security before it is imported (as
//! `hone unpack` does): the dialog shows each verdict, and a pack with a
//! dangerous skill is imported only when the window names each dangerous
//! skill the user agreed to import (`hone unpack --allow-dangerous`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hone_core::library_settings::{library_acknowledgements, library_target, settings_root};
use hone_core::pack::{self, ExportOptions, ImportOptions, ImportPlan, ImportReport, PackError};
use hone_core::skill::SKILL_FILE;
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandError, CommandResult, blocking, refresh};
use crate::events::{AppEvent, Progress};
use crate::ipc::ErrorKind;
use crate::security::{PackSecurity, SecurityVerdict, counts, skill_view};
use crate::session::display;
use crate::views::{BlockedSkill, ExportOutcome, ExportRequest};

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn export_pack(app: AppHandle, request: ExportRequest) -> CommandResult<ExportOutcome> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
        if request.skills.is_empty() {
            return Err(CommandError::invalid("choose at least one skill to export"));
        }
        let inputs = request
            .skills
            .iter()
            .map(|dir| session.confine(dir))
            .collect::<CommandResult<Vec<PathBuf>>>()?;
        let output = export_path(&request.output, request.format)?;
        let options = ExportOptions {
            target: request.target,
            format: request.format,
            allow_errors: request.allow_errors,
            ..ExportOptions::default()
        };
        let last_sent = std::sync::Mutex::new(Instant::now());
        let progress = |p: pack::ExportProgress| {
            let mut last = last_sent.lock().unwrap_or_else(|e| e.into_inner());
            if p.files_done == p.files_total || last.elapsed() > Duration::from_millis(50) {
                *last = Instant::now();
                state.send(AppEvent::Progress(Progress {
                    task: "export",
                    done: p.bytes_done,
                    total: p.bytes_total,
                }));
            }
        };
        match pack::export(&inputs, &output, &options, &progress) {
            Ok(report) => Ok(ExportOutcome::Written { report }),
            Err(PackError::Blocked(skills)) => Ok(ExportOutcome::Blocked {
                skills: skills
                    .into_iter()
                    .map(|s| BlockedSkill {
                        name: s.name,
                        path: display(&s.dir.join(SKILL_FILE)),
                        findings: s.findings,
                    })
                    .collect(),
            }),
            Err(e) => Err(CommandError::failed(e)),
        }
    })
    .await
}

/// What importing `pack` into `destination` would add and replace.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn plan_import(
    app: AppHandle,
    pack: String,
    destination: String,
) -> CommandResult<ImportPlan> {
    blocking(move || {
        let destination = import_destination(&app, &destination)?;
        pack::plan_import(
            Path::new(&pack),
            &destination,
            &import_options(&destination, false)?,
        )
        .map_err(CommandError::failed)
    })
    .await
}

/// Every skill of `pack` scanned for security, before it is imported into
/// `destination` (whose acknowledgements apply), as `hone unpack` shows
/// them. The pack is extracted, with every check of the import, into a
/// temporary folder that is removed afterwards; nothing in it is run.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn pack_security(
    app: AppHandle,
    pack: String,
    destination: String,
) -> CommandResult<PackSecurity> {
    blocking(move || {
        let destination = import_destination(&app, &destination)?;
        scan_pack(Path::new(&pack), &destination)
    })
    .await
}

/// Imports `pack` into `destination`, replacing existing skills only with
/// `replace`; the library is re-read when the destination is one of its roots.
/// The pack is scanned first: a dangerous skill is imported only when it is
/// among `dangerous`, the skills the user agreed to import by name; else
/// nothing is written.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn import_pack(
    app: AppHandle,
    pack: String,
    destination: String,
    replace: bool,
    dangerous: Vec<String>,
) -> CommandResult<ImportReport> {
    blocking(move || {
        let destination = import_destination(&app, &destination)?;
        let scanned = scan_pack(Path::new(&pack), &destination)?;
        refuse_unconfirmed(&scanned, &dangerous)?;
        for skill in &scanned.skills {
            if skill.verdict == SecurityVerdict::Dangerous {
                for reason in &skill.reasons {
                    eprintln!("hone: warning: importing dangerous {}: {reason}", skill.id);
                }
            }
        }
        let report = pack::import(
            Path::new(&pack),
            &destination,
            &import_options(&destination, replace)?,
        )
        .map_err(|e| e.to_string())?;
        let session = app.state::<AppState>().session();
        if session.roots().any(|root| root == destination) {
            let changed = report
                .skills
                .iter()
                .map(|s| display(&s.destination.join(SKILL_FILE)))
                .collect();
            refresh(&app, changed)?;
        }
        Ok(report)
    })
    .await
}

/// The skills of `pack` scanned with the acknowledgements of the library at
/// `destination` (when it is one), in the pack's paths (`setup/SKILL.md`).
fn scan_pack(pack: &Path, destination: &Path) -> CommandResult<PackSecurity> {
    let root = [destination.to_path_buf()];
    let acks = library_acknowledgements(settings_root(&root)).map_err(|e| e.to_string())?;
    let reports = hone_core::security::scan_pack(pack, &acks).map_err(CommandError::failed)?;
    let skills: Vec<_> = reports.into_iter().map(skill_view).collect();
    Ok(PackSecurity {
        counts: counts(&skills),
        skills,
    })
}

/// Refuses an import with a dangerous skill the user did not name.
fn refuse_unconfirmed(scanned: &PackSecurity, confirmed: &[String]) -> CommandResult<()> {
    let unconfirmed: Vec<&str> = scanned
        .skills
        .iter()
        .filter(|s| s.verdict == SecurityVerdict::Dangerous && !confirmed.contains(&s.id))
        .map(|s| s.id.as_str())
        .collect();
    if unconfirmed.is_empty() {
        return Ok(());
    }
    Err(CommandError::new(
        ErrorKind::Refused,
        format!(
            "refused: {} dangerous ({}); nothing was written. Confirm importing {} by name to import anyway",
            unconfirmed.join(", "),
            if unconfirmed.len() == 1 {
                "skill"
            } else {
                "skills"
            },
            if unconfirmed.len() == 1 { "it" } else { "them" },
        ),
    ))
}

/// The import's validation is that of the library the skills land in.
fn import_options(destination: &Path, force: bool) -> CommandResult<ImportOptions> {
    Ok(ImportOptions {
        target: library_target(Some(destination), None).map_err(|e| e.to_string())?,
        force,
        ..ImportOptions::default()
    })
}

/// The pack file to write: a path ending in the format's extension whose
/// folder exists; an existing file is replaced only if it is a pack too.
fn export_path(output: &str, format: pack::PackFormat) -> CommandResult<PathBuf> {
    let path = PathBuf::from(output.trim());
    let extension = format.extension();
    if !path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
    {
        return Err(CommandError::invalid(format!(
            "the pack file must end in .{extension}"
        )));
    }
    if !path.is_absolute() {
        return Err(CommandError::invalid("choose where to save the pack"));
    }
    if path.is_dir() {
        return Err(CommandError::invalid(format!(
            "{} is a folder",
            path.display()
        )));
    }
    match path.parent() {
        Some(parent) if parent.is_dir() => Ok(path),
        _ => Err(CommandError::invalid(format!(
            "the folder of {} does not exist",
            path.display()
        ))),
    }
}

/// An opened library root, or a folder that is empty or does not exist yet.
fn import_destination(app: &AppHandle, destination: &str) -> CommandResult<PathBuf> {
    let path = PathBuf::from(destination.trim());
    if !path.is_absolute() {
        return Err(CommandError::invalid("choose a folder to import into"));
    }
    let session = app.state::<AppState>().session();
    if let Ok(canonical) = path.canonicalize()
        && session.roots().any(|root| root == canonical)
    {
        return Ok(canonical);
    }
    import_target_is_free(&path)?;
    Ok(path)
}

fn import_target_is_free(path: &Path) -> CommandResult<()> {
    match std::fs::read_dir(path).map(|mut entries| entries.next().is_none()) {
        Ok(false) => Err(CommandError::invalid(format!(
            "{} is neither an opened library nor an empty folder",
            path.display()
        ))),
        Ok(true) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CommandError {
            message: format!("{}: {e}", path.display()),
            ..CommandError::io(&e)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_write_only_pack_files_into_existing_folders() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("pack.zip");
        assert_eq!(
            export_path(&display(&ok), pack::PackFormat::Zip).unwrap(),
            ok
        );
        for bad in [
            display(&dir.path().join(".bashrc")),
            display(&dir.path().join("missing/pack.zip")),
            "pack.zip".to_owned(),
        ] {
            assert!(export_path(&bad, pack::PackFormat::Zip).is_err(), "{bad}");
        }
        assert!(export_path(&display(&ok), pack::PackFormat::Skill).is_err());
    }

    #[test]
    fn a_pack_is_scanned_before_import_and_a_dangerous_skill_needs_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let library = dir.path().join("lib");
        crate::security::tests::planted_library(&library);
        let pack = dir.path().join("team.zip");
        let options = ExportOptions {
            allow_errors: true,
            ..ExportOptions::default()
        };
        let inputs = [library.join("notes"), library.join("setup")];
        pack::export(&inputs, &pack, &options, &|_| {}).unwrap();

        let into = dir.path().join("installed");
        let scanned = scan_pack(&pack, &into).unwrap();
        assert_eq!((scanned.counts.safe, scanned.counts.dangerous), (1, 1));
        let setup = scanned.skills.iter().find(|s| s.id == "setup").unwrap();
        // Paths in the pack: the folder the import plan names, the file in it.
        assert_eq!(setup.dir, "setup");
        let finding = setup.findings.iter().find(|f| f.code == "HS906").unwrap();
        assert_eq!(finding.file, "scripts/init.sh");
        assert_eq!(finding.span.start.line, 2);
        assert!(!into.exists(), "scanning writes nothing at the destination");

        // As `hone unpack`: refused unless each dangerous skill is named.
        let refused = refuse_unconfirmed(&scanned, &[]).unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Refused);
        assert!(refused.message.contains("setup dangerous"), "{refused:?}");
        assert!(refuse_unconfirmed(&scanned, &["notes".to_owned()]).is_err());
        assert!(refuse_unconfirmed(&scanned, &["setup".to_owned()]).is_ok());

        // A file that is no pack is an error, not an empty report.
        std::fs::write(dir.path().join("bad.zip"), "not a zip").unwrap();
        assert!(scan_pack(&dir.path().join("bad.zip"), &into).is_err());
    }

    #[test]
    fn imports_go_only_into_empty_or_new_folders() {
        let dir = tempfile::tempdir().unwrap();
        assert!(import_target_is_free(dir.path()).is_ok());
        assert!(import_target_is_free(&dir.path().join("new")).is_ok());
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(import_target_is_free(dir.path()).is_err());
    }
}
