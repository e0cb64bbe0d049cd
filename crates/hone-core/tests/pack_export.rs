//! Exporting packs: layout, manifest, reproducibility, exclusions and the gate.

use std::fs;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use hone_core::pack::{self, ExportOptions, Manifest, PackError, PackFormat};
use sha2::{Digest, Sha256};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn skill_text(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Formats {name} files consistently. Use when the user asks to tidy or format {name} files.\n---\n\n# {name}\n\nRun the formatter, then read [the guide](references/guide.md).\n"
    )
}

/// A library of two valid skills with the kinds of litter real folders have.
fn library(root: &Path) -> PathBuf {
    let lib = root.join("team-lib");
    for name in ["alpha", "beta"] {
        let dir = lib.join(name);
        write(&dir.join("SKILL.md"), &skill_text(name));
        write(
            &dir.join("references/guide.md"),
            &format!("# {name} guide\n\nDetails.\n"),
        );
        write(&dir.join("evals/cases.yaml"), "- prompt: x\n");
        write(&dir.join(".DS_Store"), "junk");
        write(&dir.join("__pycache__/m.cpython-312.pyc"), "junk");
        write(&dir.join(".git/HEAD"), "ref: refs/heads/main\n");
        write(&dir.join("node_modules/x/index.js"), "junk");
        write(&dir.join(".guide.md.swp"), "junk");
    }
    write(&lib.join("alpha/scripts/run.sh"), "#!/bin/sh\necho hi\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(
            lib.join("alpha/scripts/run.sh"),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    lib
}

fn options() -> ExportOptions {
    ExportOptions {
        epoch: Some(1_700_000_000),
        ..ExportOptions::default()
    }
}

fn build(inputs: &[PathBuf], options: &ExportOptions) -> Result<pack::BuiltPack, PackError> {
    pack::build(inputs, options, &|_| {})
}

/// Entry names, in stored order.
fn entry_names(bytes: &[u8]) -> Vec<String> {
    let archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    archive
        .file_names()
        .map(|n| n.unwrap().into_owned())
        .collect()
}

fn read_entry(bytes: &[u8], name: &str) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = Vec::new();
    archive
        .by_name(name)
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn a_library_packs_one_folder_per_skill_with_a_manifest_first() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let built = build(&[lib], &options()).unwrap();
    assert_eq!(
        entry_names(&built.bytes),
        [
            "hone-pack.json",
            "alpha/SKILL.md",
            "alpha/references/guide.md",
            "alpha/scripts/run.sh",
            "beta/SKILL.md",
            "beta/references/guide.md",
        ]
    );
    let manifest: Manifest =
        serde_json::from_slice(&read_entry(&built.bytes, "hone-pack.json")).unwrap();
    assert_eq!(manifest.name, "team-lib");
    assert_eq!(manifest.version, "0.0.0");
    assert_eq!(manifest.manifest_version, 1);
    let alpha = &manifest.skills[0];
    assert_eq!(alpha.name, "alpha");
    assert!(
        alpha
            .description
            .as_deref()
            .unwrap()
            .starts_with("Formats alpha")
    );
    let skill_md = read_entry(&built.bytes, "alpha/SKILL.md");
    assert_eq!(alpha.files[0].path, "SKILL.md");
    assert_eq!(alpha.files[0].size, skill_md.len() as u64);
    assert_eq!(
        alpha.files[0].sha256,
        format!("{:x}", Sha256::digest(&skill_md))
    );
    assert_eq!(alpha.tokens.tokenizer, "o200k");
    assert!(
        alpha.tokens.metadata > 0 && alpha.tokens.instructions > 0 && alpha.tokens.resources > 0
    );
    assert_eq!(built.report.entries, 6);
}

#[test]
fn one_skill_packs_without_extra_files_unless_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let built = build(&[lib.join("beta")], &options()).unwrap();
    assert_eq!(
        entry_names(&built.bytes),
        ["beta/SKILL.md", "beta/references/guide.md"]
    );
    assert_eq!(built.report.name, "beta");
    let asked = ExportOptions {
        manifest: true,
        ..options()
    };
    assert_eq!(
        entry_names(&build(&[lib.join("beta")], &asked).unwrap().bytes)[0],
        "hone-pack.json"
    );
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let first = build(std::slice::from_ref(&lib), &options()).unwrap().bytes;
    // Another checkout: same content, other folder, other modification times
    // and creation order.
    let other = tempfile::tempdir().unwrap();
    let copy = other.path().join("team-lib");
    for name in ["beta", "alpha"] {
        for file in ["references/guide.md", "SKILL.md"] {
            write(
                &copy.join(name).join(file),
                &fs::read_to_string(lib.join(name).join(file)).unwrap(),
            );
        }
    }
    write(&copy.join("alpha/scripts/run.sh"), "#!/bin/sh\necho hi\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(
            copy.join("alpha/scripts/run.sh"),
            fs::Permissions::from_mode(0o775),
        )
        .unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = build(&[lib], &options()).unwrap().bytes;
    let from_copy = build(&[copy], &options()).unwrap().bytes;
    assert!(first == second, "two exports of one folder differ");
    assert!(first == from_copy, "an export of an identical copy differs");
}

#[test]
fn entries_carry_the_fixed_time_and_only_the_executable_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let built = build(
        std::slice::from_ref(&lib),
        &ExportOptions {
            epoch: Some(1_709_210_097),
            ..options()
        },
    )
    .unwrap();
    let mut archive = zip::ZipArchive::new(Cursor::new(&built.bytes)).unwrap();
    for i in 0..archive.len() {
        let entry = archive.by_index(i).unwrap();
        let time = entry.last_modified().unwrap();
        assert_eq!(
            (
                time.year(),
                time.month(),
                time.day(),
                time.hour(),
                time.minute(),
                time.second()
            ),
            (2024, 2, 29, 12, 34, 56)
        );
        let name = entry.name().unwrap().into_owned();
        let expected = if name.ends_with(".sh") {
            0o100755
        } else {
            0o100644
        };
        assert_eq!(entry.unix_mode(), Some(expected), "{name}");
    }
    let default_time = ExportOptions {
        epoch: None,
        ..options()
    };
    // SOURCE_DATE_EPOCH is not set in the test environment: the zip epoch.
    if std::env::var_os("SOURCE_DATE_EPOCH").is_none() {
        let built = build(&[lib], &default_time).unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(&built.bytes)).unwrap();
        let time = archive.by_index(0).unwrap().last_modified().unwrap();
        assert_eq!((time.year(), time.month(), time.day()), (1980, 1, 1));
    }
}

#[test]
fn evals_are_included_on_request_and_honeignore_leaves_out_more() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    write(&lib.join(".honeignore"), "references/\n");
    write(&lib.join("beta/.honeignore"), "*.yaml\n");
    let with_evals = ExportOptions {
        include_evals: true,
        ..options()
    };
    let names = entry_names(&build(&[lib], &with_evals).unwrap().bytes);
    assert_eq!(
        names,
        [
            "hone-pack.json",
            "alpha/SKILL.md",
            "alpha/evals/cases.yaml",
            "alpha/scripts/run.sh",
            "beta/SKILL.md"
        ]
    );
}

#[test]
fn a_library_honeignore_can_leave_out_whole_skills() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    write(&lib.join(".honeignore"), "beta/\n");
    let built = build(std::slice::from_ref(&lib), &options()).unwrap();
    assert_eq!(built.report.skills.len(), 1);
    assert_eq!(built.report.ignored_skills, [lib.join("beta")]);
}

#[test]
fn error_findings_stop_the_export_unless_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    write(&lib.join("broken/SKILL.md"), "no frontmatter at all\n");
    let Err(PackError::Blocked(blocked)) = build(std::slice::from_ref(&lib), &options()) else {
        panic!("a skill without frontmatter must stop the export");
    };
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0].name, "broken");
    assert!(
        blocked[0]
            .findings
            .iter()
            .any(|d| d.severity == hone_core::diagnostic::Severity::Error)
    );
    let allowed = ExportOptions {
        allow_errors: true,
        ..options()
    };
    let built = build(&[lib], &allowed).unwrap();
    assert_eq!(built.report.skills.len(), 3);
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_skill_is_a_finding_and_never_packed() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    write(&tmp.path().join("secret.txt"), "private key");
    std::os::unix::fs::symlink(tmp.path().join("secret.txt"), lib.join("alpha/key.txt")).unwrap();
    std::os::unix::fs::symlink(
        lib.join("alpha/references/guide.md"),
        lib.join("alpha/guide-link.md"),
    )
    .unwrap();
    let Err(PackError::Blocked(blocked)) = build(std::slice::from_ref(&lib), &options()) else {
        panic!("a link out of the skill must stop the export");
    };
    assert!(
        blocked[0]
            .findings
            .iter()
            .any(|d| d.code == "HP001" && d.path.ends_with("key.txt"))
    );
    let allowed = ExportOptions {
        allow_errors: true,
        ..options()
    };
    let built = build(&[lib], &allowed).unwrap();
    let names = entry_names(&built.bytes);
    assert!(!names.iter().any(|n| n.ends_with("key.txt")));
    // A link inside the skill is stored as the file it points to.
    assert_eq!(
        read_entry(&built.bytes, "alpha/guide-link.md"),
        b"# alpha guide\n\nDetails.\n"
    );
}

#[test]
fn two_skills_of_one_name_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    write(&lib.join("group/alpha/SKILL.md"), &skill_text("alpha"));
    let err = build(&[lib], &options()).unwrap_err();
    assert!(
        matches!(err, PackError::DuplicateSkill { ref name, .. } if name == "alpha"),
        "{err}"
    );
}

#[test]
fn skill_format_writes_one_skill_as_name_dot_skill() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let out = tmp.path().join("dist");
    fs::create_dir_all(&out).unwrap();
    let options = ExportOptions {
        format: PackFormat::Skill,
        ..options()
    };
    let report = pack::export(&[lib.join("alpha")], &out, &options, &|_| {}).unwrap();
    assert_eq!(
        report.path.as_deref(),
        Some(out.join("alpha.skill").as_path())
    );
    let bytes = fs::read(out.join("alpha.skill")).unwrap();
    assert_eq!(entry_names(&bytes)[0], "alpha/SKILL.md");
    let err = pack::export(&[lib], &out, &options, &|_| {}).unwrap_err();
    assert!(
        matches!(err, PackError::SkillFormatNeedsOneSkill(2)),
        "{err}"
    );
}

#[test]
fn name_and_version_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let options = ExportOptions {
        name: Some("shared".into()),
        version: Some("2.1.0".into()),
        ..options()
    };
    let out = tmp.path().join("out");
    fs::create_dir_all(&out).unwrap();
    let report = pack::export(&[lib], &out, &options, &|_| {}).unwrap();
    assert_eq!(
        report.path.as_deref(),
        Some(out.join("shared.zip").as_path())
    );
    let manifest: Manifest = serde_json::from_slice(&read_entry(
        &fs::read(out.join("shared.zip")).unwrap(),
        "hone-pack.json",
    ))
    .unwrap();
    assert_eq!(
        (manifest.name.as_str(), manifest.version.as_str()),
        ("shared", "2.1.0")
    );
}

#[test]
fn progress_counts_every_file() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path());
    let calls = std::sync::Mutex::new(Vec::new());
    pack::build(&[lib], &options(), &|p| calls.lock().unwrap().push(p)).unwrap();
    let calls = calls.into_inner().unwrap();
    assert_eq!(calls.len(), 5);
    assert!(calls.iter().all(|p| p.files_total == 5));
    assert_eq!(calls.iter().map(|p| p.files_done).max(), Some(5));
}

/// The bytes of a small pack, pinned. Reproducible means the same on every
/// machine and every build; if this changes, the pack format changed (the
/// zip crate, the deflate backend or Hone's own choices), which must be a
/// deliberate decision recorded with the new value.
#[test]
fn a_known_input_gives_known_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pinned");
    write(&dir.join("SKILL.md"), &skill_text("pinned"));
    write(&dir.join("references/guide.md"), "# guide\n");
    let built = build(
        &[dir],
        &ExportOptions {
            epoch: Some(0),
            ..ExportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        built.report.sha256,
        format!("{:x}", Sha256::digest(&built.bytes))
    );
    assert_eq!(
        built.report.sha256,
        "746ebaa3e2c89a849f151a2cf505ca3edda7cb3824c39f8e5ad68691aa5ce803"
    );
}
