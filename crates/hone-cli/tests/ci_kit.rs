//! The CI kit: the GitHub Action's step (scripts/ci-check.sh) run here as the
//! action runs it, and the pre-commit hook (.pre-commit-hooks.yaml) run by the
//! real `pre-commit` (4.7.0, from PyPI, in the user's cache) on a sample
//! repository.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn hone() -> &'static str {
    env!("CARGO_BIN_EXE_hone")
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

const GOOD: &str = "---\nname: pdf\ndescription: Reads PDF files. Use when the user shares a PDF.\n---\n\nRead it.\n";
const BROKEN: &str = "---\nname: pdf\ndescription: [unclosed\n---\n\nRead it.\n";

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ci_check(library: &Path, sarif: &Path) -> Output {
    Command::new(repo_root().join("scripts/ci-check.sh"))
        .env("HONE_BIN", hone())
        .env("HONE_PATH", library)
        .env("HONE_SARIF", sarif)
        .env_remove("HONE_SUITE")
        .env_remove("HONE_TARGET")
        .output()
        .unwrap()
}

#[test]
fn the_actions_step_annotates_writes_sarif_and_fails_on_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("skills");
    write(&lib.join("pdf/SKILL.md"), BROKEN);
    let sarif = tmp.path().join("hone.sarif");
    let out = ci_check(&lib, &sarif);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("::error file="),
        "{}",
        text(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&sarif).unwrap()).unwrap();
    assert_eq!(report["version"], "2.1.0");
    assert!(!report["runs"][0]["results"].as_array().unwrap().is_empty());

    write(&lib.join("pdf/SKILL.md"), GOOD);
    let out = ci_check(&lib, &sarif);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn the_actions_step_gates_on_an_eval_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let sarif = tmp.path().join("hone.sarif");
    let skills = repo_root().join("skills");
    let run = |gate: &str| {
        Command::new(repo_root().join("scripts/ci-check.sh"))
            .env("HONE_BIN", hone())
            .env("HONE_PATH", &skills)
            .env("HONE_SARIF", &sarif)
            .env("HONE_SUITE", skills.join("evals/routing.yaml"))
            .env("HONE_GATE", gate)
            .output()
            .unwrap()
    };
    let out = run("--min p_at_1=0.0");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = run("--max p_at_1=0");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

/// pre-commit from the venv scripts/install-pre-commit.sh makes.
fn pre_commit() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("neither XDG_CACHE_HOME nor HOME is set");
    let bin = cache.join("hone/pre-commit-venv/bin/pre-commit");
    assert!(
        bin.is_file(),
        "pre-commit is not installed at {}: scripts/install-pre-commit.sh installs it (`make test` runs it)",
        bin.display()
    );
    bin
}

#[test]
fn the_pre_commit_hook_fails_a_broken_skill_and_passes_a_fixed_one() {
    let pre_commit = pre_commit();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("sample");
    write(&repo.join("skills/pdf/SKILL.md"), BROKEN);
    write(&repo.join("README.md"), "sample\n");
    let bin_dir = Path::new(hone()).parent().unwrap().to_path_buf();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
    let run = |program: &Path, args: &[&str]| {
        Command::new(program)
            .args(args)
            .current_dir(&repo)
            .env_clear()
            .env("HOME", tmp.path())
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", tmp.path().join("pre-commit-cache"))
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap()
    };
    let git = Path::new("git");
    assert!(run(git, &["init", "-q"]).status.success());
    assert!(run(git, &["add", "."]).status.success());
    // try-repo runs the hooks of the checkout as they are, committed or not.
    let root = repo_root().canonicalize().unwrap();
    let root = root.to_str().unwrap();
    let out = run(
        &pre_commit,
        &["try-repo", root, "hone-check", "--all-files"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("HS003"), "{}", text(&out));

    write(&repo.join("skills/pdf/SKILL.md"), GOOD);
    assert!(run(git, &["add", "."]).status.success());
    let out = run(
        &pre_commit,
        &["try-repo", root, "hone-check", "--all-files"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}
