//! Importing packs: one crafted malicious zip per rejection, each refused with
//! nothing written, plus overwrite protection and the round trip.
//!
//! The malicious zips are written byte by byte (a zip writer library refuses
//! most of these on purpose), with stored or deflated entries.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use hone_core::pack::{
    self, ExportOptions, ImportAction, ImportOptions, Limits, PackError, RejectionKind,
};
use sha2::{Digest, Sha256};

const SKILL_MD: &str = "---\nname: pdf\ndescription: Extracts text from PDF files. Use when the user asks to read a PDF.\n---\n\n# PDF\n\nRead the file.\n";

/// One entry of a hand-made zip.
#[derive(Clone)]
struct Raw {
    name: Vec<u8>,
    content: Vec<u8>,
    /// Unix mode stored in the external attributes.
    mode: u32,
    deflate: bool,
    /// Uncompressed size to declare instead of the real one.
    declared_size: Option<u32>,
    /// CRC-32 to declare instead of the real one.
    declared_crc: Option<u32>,
}

fn raw(name: impl AsRef<[u8]>, content: impl AsRef<[u8]>) -> Raw {
    Raw {
        name: name.as_ref().to_vec(),
        content: content.as_ref().to_vec(),
        mode: 0o100644,
        deflate: false,
        declared_size: None,
        declared_crc: None,
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The bytes of a zip holding `entries` in order, duplicates and all.
fn zip_bytes(entries: &[Raw]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for entry in entries {
        let data = if entry.deflate {
            let mut encoder =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
            encoder.write_all(&entry.content).unwrap();
            encoder.finish().unwrap()
        } else {
            entry.content.clone()
        };
        let method: u16 = if entry.deflate { 8 } else { 0 };
        let crc = entry.declared_crc.unwrap_or_else(|| crc32(&entry.content));
        let size = entry.declared_size.unwrap_or(entry.content.len() as u32);
        let offset = out.len() as u32;
        let common = |buf: &mut Vec<u8>| {
            buf.extend(20u16.to_le_bytes()); // version needed
            buf.extend(0u16.to_le_bytes()); // flags
            buf.extend(method.to_le_bytes());
            buf.extend(0u16.to_le_bytes()); // time
            buf.extend(33u16.to_le_bytes()); // date: 1980-01-01
            buf.extend(crc.to_le_bytes());
            buf.extend((data.len() as u32).to_le_bytes());
            buf.extend(size.to_le_bytes());
            buf.extend((entry.name.len() as u16).to_le_bytes());
            buf.extend(0u16.to_le_bytes()); // extra length
        };
        out.extend(0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend(&entry.name);
        out.extend(&data);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend((3u16 << 8 | 20).to_le_bytes()); // made by: Unix
        common(&mut central);
        central.extend(0u16.to_le_bytes()); // comment length
        central.extend(0u16.to_le_bytes()); // disk
        central.extend(0u16.to_le_bytes()); // internal attributes
        central.extend((entry.mode << 16).to_le_bytes());
        central.extend(offset.to_le_bytes());
        central.extend(&entry.name);
    }
    let central_offset = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(central_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

/// A workspace: the pack file and a destination folder beside it.
struct Case {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    pack: PathBuf,
    destination: PathBuf,
}

fn case(entries: &[Raw]) -> Case {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let pack = root.join("in.zip");
    fs::write(&pack, zip_bytes(entries)).unwrap();
    Case {
        destination: root.join("skills"),
        pack,
        root,
        _tmp: tmp,
    }
}

fn skill_entries() -> Vec<Raw> {
    vec![
        raw("pdf/SKILL.md", SKILL_MD),
        raw("pdf/references/notes.md", "# Notes\n"),
    ]
}

/// Imports with `limits` and asserts a refusal of `kind` that wrote nothing:
/// no destination, and nothing beside it but the pack.
fn assert_rejected_with(case: &Case, limits: Limits, kind: RejectionKind) {
    let options = ImportOptions {
        limits,
        ..ImportOptions::default()
    };
    let err = pack::import(&case.pack, &case.destination, &options).unwrap_err();
    let PackError::Rejected(problems) = &err else {
        panic!("expected a rejection, got {err}")
    };
    assert!(
        problems.iter().any(|p| p.kind == kind),
        "expected {kind:?}, got {problems:?}"
    );
    assert!(!err.to_string().is_empty());
    let left: Vec<_> = fs::read_dir(&case.root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["in.zip"], "something was written");
    // The dry run and verification see the same problem.
    let plan = pack::plan_import(&case.pack, &case.destination, &options).unwrap();
    assert!(!plan.ready && plan.problems.iter().any(|p| p.kind == kind));
    let verify = pack::verify(
        &case.pack,
        &pack::VerifyOptions {
            limits,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(!verify.ok && verify.problems.iter().any(|p| p.kind == kind));
}

fn assert_rejected(entries: &[Raw], kind: RejectionKind) {
    assert_rejected_with(&case(entries), Limits::default(), kind);
}

fn with(extra: Raw) -> Vec<Raw> {
    let mut entries = skill_entries();
    entries.push(extra);
    entries
}

#[test]
fn a_clean_pack_imports() {
    let case = case(&skill_entries());
    let report = pack::import(&case.pack, &case.destination, &ImportOptions::default()).unwrap();
    assert_eq!(report.skills.len(), 1);
    assert_eq!(
        fs::read_to_string(case.destination.join("pdf/SKILL.md")).unwrap(),
        SKILL_MD
    );
    assert_eq!(
        fs::read_to_string(case.destination.join("pdf/references/notes.md")).unwrap(),
        "# Notes\n"
    );
    let left: Vec<_> = fs::read_dir(&case.root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "the staging folders are gone: {left:?}");
}

#[test]
fn finder_litter_is_skipped_not_refused() {
    let mut entries = skill_entries();
    entries.push(raw("__MACOSX/pdf/._SKILL.md", "resource fork"));
    entries.push(raw("pdf/.DS_Store", "junk"));
    let case = case(&entries);
    pack::import(&case.pack, &case.destination, &ImportOptions::default()).unwrap();
    assert!(!case.destination.join("__MACOSX").exists());
    assert!(!case.destination.join("pdf/.DS_Store").exists());
    // Still checked: litter with a hostile name is refused.
    assert_rejected(
        &with(raw("__MACOSX/../../evil", "x")),
        RejectionKind::PathEscape,
    );
}

#[test]
fn rejects_parent_dir_escape() {
    assert_rejected(
        &with(raw("pdf/../../evil.sh", "x")),
        RejectionKind::PathEscape,
    );
    assert_rejected(&with(raw("../evil.sh", "x")), RejectionKind::PathEscape);
}

#[test]
fn rejects_absolute_paths() {
    assert_rejected(&with(raw("/tmp/evil.sh", "x")), RejectionKind::AbsolutePath);
}

#[test]
fn rejects_drive_letters() {
    assert_rejected(
        &with(raw("C:/Windows/evil.dll", "x")),
        RejectionKind::AbsolutePath,
    );
    assert_rejected(&with(raw("c:evil.dll", "x")), RejectionKind::AbsolutePath);
}

#[test]
fn rejects_backslash_tricks() {
    assert_rejected(
        &with(raw("pdf\\..\\..\\evil.sh", "x")),
        RejectionKind::Backslash,
    );
    assert_rejected(
        &with(raw("\\\\server\\share\\evil", "x")),
        RejectionKind::Backslash,
    );
}

#[test]
fn rejects_symlink_entries() {
    let link = Raw {
        mode: 0o120777,
        ..raw("pdf/link", "/etc/passwd")
    };
    assert_rejected(&with(link), RejectionKind::Symlink);
}

#[test]
fn rejects_device_and_pipe_entries() {
    let fifo = Raw {
        mode: 0o010644,
        ..raw("pdf/fifo", "")
    };
    assert_rejected(&with(fifo), RejectionKind::SpecialFile);
}

#[test]
fn rejects_duplicate_entries() {
    assert_rejected(
        &with(raw("pdf/SKILL.md", "---\nname: evil\n---\n")),
        RejectionKind::DuplicateEntry,
    );
}

#[test]
fn rejects_a_name_that_is_both_file_and_folder() {
    let mut entries = skill_entries();
    entries.push(raw("pdf/references", "a file where a folder is"));
    assert_rejected(&entries, RejectionKind::DuplicateEntry);
}

#[test]
fn rejects_case_insensitive_duplicates() {
    assert_rejected(
        &with(raw("pdf/REFERENCES/notes.md", "x")),
        RejectionKind::CaseCollision,
    );
    assert_rejected(
        &with(raw("pdf/skill.md", "x")),
        RejectionKind::CaseCollision,
    );
}

#[test]
fn rejects_names_that_are_not_utf8() {
    assert_rejected(&with(raw(b"pdf/caf\xe9.md", "x")), RejectionKind::NotUtf8);
}

#[test]
fn rejects_nul_in_names() {
    assert_rejected(&with(raw("pdf/a\0.md", "x")), RejectionKind::NulInName);
}

#[test]
fn rejects_windows_reserved_names() {
    assert_rejected(&with(raw("pdf/CON", "x")), RejectionKind::ReservedName);
    assert_rejected(&with(raw("pdf/aux.txt", "x")), RejectionKind::ReservedName);
    assert_rejected(&with(raw("pdf/lpt1.md", "x")), RejectionKind::ReservedName);
}

#[test]
fn rejects_other_names_windows_cannot_hold() {
    assert_rejected(
        &with(raw("pdf/SKILL.md:hidden", "x")),
        RejectionKind::InvalidName,
    );
    assert_rejected(&with(raw("pdf/notes. ", "x")), RejectionKind::InvalidName);
}

#[test]
fn rejects_too_many_entries() {
    let mut entries = skill_entries();
    for i in 0..20 {
        entries.push(raw(format!("pdf/many/{i}.md"), "x"));
    }
    let limits = Limits {
        max_entries: 10,
        ..Limits::default()
    };
    assert_rejected_with(&case(&entries), limits, RejectionKind::TooManyEntries);
}

#[test]
fn rejects_total_size_over_the_limit() {
    let big = Raw {
        deflate: true,
        ..raw("pdf/big.txt", "lorem ipsum dolor sit amet ".repeat(50_000))
    };
    let limits = Limits {
        max_total_size: 1 << 20,
        ..Limits::default()
    };
    assert_rejected_with(&case(&with(big)), limits, RejectionKind::TooLarge);
}

#[test]
fn rejects_one_entry_over_the_limit() {
    let big = Raw {
        deflate: true,
        ..raw("pdf/big.txt", vec![b'a'; 3 << 20])
    };
    let limits = Limits {
        max_entry_size: 2 << 20,
        max_ratio: u64::MAX,
        ..Limits::default()
    };
    assert_rejected_with(&case(&with(big)), limits, RejectionKind::TooLarge);
}

#[test]
fn rejects_zip_bomb_compression_ratios() {
    // 16 MiB of zeros deflate to about 16 KiB: a ratio near 1000:1.
    let bomb = Raw {
        deflate: true,
        ..raw("pdf/zeros.bin", vec![0u8; 16 << 20])
    };
    assert_rejected(&with(bomb), RejectionKind::CompressionRatio);
}

#[test]
fn rejects_an_entry_that_inflates_past_its_declared_size() {
    // Declares 10 bytes, holds a megabyte: a lying header must not get past
    // the limits it was checked against.
    let liar = Raw {
        deflate: true,
        declared_size: Some(10),
        ..raw("pdf/liar.txt", vec![b'x'; 1 << 20])
    };
    let case = case(&with(liar));
    let err = pack::import(&case.pack, &case.destination, &ImportOptions::default()).unwrap_err();
    let PackError::Rejected(problems) = &err else {
        panic!("expected a rejection, got {err}")
    };
    assert!(
        problems
            .iter()
            .any(|p| matches!(p.kind, RejectionKind::SizeMismatch | RejectionKind::Corrupt)),
        "{problems:?}"
    );
    assert!(!case.destination.exists());
    assert_eq!(fs::read_dir(&case.root).unwrap().count(), 1);
}

#[test]
fn rejects_corrupt_content() {
    let corrupt = Raw {
        declared_crc: Some(0xdead_beef),
        ..raw("pdf/notes2.md", "content")
    };
    assert_rejected(&with(corrupt), RejectionKind::Corrupt);
}

#[test]
fn rejects_what_is_not_a_zip() {
    let tmp = tempfile::tempdir().unwrap();
    let case = Case {
        pack: tmp.path().join("in.zip"),
        destination: tmp.path().join("skills"),
        root: tmp.path().to_path_buf(),
        _tmp: tmp,
    };
    fs::write(&case.pack, b"this is not a zip file at all").unwrap();
    assert_rejected_with(&case, Limits::default(), RejectionKind::Corrupt);
}

/// A two-skill pack with a manifest; `tamper` edits the manifest's JSON.
fn manifest_case(tamper: impl Fn(&mut serde_json::Value)) -> Vec<Raw> {
    let other = SKILL_MD
        .replace("name: pdf", "name: docx")
        .replace("PDF", "DOCX");
    let file = |path: &str, content: &str| serde_json::json!({"path": path, "size": content.len(), "sha256": format!("{:x}", Sha256::digest(content))});
    let tokens =
        serde_json::json!({"tokenizer": "o200k", "metadata": 1, "instructions": 1, "resources": 0});
    let mut manifest = serde_json::json!({
        "manifest_version": 1, "name": "p", "version": "0.0.0", "hone_version": "0.1.0",
        "skills": [
            {"name": "docx", "files": [file("SKILL.md", &other)], "tokens": tokens},
            {"name": "pdf", "files": [file("SKILL.md", SKILL_MD), file("references/notes.md", "# Notes\n")], "tokens": tokens},
        ]
    });
    tamper(&mut manifest);
    let mut entries = vec![
        raw("hone-pack.json", serde_json::to_vec(&manifest).unwrap()),
        raw("docx/SKILL.md", other),
    ];
    entries.extend(skill_entries());
    entries
}

#[test]
fn a_pack_matching_its_manifest_imports() {
    let case = case(&manifest_case(|_| {}));
    let verify = pack::verify(&case.pack, &Default::default()).unwrap();
    assert!(verify.problems.is_empty(), "{:?}", verify.problems);
    assert_eq!(verify.manifest.unwrap().skills.len(), 2);
    pack::import(&case.pack, &case.destination, &ImportOptions::default()).unwrap();
    assert!(case.destination.join("docx/SKILL.md").is_file());
}

#[test]
fn rejects_checksum_mismatches() {
    let entries = manifest_case(|m| m["skills"][1]["files"][1]["sha256"] = "00".repeat(32).into());
    assert_rejected(&entries, RejectionKind::ChecksumMismatch);
}

#[test]
fn rejects_files_the_manifest_does_not_list_or_lacks() {
    let entries = manifest_case(|m| {
        m["skills"][1]["files"].as_array_mut().unwrap().pop();
    });
    assert_rejected(&entries, RejectionKind::Manifest);
    let entries = manifest_case(|m| {
        m["skills"][0]["files"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"path": "gone.md", "size": 1, "sha256": "00"}));
    });
    assert_rejected(&entries, RejectionKind::Manifest);
    assert_rejected(
        &manifest_case(|m| m["manifest_version"] = 99.into()),
        RejectionKind::Manifest,
    );
    assert_rejected(
        &manifest_case(|m| *m = serde_json::json!({"not": "a manifest"})),
        RejectionKind::Manifest,
    );
}

#[test]
fn rejects_files_outside_skill_folders() {
    assert_rejected(&with(raw("README.md", "x")), RejectionKind::Layout);
    assert_rejected(&[raw("SKILL.md", SKILL_MD)], RejectionKind::Layout);
    assert_rejected(&with(raw("notaskill/file.md", "x")), RejectionKind::Layout);
}

#[test]
fn never_overwrites_an_existing_skill_without_force() {
    let case = case(&skill_entries());
    fs::create_dir_all(case.destination.join("pdf")).unwrap();
    fs::write(case.destination.join("pdf/SKILL.md"), "mine").unwrap();
    fs::write(case.destination.join("pdf/local.md"), "mine too").unwrap();
    let plan = pack::plan_import(&case.pack, &case.destination, &ImportOptions::default()).unwrap();
    assert!(!plan.ready);
    assert_eq!(plan.skills[0].action, ImportAction::Replace);
    let err = pack::import(&case.pack, &case.destination, &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(err, PackError::WouldOverwrite { ref names, .. } if names == &["pdf"]),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(case.destination.join("pdf/SKILL.md")).unwrap(),
        "mine"
    );
    let forced = ImportOptions {
        force: true,
        ..ImportOptions::default()
    };
    assert!(
        pack::plan_import(&case.pack, &case.destination, &forced)
            .unwrap()
            .ready
    );
    pack::import(&case.pack, &case.destination, &forced).unwrap();
    assert_eq!(
        fs::read_to_string(case.destination.join("pdf/SKILL.md")).unwrap(),
        SKILL_MD
    );
    // Replaced whole, not merged.
    assert!(!case.destination.join("pdf/local.md").exists());
    let left: Vec<_> = fs::read_dir(&case.root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "the staging folders are gone: {left:?}");
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn export_import_export_gives_identical_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("team");
    write(&lib.join("pdf/SKILL.md"), SKILL_MD);
    write(&lib.join("pdf/references/notes.md"), "# Notes\n");
    write(&lib.join("pdf/scripts/extract.py"), "print('hi')\n");
    write(
        &lib.join("docx/SKILL.md"),
        &SKILL_MD.replace("name: pdf", "name: docx"),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(
            lib.join("pdf/scripts/extract.py"),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let options = ExportOptions {
        name: Some("team".into()),
        version: Some("1.0.0".into()),
        ..Default::default()
    };
    let first = tmp.path().join("first.zip");
    pack::export(std::slice::from_ref(&lib), &first, &options, &|_| {}).unwrap();
    let imported = tmp.path().join("imported");
    pack::import(&first, &imported, &ImportOptions::default()).unwrap();
    let second = tmp.path().join("second.zip");
    pack::export(&[imported], &second, &options, &|_| {}).unwrap();
    assert!(
        fs::read(&first).unwrap() == fs::read(&second).unwrap(),
        "the round trip changed the pack"
    );
    let verify = pack::verify(&second, &Default::default()).unwrap();
    assert!(verify.ok, "{verify:?}");
}
