//! Installing skills into each client's folder: the folder the client reads,
//! nothing overwritten without force, links, packs, dry runs, uninstall.

use std::fs;
use std::path::{Path, PathBuf};

use hone_core::clients::{Client, Scope};
use hone_core::library::find_skill_dirs;
use hone_core::pack::install::{self, InstallAction, InstallOptions};
use hone_core::pack::{self, ExportOptions, PackError};
use hone_core::rules::Target;
use hone_testkit::git::git;

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
        provenance: false,
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
fn the_lockfile_keeps_a_skill_another_client_still_has() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let project = tmp.path().join("project");
    for client in [Client::ClaudeCode, Client::Gemini] {
        install::install(std::slice::from_ref(&lib), &options(client, &project)).unwrap();
    }
    let lock = |project: &Path| hone_core::pack::lock::SkillsLock::load(project).unwrap();
    install::uninstall(&["pdf".into()], &options(Client::Gemini, &project)).unwrap();
    assert!(
        lock(&project).skills.contains_key("pdf"),
        "Claude Code still has it"
    );
    install::uninstall(&["pdf".into()], &options(Client::ClaudeCode, &project)).unwrap();
    assert!(lock(&project).skills.is_empty());
}

/// Export, install into each client, and Hone's own prediction of that
/// client's listing (the one `hone prompt --client` prints) lists the skill.
#[test]
fn a_pack_installed_into_each_client_is_in_that_clients_listing() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let zip = tmp.path().join("team.zip");
    pack::export(&[lib], &zip, &ExportOptions::default(), &|_| {}).unwrap();
    let env = hone_core::clients::Environment {
        home: tmp.path().join("home"),
        vars: Default::default(),
    };
    fs::create_dir_all(&env.home).unwrap();
    for client in Client::ALL {
        let project = tmp.path().join(format!("project-{client}"));
        fs::create_dir_all(project.join(".git")).unwrap();
        install::install(std::slice::from_ref(&zip), &options(client, &project)).unwrap();
        let prediction = hone_core::clients::predict(client, &project, &env, None)
            .unwrap_or_else(|| panic!("{client} is modelled"));
        let entry = prediction
            .entries
            .iter()
            .find(|e| !e.builtin && e.name.ends_with("pdf"))
            .unwrap_or_else(|| panic!("{client}: {:?}", prediction.entries));
        assert!(entry.path.ends_with("pdf/SKILL.md"), "{client}: {entry:?}");
        assert!(
            entry.text.contains("Reads PDF files."),
            "{client}: {entry:?}"
        );
    }
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

#[test]
fn provenance_is_stamped_like_gh_skill_and_read_back_by_outdated() {
    use hone_core::pack::lock::{SkillsLock, skill_folder_hash};
    use hone_core::pack::provenance::{self, Provenance};

    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    git(&lib, &["init", "-q"]);
    git(
        &lib,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/example/skills.git",
        ],
    );
    git(&lib, &["add", "."]);
    git(&lib, &["commit", "-q", "-m", "pdf"]);
    let project = tmp.path().join("project");
    let mut options = options(Client::ClaudeCode, &project);
    options.provenance = true;
    let report = install::install(std::slice::from_ref(&lib), &options).unwrap();
    let tree = git(&lib, &["rev-parse", "HEAD:pdf"]);
    let expected = Provenance::Git {
        repo: "https://github.com/example/skills".into(),
        git_ref: Some("refs/heads/main".into()),
        tree_sha: tree.clone(),
        path: "pdf".into(),
        pinned: None,
    };
    assert_eq!(report.skills[0].provenance, Some(expected.clone()));
    let installed = project.join(".claude/skills/pdf");
    let text = fs::read_to_string(installed.join("SKILL.md")).unwrap();
    assert_eq!(
        text,
        format!(
            "---\nname: pdf\ndescription: Reads PDF files. Use when the user shares a PDF.\nmetadata:\n  github-path: pdf\n  github-ref: refs/heads/main\n  github-repo: https://github.com/example/skills\n  github-tree-sha: {tree}\n---\n\nRead [the guide](guide.md).\n"
        )
    );
    assert_eq!(provenance::read(&text), Some(expected.clone()));
    // The lockfile hashes the source, as the skills CLI does.
    let lock = SkillsLock::load(&project).unwrap();
    assert_eq!(
        lock.skills["pdf"].computed_hash,
        skill_folder_hash(&lib.join("pdf")).unwrap()
    );
    // Installing again with provenance finds the same copy; without, a different one.
    let again = install::install(std::slice::from_ref(&lib), &options).unwrap();
    assert_eq!(again.skills[0].action, InstallAction::Unchanged);
    let mut plain = options.clone();
    plain.provenance = false;
    let plain = install::install(std::slice::from_ref(&lib), &plain).unwrap();
    assert_eq!(plain.skills[0].action, InstallAction::Keep);
    assert_eq!(plain.skills[0].diff.changed, ["SKILL.md"]);

    // `outdated` compares the copy with its provenance keys aside and checks the tree.
    let fresh = install::outdated(&project, Target::Agentskills).unwrap();
    let copy = &fresh[0].installed[0];
    assert!(copy.diff.is_empty(), "{fresh:#?}");
    assert_eq!(copy.provenance, Some(expected));
    assert_eq!(copy.tree_matches, Some(true));
    assert!(!fresh[0].differs());

    write(&lib.join("pdf/guide.md"), "# Guide, revised\n");
    git(&lib, &["commit", "-q", "-am", "revise"]);
    let stale = install::outdated(&project, Target::Agentskills).unwrap();
    let copy = &stale[0].installed[0];
    assert_eq!(copy.tree_matches, Some(false));
    assert_eq!(copy.diff.changed, ["guide.md"]);
    assert!(stale[0].differs());
}

#[test]
fn copies_no_lockfile_lists_are_reported_by_their_provenance() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let project = tmp.path().join("project");
    // A copy recording a local source (as `gh skill install --from-local` does)...
    let mut options = options(Client::Copilot, &project);
    options.provenance = true;
    install::install(std::slice::from_ref(&lib), &options).unwrap();
    fs::remove_file(project.join("skills-lock.json")).unwrap();
    // ...and one from GitHub, which cannot be checked offline.
    write(
        &project.join(".claude/skills/remote/SKILL.md"),
        "---\nname: remote\ndescription: d\nmetadata:\n    github-path: skills/remote\n    github-ref: refs/heads/main\n    github-repo: https://github.com/example/skills\n    github-tree-sha: 7a8633b2cf8d7f4a0ee055cfc53e9821a26be2dd\n---\n",
    );
    let report = install::outdated(&project, Target::Agentskills).unwrap();
    let pdf = report.iter().find(|s| s.name == "pdf").unwrap();
    assert_eq!(
        pdf.source.as_deref(),
        Some(fs::canonicalize(lib.join("pdf")).unwrap().as_path())
    );
    assert!(pdf.installed[0].diff.is_empty(), "{pdf:#?}");
    write(&lib.join("pdf/guide.md"), "changed");
    let report = install::outdated(&project, Target::Agentskills).unwrap();
    let pdf = report.iter().find(|s| s.name == "pdf").unwrap();
    assert_eq!(pdf.installed[0].diff.changed, ["guide.md"]);
    let remote = report.iter().find(|s| s.name == "remote").unwrap();
    assert!(remote.problem.is_some());
    assert!(matches!(
        remote.installed[0].provenance,
        Some(hone_core::pack::provenance::Provenance::Git { .. })
    ));
}
