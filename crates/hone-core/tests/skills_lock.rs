//! `skills-lock.json` as Vercel's `skills` CLI (npm `skills` 1.7.4) writes
//! it: the real CLI installs a library of local skills into one project,
//! Hone installs the same library into another, and the two lockfiles must
//! be byte for byte the same, hashes included. Then `outdated` tells a
//! changed source and an edited copy apart.

mod clients;

use std::fs;
use std::path::{Path, PathBuf};

use hone_core::clients::{Client, Scope};
use hone_core::pack::install::{self, InstallAction, InstallOptions};
use hone_core::pack::lock::{self, LOCK_FILE, SkillsLock};
use hone_core::rules::Target;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A library whose file names need the CLI's collation order to hash alike:
/// mixed case, punctuation, nesting, non-ASCII; plus what the hash skips.
fn library(root: &Path) -> PathBuf {
    let lib = root.join("src");
    let hello = lib.join("hello");
    write(
        &hello.join("SKILL.md"),
        "---\nname: hello\ndescription: Says hello. Use when greeting someone.\n---\n\n# Hello\n\nSee [the guide](B.md).\n",
    );
    for (name, text) in [
        ("B.md", "b"),
        ("a_b.md", "u"),
        ("a-b.md", "h"),
        ("a.b.md", "d"),
        ("_x.md", "x"),
        ("é.md", "e"),
        ("scripts/a.py", "print(1)\n"),
        ("Scripts2/Z.txt", "z"),
        (".git/HEAD", "ref: x\n"),
        ("node_modules/m/index.js", "x"),
    ] {
        write(&hello.join(name), text);
    }
    write(
        &lib.join("Zeta/SKILL.md"),
        "---\nname: zeta\ndescription: Zeta things. Use when zeta.\n---\n\nZ\n",
    );
    lib
}

fn hone_install(project: &Path, lib: &Path) -> install::InstallReport {
    fs::create_dir_all(project).unwrap();
    let options = InstallOptions {
        client: Client::ClaudeCode,
        scope: Scope::Project,
        base: project.to_path_buf(),
        target: Target::Agentskills,
        // `Zeta/` named `zeta` is an error of the spec, which the skills CLI
        // installs anyway: the lockfile must list it the same.
        allow_errors: true,
        link: false,
        force: false,
        dry_run: false,
        provenance: false,
    };
    install::install(&[lib.to_path_buf()], &options).unwrap()
}

#[test]
fn hones_lockfile_is_the_skills_clis_byte_for_byte() {
    let (node, cli) = clients::skills_cli();
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());

    let by_cli = tmp.path().join("by-cli");
    fs::create_dir(&by_cli).unwrap();
    let out = clients::run_contained(
        &node,
        &[
            cli.to_str().unwrap(),
            "add",
            "../src",
            "-y",
            "--agent",
            "claude-code",
        ],
        &by_cli,
    );
    assert!(
        out.status.success(),
        "skills add failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let cli_lock = fs::read_to_string(by_cli.join(LOCK_FILE)).unwrap();

    let by_hone = tmp.path().join("by-hone");
    hone_install(&by_hone, &lib);
    let hone_lock = fs::read_to_string(by_hone.join(LOCK_FILE)).unwrap();
    assert_eq!(hone_lock, cli_lock);

    let parsed = SkillsLock::load(&by_cli).unwrap();
    assert_eq!(
        parsed.skills["hello"].computed_hash,
        lock::skill_folder_hash(&lib.join("hello")).unwrap()
    );
}

#[test]
fn outdated_tells_a_changed_source_from_an_edited_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let project = tmp.path().join("project");
    let report = hone_install(&project, &lib);
    assert!(report.skills.iter().all(|s| s.action == InstallAction::Add));

    let fresh = install::outdated(&project, Target::Agentskills).unwrap();
    assert!(fresh.iter().all(|s| !s.source_changed), "{fresh:#?}");
    assert!(
        fresh
            .iter()
            .all(|s| s.installed.iter().all(|c| c.diff.is_empty()))
    );

    write(&lib.join("hello/B.md"), "b, revised");
    write(
        &project.join(".claude/skills/zeta/notes.md"),
        "added by hand",
    );
    let report = install::outdated(&project, Target::Agentskills).unwrap();
    let hello = report.iter().find(|s| s.name == "hello").unwrap();
    assert!(hello.source_changed);
    assert_eq!(hello.installed[0].diff.changed, ["B.md"]);
    let zeta = report.iter().find(|s| s.name == "zeta").unwrap();
    assert!(!zeta.source_changed);
    assert_eq!(zeta.installed[0].diff.removed, ["notes.md"]);
}
