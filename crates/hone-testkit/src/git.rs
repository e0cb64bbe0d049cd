//! Scratch git repositories for tests of what Hone reads from git
//! (provenance, changelogs from history, arms at a revision).

use std::path::Path;
use std::process::Command;

/// Runs `git -C dir args…` with a fixed identity and no signing, whatever
/// the machine's git configuration; panics when git fails. Returns its
/// trimmed output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}
