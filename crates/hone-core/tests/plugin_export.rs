//! Exporting Claude Code plugins and marketplaces, each checked by the real
//! `claude plugin validate` (Claude Code 2.1.328, offline): what Hone writes
//! passes it, and what it refuses Hone refuses first, at the same place.

mod clients;

use std::fs;
use std::path::{Path, PathBuf};

use hone_core::pack::PackError;
use hone_core::pack::plugin::{self, PluginOptions};
use hone_core::rules::Target;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// The bundled library, `skills/` at the top of the repository.
fn bundled() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")
}

fn options() -> PluginOptions {
    let mut options = PluginOptions::default();
    options.export.target = Target::ClaudeCode;
    options
}

/// A library of one skill whose frontmatter is `frontmatter`, with package
/// settings naming an author.
fn library(root: &Path, name: &str, frontmatter: &str) -> PathBuf {
    let lib = root.join(name);
    write(
        &lib.join("hello/SKILL.md"),
        &format!("---\n{frontmatter}---\n\n# Hello\n\nSay hello.\n"),
    );
    write(
        &lib.join("evals/hone-settings.json"),
        &format!(
            r#"{{"package": {{"name": "{name}", "version": "1.2.0", "description": "Greetings.", "author": {{"name": "Ada"}}, "license": "MIT"}}}}"#
        ),
    );
    lib
}

#[test]
fn the_bundled_library_as_a_plugin_passes_the_real_validator() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("plugin");
    let report = plugin::export_plugin(&[bundled()], &out, &options()).unwrap();
    assert!(out.join(".claude-plugin/plugin.json").is_file());
    assert!(
        out.join("README.md").is_file(),
        "the library's README is kept"
    );
    let (ok, validated) = clients::plugin_validate(&out);
    assert!(ok, "{:#?}", clients::validate_errors(&validated));
    let mut provided: Vec<String> = validated["provides"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    provided.sort();
    let mut ids: Vec<String> = report.skills.iter().map(|s| s.id.clone()).collect();
    ids.sort();
    assert_eq!(provided, ids, "the client sees every skill as plugin:skill");
}

#[test]
fn a_marketplace_of_two_libraries_and_each_of_its_plugins_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let greet = library(
        tmp.path(),
        "greetings",
        "name: hello\ndescription: Says hello. Use when greeting someone.\n",
    );
    let out = tmp.path().join("market");
    let mut options = options();
    options.export.name = Some("team-market".into());
    let report = plugin::export_marketplace(&[greet, bundled()], &out, &options).unwrap();
    assert_eq!(report.manifest.plugins.len(), 2);
    assert_eq!(report.manifest.owner.name, "Ada");
    let (ok, validated) = clients::plugin_validate(&out);
    assert!(ok, "{:#?}", clients::validate_errors(&validated));
    for entry in &report.manifest.plugins {
        let (ok, validated) = clients::plugin_validate(&out.join(&entry.source));
        assert!(
            ok,
            "{}: {:#?}",
            entry.name,
            clients::validate_errors(&validated)
        );
    }
}

/// Each kind of frontmatter the validator refuses: Hone stops the export with
/// HP007 on the line of the value, and the plugin written anyway (with
/// `allow_errors`) is refused by the real validator about the same key.
#[test]
fn what_the_validator_refuses_hone_reports_first_with_its_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            "yaml",
            "name: hello\ndescription: d\n  - broken: [\n",
            0,
            "frontmatter",
        ),
        ("not-mapping", "- a\n- b\n", 2, "frontmatter"),
        ("name-number", "name: 5\ndescription: d\n", 2, "name"),
        (
            "description-list",
            "name: hello\ndescription: [a, b]\n",
            3,
            "description",
        ),
        (
            "allowed-tools-number",
            "name: hello\ndescription: d\nallowed-tools: 7\n",
            4,
            "allowed-tools",
        ),
        (
            "allowed-tools-mixed",
            "name: hello\ndescription: d\nallowed-tools:\n  - Read\n  - 3\n",
            6,
            "allowed-tools",
        ),
        (
            "shell",
            "name: hello\ndescription: d\nshell: zsh\n",
            4,
            "shell",
        ),
    ];
    for &(case, frontmatter, line, key) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let lib = library(tmp.path(), "refused", frontmatter);
        let out = tmp.path().join("plugin");
        let err =
            plugin::export_plugin(std::slice::from_ref(&lib), &out, &options()).expect_err(case);
        let PackError::Blocked(skills) = err else {
            panic!("{case}: {err}");
        };
        let refusals: Vec<_> = skills[0]
            .findings
            .iter()
            .filter(|d| d.code == "HP007")
            .collect();
        assert_eq!(refusals.len(), 1, "{case}: {:#?}", skills[0].findings);
        if line > 0 {
            assert_eq!(refusals[0].span.start.line as usize, line, "{case}");
        }
        assert!(!out.exists(), "{case}: nothing is written");

        let mut allow = options();
        allow.export.allow_errors = true;
        plugin::export_plugin(&[lib], &out, &allow).unwrap();
        let (ok, validated) = clients::plugin_validate(&out);
        let errors = clients::validate_errors(&validated);
        assert!(!ok, "{case}: the validator accepted it");
        assert!(
            errors.iter().any(|e| e.contains(&format!("\"{key}\""))),
            "{case}: {errors:#?}"
        );
    }
}

/// What the validator warns about or lets through, Hone does not refuse.
#[test]
fn what_the_validator_accepts_hone_does_not_refuse() {
    let cases = [
        "name: hello\nname: hello\ndescription: d\n",
        "name: hello\ndescription: 5\n",
        "name: hello\ndescription: d\nallowed-tools: Read, Grep\nshell: ' PowerShell '\n",
        "name: hello\ndescription: d\nmetadata: [a]\n",
    ];
    for frontmatter in cases {
        let tmp = tempfile::tempdir().unwrap();
        let lib = library(tmp.path(), "accepted", frontmatter);
        let mut allow = options();
        allow.export.allow_errors = true;
        let out = tmp.path().join("plugin");
        let report = plugin::export_plugin(&[lib], &out, &allow).unwrap();
        let refusals: Vec<_> = report.skills[0]
            .findings
            .iter()
            .filter(|d| d.code == "HP007")
            .collect();
        assert!(refusals.is_empty(), "{frontmatter}: {refusals:#?}");
        let (ok, validated) = clients::plugin_validate(&out);
        assert!(
            ok,
            "{frontmatter}: {:#?}",
            clients::validate_errors(&validated)
        );
    }
}

#[test]
fn a_manifest_the_client_would_refuse_is_not_written_and_says_where() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path(), "lib", "name: hello\ndescription: Says hello.\n");
    write(
        &lib.join("evals/hone-settings.json"),
        "{\n  \"package\": {\n    \"name\": \"my plugin\",\n    \"homepage\": \"not a url\"\n  }\n}\n",
    );
    let out = tmp.path().join("plugin");
    let Err(PackError::Manifest(problems)) =
        plugin::export_plugin(std::slice::from_ref(&lib), &out, &options())
    else {
        panic!("exported");
    };
    let lines: Vec<(String, Option<usize>)> =
        problems.iter().map(|p| (p.key.clone(), p.line)).collect();
    assert_eq!(
        lines,
        [
            ("package.name".to_owned(), Some(3)),
            ("package.homepage".to_owned(), Some(4))
        ]
    );
    assert!(!out.exists());
    // The check before an export finds the same problems, for a marketplace too.
    let export = options().export;
    for marketplace in [false, true] {
        let Err(PackError::Manifest(checked)) =
            plugin::check(std::slice::from_ref(&lib), &export, marketplace)
        else {
            panic!("passed the check");
        };
        assert!(
            checked.iter().any(|p| p.key == "package.name"),
            "{checked:?}"
        );
    }
    let fine = library(
        tmp.path(),
        "fine",
        "name: hello\ndescription: Says hello.\n",
    );
    assert_eq!(plugin::check(&[fine], &export, true).unwrap(), []);
}

#[test]
fn an_existing_plugin_folder_is_replaced_only_when_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path(), "lib", "name: hello\ndescription: Says hello.\n");
    let out = tmp.path().join("plugin");
    write(&out.join("notes.txt"), "mine");
    let err = plugin::export_plugin(std::slice::from_ref(&lib), &out, &options()).unwrap_err();
    assert!(matches!(err, PackError::FolderExists(_)), "{err}");
    assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    let mut force = options();
    force.force = true;
    plugin::export_plugin(&[lib], &out, &force).unwrap();
    assert!(!out.join("notes.txt").exists());
    assert!(out.join("skills/hello/SKILL.md").is_file());
}
