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

use hone_core::folder::SKILL_FILE;
use hone_core::library_settings::{library_acknowledgements, library_target, settings_root};
use hone_core::pack::plugin::{self, PluginOptions, PluginReport};
use hone_core::pack::{
    self, ExportOptions, ImportOptions, ImportPlan, ImportReport, ManifestProblem, PackError,
    version, well_known,
};
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandError, CommandResult, blocking, refresh};
use crate::events::{AppEvent, Progress};
use crate::ipc::ErrorKind;
use crate::security::{PackSecurity, SecurityVerdict, counts, skill_view};
use crate::session::{Session, display};
use crate::views::{BlockedSkill, Bumped, ExportCheck, ExportFormat, ExportOutcome, ExportRequest};

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn export_pack(app: AppHandle, request: ExportRequest) -> CommandResult<ExportOutcome> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
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
        let inputs = export_inputs(&session, &request)?;
        let library = library_root(&session, &inputs);
        export(&inputs, library.as_deref(), &request, &progress)
    })
    .await
}

/// What exporting as a plugin or marketplace would meet, written nowhere:
/// the skills and the manifest `claude plugin validate` would refuse.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn check_export(app: AppHandle, request: ExportRequest) -> CommandResult<ExportCheck> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let inputs = export_inputs(&session, &request)?;
        let marketplace = match request.format {
            ExportFormat::Plugin => false,
            ExportFormat::Marketplace => true,
            _ => {
                return Ok(ExportCheck::Passes {
                    warnings: Vec::new(),
                });
            }
        };
        Ok(
            match plugin::check(&inputs, &export_options(&request), marketplace) {
                Ok(warnings) => ExportCheck::Passes { warnings },
                Err(PackError::Blocked(skills)) => ExportCheck::Blocked {
                    skills: blocked(skills),
                },
                Err(PackError::Manifest(problems)) => ExportCheck::Refused { problems },
                Err(e) => return Err(CommandError::failed(e)),
            },
        )
    })
    .await
}

/// The export's inputs: the chosen skills for a pack, each library root
/// for the forms that carry a library (its `package` settings make the
/// manifest), as `hone pack LIBRARY --format plugin` does.
fn export_inputs(session: &Session, request: &ExportRequest) -> CommandResult<Vec<PathBuf>> {
    if matches!(request.format, ExportFormat::Zip | ExportFormat::Skill) {
        if request.skills.is_empty() {
            return Err(CommandError::invalid("choose at least one skill to export"));
        }
        return request
            .skills
            .iter()
            .map(|dir| session.confine(dir))
            .collect();
    }
    let roots: Vec<PathBuf> = session.roots().map(Path::to_path_buf).collect();
    if roots.is_empty() {
        return Err(CommandError::invalid("open a library to export it"));
    }
    Ok(roots)
}

/// The opened library root holding the first input.
fn library_root(session: &Session, inputs: &[PathBuf]) -> Option<PathBuf> {
    let first = inputs.first()?;
    session
        .roots()
        .find(|root| first.starts_with(root))
        .map(Path::to_path_buf)
}

fn export_options(request: &ExportRequest) -> ExportOptions {
    ExportOptions {
        target: request.target,
        format: match request.format {
            ExportFormat::Skill => pack::PackFormat::Skill,
            _ => pack::PackFormat::Zip,
        },
        allow_errors: request.allow_errors,
        ..ExportOptions::default()
    }
}

/// Exports `inputs` as `request` asks. A version is raised only once the
/// export is known to pass its checks, so a refused export changes nothing.
fn export(
    inputs: &[PathBuf],
    library: Option<&Path>,
    request: &ExportRequest,
    progress: &(dyn Fn(pack::ExportProgress) + Sync),
) -> CommandResult<ExportOutcome> {
    let mut options = export_options(request);
    let refused = |e: PackError| match e {
        PackError::Blocked(skills) => Ok(ExportOutcome::Blocked {
            skills: blocked(skills),
        }),
        PackError::Manifest(problems) => Ok(ExportOutcome::Refused { problems }),
        e => Err(CommandError::failed(e)),
    };
    let folder = match request.format {
        ExportFormat::Zip | ExportFormat::Skill => None,
        _ => Some(export_folder(&request.output, request.replace)?),
    };
    let output = match folder {
        Some(ref folder) => folder.clone(),
        None => export_path(&request.output, options.format)?,
    };
    let bumped = match request.bump {
        None => None,
        Some(part) => {
            let Some(root) = library else {
                return Err(CommandError::invalid(
                    "a version is raised in a library: open one",
                ));
            };
            let check = match request.format {
                ExportFormat::Plugin | ExportFormat::Marketplace => plugin::check(
                    inputs,
                    &options,
                    request.format == ExportFormat::Marketplace,
                )
                .map(drop),
                ExportFormat::WellKnown => {
                    return Err(CommandError::invalid("a well-known index has no version"));
                }
                _ => pack::build(inputs, &options, &|_| {}).map(drop),
            };
            if let Err(e) = check {
                return refused(e);
            }
            let report = version::bump(root, part).map_err(CommandError::failed)?;
            options.version = Some(report.to.clone());
            Some(Bumped {
                from: report.from,
                to: report.to,
                changelog: display(&report.changelog),
            })
        }
    };
    let plugin_options = PluginOptions {
        export: options.clone(),
        force: request.replace,
    };
    let result = match request.format {
        ExportFormat::Zip | ExportFormat::Skill => {
            pack::export(inputs, &output, &options, progress).map(|report| ExportOutcome::Written {
                report,
                bumped: bumped.clone(),
            })
        }
        ExportFormat::Plugin => {
            plugin::export_plugin(inputs, &output, &plugin_options).map(|report| {
                folder_outcome(
                    &report.path,
                    std::slice::from_ref(&report),
                    Vec::new(),
                    &bumped,
                )
            })
        }
        ExportFormat::Marketplace => plugin::export_marketplace(inputs, &output, &plugin_options)
            .map(|report| {
                folder_outcome(
                    &report.path,
                    &report.plugins,
                    report.warnings.clone(),
                    &bumped,
                )
            }),
        ExportFormat::WellKnown => {
            well_known::export_well_known(inputs, &output, &options, request.replace).map(
                |report| ExportOutcome::Folder {
                    path: display(&report.path),
                    plugins: Vec::new(),
                    skills: report.index.skills.iter().map(|s| s.name.clone()).collect(),
                    warnings: Vec::new(),
                    bumped: None,
                },
            )
        }
    };
    result.or_else(refused)
}

fn folder_outcome(
    path: &Path,
    plugins: &[PluginReport],
    mut warnings: Vec<ManifestProblem>,
    bumped: &Option<Bumped>,
) -> ExportOutcome {
    warnings.extend(plugins.iter().flat_map(|p| p.warnings.iter().cloned()));
    ExportOutcome::Folder {
        path: display(path),
        plugins: plugins
            .iter()
            .map(|p| match &p.manifest.version {
                Some(version) => format!("{}@{version}", p.manifest.name),
                None => p.manifest.name.clone(),
            })
            .collect(),
        skills: plugins
            .iter()
            .flat_map(|p| p.skills.iter().map(|s| s.id.clone()))
            .collect(),
        warnings,
        bumped: bumped.clone(),
    }
}

fn blocked(skills: Vec<pack::SkillFindings>) -> Vec<BlockedSkill> {
    skills
        .into_iter()
        .map(|s| BlockedSkill {
            name: s.name,
            path: display(&s.dir.join(SKILL_FILE)),
            findings: s.findings,
        })
        .collect()
}

/// The folder a plugin, marketplace or index is written into: absolute, in
/// a folder that exists, and (unless replaced) new or empty.
fn export_folder(output: &str, replace: bool) -> CommandResult<PathBuf> {
    let path = PathBuf::from(output.trim());
    if !path.is_absolute() {
        return Err(CommandError::invalid("choose the folder to export into"));
    }
    if path.is_file() {
        return Err(CommandError::invalid(format!(
            "{} is a file, not a folder",
            path.display()
        )));
    }
    if !path.parent().is_some_and(Path::is_dir) {
        return Err(CommandError::invalid(format!(
            "the folder holding {} does not exist",
            path.display()
        )));
    }
    if !replace {
        import_target_is_free(&path).map_err(|_| {
            CommandError::invalid(format!(
                "{} is not empty: choose a new folder, or replace it",
                path.display()
            ))
        })?;
    }
    Ok(path)
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
    let reports = hone_core::pack::scan_pack(pack, &acks).map_err(CommandError::failed)?;
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

    fn library_with_package(root: &Path, package: &str) -> PathBuf {
        let library = root.join("team");
        std::fs::create_dir_all(library.join("notes")).unwrap();
        std::fs::write(
            library.join("notes/SKILL.md"),
            "---\nname: notes\ndescription: Keeps notes. Use when asked for notes.\n---\n\nBody.\n",
        )
        .unwrap();
        std::fs::create_dir_all(library.join("evals")).unwrap();
        std::fs::write(
            library.join("evals/hone-settings.json"),
            format!("{{\"package\": {package}}}"),
        )
        .unwrap();
        library
    }

    fn plugin_request(output: &Path, bump: Option<version::Bump>) -> ExportRequest {
        ExportRequest {
            skills: Vec::new(),
            format: ExportFormat::Plugin,
            target: hone_core::rules::Target::ClaudeCode,
            output: display(output),
            allow_errors: false,
            bump,
            replace: false,
        }
    }

    #[test]
    fn a_plugin_export_raises_the_version_only_when_it_passes() {
        let dir = tempfile::tempdir().unwrap();
        let bad = library_with_package(dir.path(), r#"{"name": "my team", "version": "1.0.0"}"#);
        let out = dir.path().join("plugin");
        let request = plugin_request(&out, Some(version::Bump::Minor));
        let refused = export(std::slice::from_ref(&bad), Some(&bad), &request, &|_| {}).unwrap();
        let ExportOutcome::Refused { problems } = refused else {
            panic!("exported: {refused:?}");
        };
        assert_eq!(problems[0].key, "package.name");
        let settings = std::fs::read_to_string(bad.join("evals/hone-settings.json")).unwrap();
        assert!(settings.contains("1.0.0"), "not bumped: {settings}");
        assert!(!out.exists());

        let good = library_with_package(
            &dir.path().join("good"),
            r#"{"name": "team", "version": "1.0.0", "author": {"name": "Ada"}}"#,
        );
        let done = export(std::slice::from_ref(&good), Some(&good), &request, &|_| {}).unwrap();
        let ExportOutcome::Folder {
            plugins,
            skills,
            bumped,
            ..
        } = done
        else {
            panic!("not exported: {done:?}");
        };
        assert_eq!(plugins, ["team@1.1.0"]);
        assert_eq!(skills, ["team:notes"]);
        assert_eq!(
            bumped.map(|b| (b.from, b.to)),
            Some(("1.0.0".into(), "1.1.0".into()))
        );
        assert!(out.join(".claude-plugin/plugin.json").is_file());
        // A folder that is there now is replaced only when asked to.
        assert!(export_folder(&display(&out), false).is_err());
        assert!(export_folder(&display(&out), true).is_ok());
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
