//! Installing skills into each client's folder: the folder the client reads,
//! nothing overwritten without force, links, packs, dry runs, uninstall.

use std::fs;
use std::path::{Path, PathBuf};

use hone_core::clients::{Client, Scope};
use hone_core::library::find_skill_dirs;
use hone_core::pack::install::{self, InstallAction, InstallOptions};
use hone_core::pack::{self, ExportOptions, PackError};
use hone_core::rules::Target;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn library(root: &Path) -> PathBuf {
    let lib = root.join("lib");
    write(
        &lib.join("pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Reads PDF files. Use when the user shares a PDF.\n---\n\nRead [the guide](guide.md).\n",
    );
    write(&lib.join("pdf/guide.md"), "# Guide\n");
    write(&lib.join("pdf/evals/cases.yaml"), "- prompt: x\n");
    lib
}

fn options(client: Client, base: &Path) -> InstallOptions {
    InstallOptions {
        client,
        scope: Scope::Project,
        base: base.to_path_buf(),
        target: Target::Agentskills,
        allow_errors: false,
        link: false,
        force: false,
        dry_run: false,
    }
}

#[test]
fn each_client_gets_the_skill_where_it_reads_skills() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    for client in Client::ALL {
        for scope in [Scope::Project, Scope::User] {
            let base = tmp.path().join(format!("{client}-{scope:?}"));
            let mut options = options(client, &base);
            options.scope = scope;
            let report = install::install(std::slice::from_ref(&lib), &options).unwrap();
            let folder = base.join(client.skill_folders(scope)[0]);
            assert_eq!(report.skills[0].destination, folder.join("pdf"));
            assert!(folder.join("pdf/guide.md").is_file());
            assert!(!folder.join("pdf/evals").exists(), "evals stay behind");
            // The client's own listing of that folder finds the skill.
            let mut problems = Vec::new();
            assert_eq!(
                find_skill_dirs(&folder, &mut problems),
                [folder.join("pdf")]
            );
        }
    }
}

#[test]
fn a_different_installed_skill_is_kept_with_its_diff_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let project = tmp.path().join("project");
    let options = options(Client::Codex, &project);
    install::install(std::slice::from_ref(&lib), &options).unwrap();
    let again = install::install(std::slice::from_ref(&lib), &options).unwrap();
    assert_eq!(again.skills[0].action, InstallAction::Unchanged);

    let installed = project.join(".agents/skills/pdf");
    write(&installed.join("guide.md"), "edited by hand");
    write(&installed.join("mine.md"), "mine");
    let kept = install::install(std::slice::from_ref(&lib), &options).unwrap();
    assert_eq!(kept.skills[0].action, InstallAction::Keep);
    assert_eq!(kept.skills[0].diff.changed, ["guide.md"]);
    assert_eq!(kept.skills[0].diff.removed, ["mine.md"]);
    assert_eq!(
        fs::read_to_string(installed.join("mine.md")).unwrap(),
        "mine"
    );

    let mut dry = options.clone();
    dry.force = true;
    dry.dry_run = true;
    let planned = install::install(std::slice::from_ref(&lib), &dry).unwrap();
    assert_eq!(planned.skills[0].action, InstallAction::Replace);
    assert!(
        installed.join("mine.md").exists(),
        "a dry run writes nothing"
    );

    let mut force = options.clone();
    force.force = true;
    install::install(std::slice::from_ref(&lib), &force).unwrap();
    assert!(!installed.join("mine.md").exists());
    assert_eq!(
        fs::read_to_string(installed.join("guide.md")).unwrap(),
        "# Guide\n"
    );
}

#[cfg(unix)]
#[test]
fn link_installs_a_symlink_and_uninstall_removes_only_the_link() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let project = tmp.path().join("project");
    let mut options = options(Client::Gemini, &project);
    options.link = true;
    install::install(std::slice::from_ref(&lib), &options).unwrap();
    let installed = project.join(".gemini/skills/pdf");
    assert!(fs::symlink_metadata(&installed).unwrap().is_symlink());
    let again = install::install(std::slice::from_ref(&lib), &options).unwrap();
    assert_eq!(again.skills[0].action, InstallAction::Unchanged);

    let removed = install::uninstall(&["pdf".into()], &options).unwrap();
    assert!(removed[0].found && removed[0].link);
    assert!(fs::symlink_metadata(&installed).is_err());
    assert!(lib.join("pdf/SKILL.md").is_file(), "the source stays");
    let lock = hone_core::pack::lock::SkillsLock::load(&project).unwrap();
    assert!(lock.skills.is_empty(), "{lock:?}");
}

#[test]
fn a_pack_is_installed_through_the_safe_import() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let zip = tmp.path().join("team.zip");
    pack::export(&[lib], &zip, &ExportOptions::default(), &|_| {}).unwrap();
    let project = tmp.path().join("project");
    let report = install::install(&[zip], &options(Client::Opencode, &project)).unwrap();
    assert_eq!(report.skills[0].action, InstallAction::Add);
    assert!(project.join(".opencode/skills/pdf/guide.md").is_file());
    assert_eq!(report.lockfile, None, "a pack is no lasting source");
}

#[test]
fn uninstall_refuses_names_that_leave_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let err =
        install::uninstall(&["../x".into()], &options(Client::Copilot, tmp.path())).unwrap_err();
    assert!(matches!(err, PackError::UnsafeSkillName { .. }), "{err}");
}
