//! `hone pack` and `hone unpack` end to end: export, verify, the gate, safe
//! import and exit codes.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn write_skill(dir: &Path, name: &str) {
    let text = format!(
        "---\nname: {name}\ndescription: Tidies {name} files. Use when the user asks to tidy {name} files.\n---\n\n# {name}\n\nSee [the guide](references/guide.md).\n"
    );
    write(&dir.join("SKILL.md"), &text);
    write(&dir.join("references/guide.md"), "A short guide.\n");
    write(&dir.join("evals/cases.yaml"), "- prompt: x\n");
}

/// A library folder `lib` of two skills, `aaaa` and `bbbb`.
fn library() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(&tmp.path().join("lib/aaaa"), "aaaa");
    write_skill(&tmp.path().join("lib/bbbb"), "bbbb");
    tmp
}

fn hone() -> Command {
    let mut command = Command::cargo_bin("hone").unwrap();
    command.env_remove("SOURCE_DATE_EPOCH");
    command
}

#[test]
fn export_then_verify() {
    let tmp = library();
    let out = tmp.path().join("team.zip");
    let output = hone()
        .arg("pack")
        .arg(tmp.path().join("lib"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("packed 2 skill(s), 4 files"), "{stdout}");
    assert!(stdout.contains("hone-pack.json"), "{stdout}");
    let verify = hone()
        .args(["pack", "--verify"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        verify.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    assert!(
        String::from_utf8_lossy(&verify.stdout)
            .contains("ok: 2 skill(s), 4 files, manifest checked")
    );
}

#[test]
fn json_report_names_the_pack_and_its_skills() {
    let tmp = library();
    let out = tmp.path().join("p.zip");
    let output = hone()
        .arg("pack")
        .arg(tmp.path().join("lib"))
        .args(["--name", "team", "--version", "1.2.3", "--json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["name"], "team");
    assert_eq!(report["version"], "1.2.3");
    assert_eq!(report["skills"][0]["name"], "aaaa");
    assert_eq!(report["skills"][0]["tokens"]["tokenizer"], "o200k");
    assert_eq!(report["sha256"].as_str().unwrap().len(), 64);
}

#[test]
fn source_date_epoch_is_honoured_and_output_is_reproducible() {
    let tmp = library();
    let lib = tmp.path().join("lib");
    let pack = |name: &str, epoch: Option<&str>| {
        let out = tmp.path().join(name);
        let mut command = hone();
        if let Some(epoch) = epoch {
            command.env("SOURCE_DATE_EPOCH", epoch);
        }
        let output = command
            .arg("pack")
            .arg(&lib)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        fs::read(out).unwrap()
    };
    assert_eq!(pack("a.zip", None), pack("b.zip", None));
    assert_eq!(
        pack("c.zip", Some("1700000000")),
        pack("d.zip", Some("1700000000"))
    );
    assert_ne!(pack("e.zip", None), pack("f.zip", Some("1700000000")));
    let bad = hone()
        .env("SOURCE_DATE_EPOCH", "yesterday")
        .arg("pack")
        .arg(&lib)
        .arg("-o")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SOURCE_DATE_EPOCH"));
}

#[test]
fn error_findings_stop_the_export_with_exit_1() {
    let tmp = library();
    write(&tmp.path().join("lib/broken/SKILL.md"), "no frontmatter\n");
    let out = tmp.path().join("p.zip");
    let output = hone()
        .arg("pack")
        .arg(tmp.path().join("lib"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).contains("broken/SKILL.md"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--allow-errors"));
    assert!(!out.exists());
    let allowed = hone()
        .arg("pack")
        .arg(tmp.path().join("lib"))
        .arg("--allow-errors")
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(allowed.status.code(), Some(0));
    // The pack holds a skill with errors: verification says so.
    let verify = hone()
        .args(["pack", "--verify"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(1));
}

#[test]
fn skill_format_writes_name_dot_skill() {
    let tmp = library();
    let output = hone()
        .arg("pack")
        .arg(tmp.path().join("lib/aaaa"))
        .args(["--format", "skill", "-o"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(tmp.path().join("aaaa.skill").is_file());
}

#[test]
fn unpack_imports_and_refuses_to_overwrite_without_force() {
    let tmp = library();
    let pack = tmp.path().join("p.zip");
    hone()
        .arg("pack")
        .arg(tmp.path().join("lib"))
        .arg("-o")
        .arg(&pack)
        .assert()
        .success();
    let dest = tmp.path().join("installed");
    let dry = hone()
        .arg("unpack")
        .arg(&pack)
        .arg("--dry-run")
        .arg("-o")
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(dry.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&dry.stdout).contains("would add aaaa"));
    assert!(!dest.exists());
    hone()
        .arg("unpack")
        .arg(&pack)
        .arg("-o")
        .arg(&dest)
        .assert()
        .success();
    assert!(dest.join("aaaa/SKILL.md").is_file());
    assert!(!dest.join("aaaa/evals").exists());
    let again = hone()
        .arg("unpack")
        .arg(&pack)
        .arg("-o")
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    hone()
        .arg("unpack")
        .arg(&pack)
        .arg("--force")
        .arg("-o")
        .arg(&dest)
        .assert()
        .success();
}

#[test]
fn unpack_rejects_a_pack_that_escapes_and_writes_nothing() {
    let tmp = library();
    let pack = tmp.path().join("p.zip");
    hone()
        .arg("pack")
        .arg(tmp.path().join("lib/aaaa"))
        .arg("-o")
        .arg(&pack)
        .assert()
        .success();
    // Rename the folder `aaaa/` to `../a/` in every header: same length, so
    // the zip stays well formed and only the names turn hostile.
    let bytes = fs::read(&pack).unwrap();
    let mut evil = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"aaaa/") {
            evil.extend_from_slice(b"../a/");
            i += 5;
        } else {
            evil.push(bytes[i]);
            i += 1;
        }
    }
    let evil_pack = tmp.path().join("evil.zip");
    fs::write(&evil_pack, evil).unwrap();
    let dest = tmp.path().join("installed");
    let output = hone()
        .arg("unpack")
        .arg(&evil_pack)
        .arg("-o")
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("pack rejected") && stderr.contains("../a/SKILL.md"),
        "{stderr}"
    );
    assert!(!dest.exists());
    assert!(!tmp.path().join("a").exists());
    let verify = hone()
        .args(["pack", "--verify"])
        .arg(&evil_pack)
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(1));
}

#[test]
fn missing_input_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let output = hone()
        .arg("pack")
        .arg(tmp.path().join("nope"))
        .arg("-o")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_library_remembered_target_gates_the_export() {
    let tmp = library();
    let lib = tmp.path().join("lib");
    let text = fs::read_to_string(lib.join("aaaa/SKILL.md")).unwrap();
    // A key only Anthropic's upload refuses (HS307).
    write(
        &lib.join("aaaa/SKILL.md"),
        &text.replacen("\n---\n", "\nfavourite-colour: blue\n---\n", 1),
    );
    write(
        &lib.join("evals/hone-settings.json"),
        "{\"target\": \"claude-api\"}\n",
    );
    let out = tmp.path().join("team.zip");
    let pack = |extra: &[&str]| {
        hone()
            .arg("pack")
            .arg(&lib)
            .arg("-o")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let blocked = pack(&[]);
    assert_eq!(
        blocked.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&blocked.stderr)
    );
    assert!(String::from_utf8_lossy(&blocked.stdout).contains("HS307"));
    assert!(!out.exists());
    let written = pack(&["--target", "agentskills"]);
    assert_eq!(
        written.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    assert!(out.exists());
}
