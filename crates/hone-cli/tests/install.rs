//! `hone install --provenance` and `hone outdated` end to end: a skill of a
//! git checkout is installed with `gh skill`'s provenance keys, and
//! `hone outdated` reads them back and notices a new commit of the source.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use hone_testkit::git::git;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn hone(args: &[&str], dir: &Path) -> (i32, String) {
    let out = Command::cargo_bin("hone")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn provenance_is_written_on_request_and_read_back_by_outdated() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    write(
        &lib.join("skills/notes/SKILL.md"),
        "---\nname: notes\ndescription: Keeps meeting notes. Use when the user asks for notes.\n---\n\nBe brief.\n",
    );
    git(&lib, &["init", "-q"]);
    git(
        &lib,
        &[
            "remote",
            "add",
            "origin",
            "git@github.com:example/team-skills.git",
        ],
    );
    git(&lib, &["add", "."]);
    git(&lib, &["commit", "-q", "-m", "notes"]);
    let tree = git(&lib, &["rev-parse", "HEAD:skills/notes"]);
    let project = tmp.path().join("project");
    fs::create_dir_all(&project).unwrap();
    let source = lib.join("skills").display().to_string();

    // Without the flag, a copy is its source byte for byte.
    let (code, out) = hone(&["install", &source, "--client", "codex"], &project);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        fs::read(project.join(".agents/skills/notes/SKILL.md")).unwrap(),
        fs::read(lib.join("skills/notes/SKILL.md")).unwrap()
    );

    let (code, out) = hone(
        &[
            "install",
            &source,
            "--client",
            "claude-code",
            "--provenance",
        ],
        &project,
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("records https://github.com/example/team-skills refs/heads/main skills/notes"),
        "{out}"
    );
    let stamped = fs::read_to_string(project.join(".claude/skills/notes/SKILL.md")).unwrap();
    assert_eq!(
        stamped,
        format!(
            "---\nname: notes\ndescription: Keeps meeting notes. Use when the user asks for notes.\nmetadata:\n  github-path: skills/notes\n  github-ref: refs/heads/main\n  github-repo: https://github.com/example/team-skills\n  github-tree-sha: {tree}\n---\n\nBe brief.\n"
        )
    );
    let (code, out) = hone(
        &[
            "install",
            &source,
            "--client",
            "claude-code",
            "--provenance",
            "--link",
        ],
        &project,
    );
    assert_eq!(code, 2, "a link has no copy to record anything in: {out}");

    let (code, out) = hone(&["outdated"], &project);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("notes: up to date in"), "{out}");
    assert!(
        out.contains(&format!(
            "from https://github.com/example/team-skills refs/heads/main skills/notes (tree {})",
            &tree[..12]
        )),
        "{out}"
    );

    write(
        &lib.join("skills/notes/SKILL.md"),
        "---\nname: notes\ndescription: Keeps meeting notes. Use when the user asks for notes.\n---\n\nBe briefer.\n",
    );
    git(&lib, &["commit", "-q", "-am", "briefer"]);
    let (code, out) = hone(&["outdated", "--json"], &project);
    assert_eq!(code, 1, "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let claude = report[0]["installed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client"] == "claude-code")
        .unwrap();
    assert_eq!(claude["tree_matches"], false);
    assert_eq!(claude["provenance"]["kind"], "git");
    assert_eq!(claude["diff"]["changed"][0], "SKILL.md");
    let (_, out) = hone(&["outdated"], &project);
    assert!(
        out.contains("the source's git tree is no longer the one recorded"),
        "{out}"
    );
}
