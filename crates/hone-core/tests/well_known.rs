//! Publishing skills for the web: `.well-known/agent-skills/index.json`, read
//! back by Hone from a local file and installed by the real `skills` CLI from
//! a loopback site.

mod clients;

use std::fs;
use std::path::{Path, PathBuf};

use hone_core::pack::well_known::{self, EntryKind};
use hone_core::pack::{ExportOptions, ImportOptions, PackError};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// One skill of a single SKILL.md and one with a resource.
fn library(root: &Path) -> PathBuf {
    let lib = root.join("lib");
    write(
        &lib.join("hello/SKILL.md"),
        "---\nname: hello\ndescription: Says hello. Use when greeting someone.\n---\n\nHi.\n",
    );
    write(
        &lib.join("pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Reads PDF files. Use when the user shares a PDF.\n---\n\nRead [the guide](guide.md).\n",
    );
    write(&lib.join("pdf/guide.md"), "# Guide\n");
    lib
}

#[test]
fn an_index_lists_each_skill_with_its_digest_and_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let site = tmp.path().join("site");
    let report = well_known::export_well_known(
        std::slice::from_ref(&lib),
        &site,
        &ExportOptions::default(),
        false,
    )
    .unwrap();
    let kinds: Vec<(&str, EntryKind, &str)> = report
        .index
        .skills
        .iter()
        .map(|e| (e.name.as_str(), e.kind, e.url.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("hello", EntryKind::SkillMd, "hello/SKILL.md"),
            ("pdf", EntryKind::Archive, "pdf.zip")
        ]
    );
    let index = site.join(".well-known/agent-skills/index.json");
    let text = fs::read_to_string(&index).unwrap();
    assert!(
        text.contains(
            "\"$schema\": \"https://schemas.agentskills.io/discovery/0.2.0/schema.json\""
        )
    );

    // The same skills give the same bytes.
    let again = tmp.path().join("again");
    well_known::export_well_known(&[lib], &again, &ExportOptions::default(), false).unwrap();
    assert_eq!(
        fs::read(again.join(".well-known/agent-skills/pdf.zip")).unwrap(),
        fs::read(site.join(".well-known/agent-skills/pdf.zip")).unwrap()
    );

    let out = tmp.path().join("out");
    well_known::import_index(&index, &out, &ImportOptions::default()).unwrap();
    assert!(out.join("hello/SKILL.md").is_file());
    assert_eq!(
        fs::read_to_string(out.join("pdf/guide.md")).unwrap(),
        "# Guide\n"
    );

    // A file that changed after the index was written is refused whole.
    fs::write(
        site.join(".well-known/agent-skills/pdf.zip"),
        b"PK tampered",
    )
    .unwrap();
    let fresh = tmp.path().join("fresh");
    let err = well_known::import_index(&index, &fresh, &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, PackError::Rejected(_)), "{err}");
    assert!(!fresh.exists());
}

#[test]
fn an_index_never_points_outside_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("index.json"),
        r#"{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
            "skills": [{"name": "x", "type": "skill-md", "description": "d", "url": "../secret/SKILL.md",
                        "digest": "sha256:00"}]}"#,
    );
    let err = well_known::import_index(
        &tmp.path().join("index.json"),
        &tmp.path().join("out"),
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("not a path inside"), "{err}");
}

#[test]
fn names_the_cli_would_drop_are_refused_with_their_line() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    write(
        &lib.join("Bad_Name/SKILL.md"),
        "---\ndescription: d\nname: Bad_Name\n---\n\nx\n",
    );
    let err = well_known::export_well_known(
        &[lib],
        &tmp.path().join("site"),
        &ExportOptions {
            allow_errors: true,
            ..ExportOptions::default()
        },
        false,
    )
    .unwrap_err();
    let PackError::Manifest(problems) = err else {
        panic!("{err}");
    };
    assert_eq!(problems[0].key, "name");
    assert_eq!(problems[0].line, Some(3));
}

#[test]
fn the_skills_cli_installs_from_hones_index() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let site = tmp.path().join("site");
    well_known::export_well_known(&[lib], &site, &ExportOptions::default(), false).unwrap();
    let project = tmp.path().join("project");
    fs::create_dir(&project).unwrap();
    let out = clients::skills_add_from_site(&site, &project);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(project.join(".claude/skills/hello/SKILL.md").is_file());
    assert_eq!(
        fs::read_to_string(project.join(".claude/skills/pdf/guide.md")).unwrap(),
        "# Guide\n"
    );
    let lock = hone_core::pack::lock::SkillsLock::load(&project).unwrap();
    assert_eq!(lock.skills["pdf"].source_type, "well-known");
}
