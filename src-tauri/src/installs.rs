//! Commands of the "Install into…" dialog: thin calls of the engine's
//! install module (`hone install`, `hone uninstall` run the same code).
//!
//! The window first asks for the plan (a dry run: where each skill goes,
//! the files written, what differs from a skill of that name already
//! there), then installs, replacing a different skill only when the user
//! chose to. Skills come from the open library; they go into a client's
//! folder of a project the user picked or of their home folder, `$HOME`
//! (the tests give another).

use std::path::{Path, PathBuf};

use hone_core::clients::Scope;
use hone_core::folder::SKILL_FILE;
use hone_core::library_settings::library_target;
use hone_core::pack::PackError;
use hone_core::pack::install::{self, InstallOptions, Uninstalled};
use hone_core::rules::Target;
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandError, CommandResult, blocking};
use crate::session::display;
use crate::views::{BlockedSkill, InstallOutcome, InstallRequest, UninstallRequest};

/// What installing would do; nothing is written.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn plan_install(
    app: AppHandle,
    request: InstallRequest,
) -> CommandResult<InstallOutcome> {
    blocking(move || {
        let (inputs, target) = skills_of_library(&app, &request.skills)?;
        install(&inputs, &request, target, user_home(), true)
    })
    .await
}

/// Installs the skills. A skill of that name that differs is replaced only
/// with `request.replace`; otherwise nothing at all is written and the
/// report says which differ.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn install_skills(
    app: AppHandle,
    request: InstallRequest,
) -> CommandResult<InstallOutcome> {
    blocking(move || {
        let (inputs, target) = skills_of_library(&app, &request.skills)?;
        install(&inputs, &request, target, user_home(), false)
    })
    .await
}

/// Removes installed skills (a link, not what it points to) and their
/// lockfile entries.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn uninstall_skills(request: UninstallRequest) -> CommandResult<Vec<Uninstalled>> {
    blocking(move || uninstall(&request, user_home())).await
}

/// The real home folder, where the user scope installs.
fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// The skill folders, confined to the open library, and the library's target.
fn skills_of_library(app: &AppHandle, skills: &[String]) -> CommandResult<(Vec<PathBuf>, Target)> {
    if skills.is_empty() {
        return Err(CommandError::invalid(
            "choose at least one skill to install",
        ));
    }
    let session = app.state::<AppState>().session();
    let inputs = skills
        .iter()
        .map(|dir| session.confine(dir))
        .collect::<CommandResult<Vec<PathBuf>>>()?;
    let root = session.roots().find(|root| inputs[0].starts_with(root));
    let target = library_target(root, None).map_err(CommandError::failed)?;
    Ok((inputs, target))
}

fn install(
    inputs: &[PathBuf],
    request: &InstallRequest,
    target: Target,
    home: Option<PathBuf>,
    dry_run: bool,
) -> CommandResult<InstallOutcome> {
    let options = InstallOptions {
        client: request.client,
        scope: request.scope,
        base: base(request.scope, request.project.as_deref(), home)?,
        target,
        allow_errors: false,
        link: request.link,
        force: request.replace,
        dry_run,
        provenance: request.provenance && !request.link,
    };
    match install::install(inputs, &options) {
        Ok(report) => Ok(InstallOutcome::Report { report }),
        Err(PackError::Blocked(skills)) => Ok(InstallOutcome::Blocked {
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
}

fn uninstall(request: &UninstallRequest, home: Option<PathBuf>) -> CommandResult<Vec<Uninstalled>> {
    let options = InstallOptions {
        client: request.client,
        scope: request.scope,
        base: base(request.scope, request.project.as_deref(), home)?,
        target: Target::default(),
        allow_errors: false,
        link: false,
        force: false,
        dry_run: false,
        provenance: false,
    };
    install::uninstall(&request.names, &options).map_err(CommandError::failed)
}

/// The folder a scope's client folders are under: the chosen project
/// (absolute, existing), or the home folder.
fn base(scope: Scope, project: Option<&str>, home: Option<PathBuf>) -> CommandResult<PathBuf> {
    match scope {
        Scope::User => home.ok_or_else(|| {
            CommandError::unavailable("HOME is not set: there is no user folder to install into")
        }),
        Scope::Project => {
            let path = Path::new(project.map(str::trim).unwrap_or_default());
            if !path.is_absolute() || !path.is_dir() {
                return Err(CommandError::invalid(
                    "choose the project folder to install into",
                ));
            }
            Ok(path.to_path_buf())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hone_core::clients::Client;
    use hone_core::pack::install::InstallAction;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn request(client: Client, scope: Scope, project: Option<&Path>) -> InstallRequest {
        InstallRequest {
            skills: Vec::new(),
            client,
            scope,
            project: project.map(display),
            link: false,
            provenance: false,
            replace: false,
        }
    }

    fn report(outcome: InstallOutcome) -> install::InstallReport {
        match outcome {
            InstallOutcome::Report { report } => report,
            InstallOutcome::Blocked { skills } => panic!("blocked: {skills:?}"),
        }
    }

    #[test]
    fn the_plan_writes_nothing_then_a_different_skill_is_kept_unless_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("lib/notes");
        write(
            &skill.join("SKILL.md"),
            "---\nname: notes\ndescription: Keeps notes. Use when asked for notes.\n---\n\nBody.\n",
        );
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let inputs = [skill.clone()];
        let mut ask = request(Client::Codex, Scope::Project, Some(&project));

        let plan = report(install(&inputs, &ask, Target::Agentskills, None, true).unwrap());
        let installed = project.join(".agents/skills/notes");
        assert_eq!(plan.skills[0].destination, installed);
        assert_eq!(plan.skills[0].files, ["SKILL.md"]);
        assert_eq!(plan.lockfile, Some(project.join("skills-lock.json")));
        assert!(!installed.exists(), "a plan writes nothing");

        report(install(&inputs, &ask, Target::Agentskills, None, false).unwrap());
        write(&installed.join("SKILL.md"), "edited by hand");
        let kept = report(install(&inputs, &ask, Target::Agentskills, None, false).unwrap());
        assert_eq!(kept.skills[0].action, InstallAction::Keep);
        assert_eq!(kept.skills[0].diff.changed, ["SKILL.md"]);
        ask.replace = true;
        let replaced = report(install(&inputs, &ask, Target::Agentskills, None, false).unwrap());
        assert_eq!(replaced.skills[0].action, InstallAction::Replace);

        let removed = uninstall(
            &UninstallRequest {
                names: vec!["notes".into()],
                client: Client::Codex,
                scope: Scope::Project,
                project: Some(display(&project)),
            },
            None,
        )
        .unwrap();
        assert!(removed[0].found);
        assert!(!installed.exists());
    }

    #[test]
    fn the_user_scope_installs_under_the_home_given() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("lib/notes");
        write(
            &skill.join("SKILL.md"),
            "---\nname: notes\ndescription: Keeps notes. Use when asked for notes.\n---\n\nBody.\n",
        );
        let home = dir.path().join("home");
        let ask = request(Client::ClaudeCode, Scope::User, None);
        let done = report(
            install(
                &[skill],
                &ask,
                Target::Agentskills,
                Some(home.clone()),
                false,
            )
            .unwrap(),
        );
        assert_eq!(
            done.skills[0].destination,
            home.join(".claude/skills/notes")
        );
        assert!(home.join(".claude/skills/notes/SKILL.md").is_file());
        assert_eq!(
            done.lockfile, None,
            "a user install has no project lockfile"
        );
        // Without a home folder, the user scope has nowhere to go.
        assert!(install(&[], &ask, Target::Agentskills, None, true).is_err());
    }

    #[test]
    fn a_project_must_be_an_existing_absolute_folder() {
        let dir = tempfile::tempdir().unwrap();
        assert!(base(Scope::Project, Some(&display(dir.path())), None).is_ok());
        for bad in [None, Some("relative"), Some("/no/such/folder")] {
            assert!(base(Scope::Project, bad, None).is_err(), "{bad:?}");
        }
    }
}
