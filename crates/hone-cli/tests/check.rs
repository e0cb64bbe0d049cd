//! `hone check` and `hone rule` as a user runs them: exit codes, formats,
//! colour, and the bundled library passing every rule.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn hone() -> Command {
    let mut cmd = Command::cargo_bin("hone").unwrap();
    cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    cmd
}

fn write_skill(root: &Path, dir: &str, text: &str) -> PathBuf {
    let dir = root.join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    dir
}

const CLEAN: &str =
    "---\nname: pdf-tools\ndescription: Reads PDFs. Use when the user sends a PDF.\n---\n# PDF\n";
const BROKEN: &str =
    "---\nname: pdf-tools\ndescription: Reads PDFs. Use when: the user sends a PDF\n---\n# PDF\n";
const WARNING_ONLY: &str =
    "---\nname: pdf-tools\ndescription: A toolkit for PDF files.\n---\n# PDF\n";

fn stdout(cmd: &mut Command) -> (i32, String) {
    let output = cmd.output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

#[test]
fn clean_skill_exits_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_skill(tmp.path(), "pdf-tools", CLEAN);
    let (code, out) = stdout(hone().arg("check").arg(&dir));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("All checks passed"), "{out}");
}

#[test]
fn error_findings_exit_one_with_source_caret_and_help() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(tmp.path(), "pdf-tools", BROKEN);
    let (code, out) = stdout(hone().arg("check").arg(tmp.path()));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("pdf-tools/SKILL.md:3:14: HS003 [error]"),
        "{out}"
    );
    assert!(
        out.contains("3 | description: Reads PDFs. Use when: the user sends a PDF"),
        "{out}"
    );
    assert!(out.contains("  |              ^^^^"), "{out}");
    assert!(
        out.contains("= help: the value of `description` contains `: `"),
        "{out}"
    );
    assert!(
        !out.contains('\u{1b}'),
        "no colour when stdout is not a terminal: {out}"
    );
}

#[test]
fn warnings_fail_only_with_strict() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_skill(tmp.path(), "pdf-tools", WARNING_ONLY);
    let (code, out) = stdout(hone().arg("check").arg(&dir));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("HS205 [warning]"), "{out}");
    let (code, _) = stdout(hone().arg("check").arg("--strict").arg(&dir));
    assert_eq!(code, 1);
}

#[test]
fn targets_select_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let text = CLEAN
        .replace("# PDF", "")
        .replace("---\n\n", "when_to_use: When a PDF arrives.\n---\n");
    let dir = write_skill(tmp.path(), "pdf-tools", &text);
    let (code, out) = stdout(hone().args(["check", "--target", "claude-code"]).arg(&dir));
    assert_eq!(code, 0, "{out}");
    let (code, out) = stdout(hone().args(["check", "--target", "claude-api"]).arg(&dir));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("HS307"), "{out}");
    let bad = hone()
        .args(["check", "--target", "nope"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn json_has_the_documented_shape() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(tmp.path(), "pdf-tools", BROKEN);
    let (code, out) = stdout(hone().args(["check", "--format", "json"]).arg(tmp.path()));
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["target"], "agentskills");
    assert_eq!(json["summary"]["skills"], 1);
    assert_eq!(json["summary"]["error"], 1);
    assert_eq!(json["summary"]["fixable"], 1);
    let d = &json["diagnostics"][0];
    assert_eq!(d["code"], "HS003");
    assert_eq!(d["rule"], "invalid-yaml");
    assert_eq!(d["severity"], "error");
    assert!(d["path"].as_str().unwrap().ends_with("pdf-tools/SKILL.md"));
    assert_eq!(d["span"]["start"]["line"], 3);
    assert_eq!(d["span"]["start"]["column"], 14);
    assert!(d["span"]["start"]["offset"].is_u64());
    assert!(d["help"].is_string());
    assert!(
        d["fix"]["edits"][0]["replacement"]
            .as_str()
            .unwrap()
            .starts_with('"')
    );
    assert!(json["problems"].as_array().unwrap().is_empty());
}

#[test]
fn sarif_and_github_formats() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(tmp.path(), "pdf-tools", BROKEN);
    let (_, out) = stdout(hone().args(["check", "--format", "sarif"]).arg(tmp.path()));
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    assert!(run["tool"]["driver"]["rules"].as_array().unwrap().len() > 30);
    assert_eq!(run["results"][0]["ruleId"], "HS003");
    assert_eq!(
        run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    let (_, out) = stdout(hone().args(["check", "--format", "github"]).arg(tmp.path()));
    assert!(out.starts_with("::error file="), "{out}");
    assert!(out.contains(",line=3,col=14,"), "{out}");
    assert!(out.contains("title=HS003 invalid-yaml::"), "{out}");
}

#[test]
fn colour_on_request_and_no_color_respected() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(tmp.path(), "pdf-tools", BROKEN);
    let (_, out) = stdout(
        hone()
            .env("CLICOLOR_FORCE", "1")
            .arg("check")
            .arg(tmp.path()),
    );
    assert!(out.contains('\u{1b}'), "forced colour: {out}");
    let (_, out) = stdout(
        hone()
            .env("CLICOLOR_FORCE", "1")
            .env("NO_COLOR", "1")
            .arg("check")
            .arg(tmp.path()),
    );
    assert!(!out.contains('\u{1b}'), "NO_COLOR wins: {out}");
}

#[test]
fn bad_paths_exit_two() {
    let out = hone().args(["check", "/no/such/skill"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(
        hone()
            .arg("check")
            .arg(&file)
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn bundled_library_passes_every_rule_strictly() {
    let skills = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let (code, out) = stdout(
        hone()
            .args(["check", "--target", "all", "--strict"])
            .arg(&skills),
    );
    assert_eq!(code, 0, "{out}");
}

#[test]
fn rule_lists_and_documents_rules() {
    let (code, out) = stdout(hone().arg("rule"));
    assert_eq!(code, 0);
    assert!(
        out.contains("HS003") && out.contains("invalid-yaml"),
        "{out}"
    );
    let (code, out) = stdout(hone().args(["rule", "hs103"]));
    assert_eq!(code, 0);
    assert!(
        out.contains("# HS103 name-format") && out.contains("skills-ref differs"),
        "{out}"
    );
    let (_, out) = stdout(hone().args(["rule", "name-format", "--json"]));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["code"], "HS103");
    assert_eq!(
        hone()
            .args(["rule", "HS999"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_skill_checked_from_inside_its_folder_knows_its_directory_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = write_skill(
        tmp.path(),
        "pdf-tools",
        &CLEAN.replace("name: pdf-tools", "name: pdf"),
    );
    let (code, out) = stdout(hone().arg("check").current_dir(&dir));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("`name` is `pdf` but the directory is `pdf-tools`"),
        "{out}"
    );
}

#[test]
fn long_bodies_are_tokenized_once_across_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let body = "Explain each step of the report in plain words. ".repeat(1200);
    let text = CLEAN.replace("# PDF\n", &format!("# PDF\n{body}\n"));
    let lib = tmp.path().join("lib");
    write_skill(&lib, "pdf-tools", &text);
    let run = |extra: &[&str]| {
        stdout(
            hone()
                .env("XDG_CACHE_HOME", &cache)
                .arg("check")
                .arg(&lib)
                .args(extra),
        )
    };
    let memo = cache.join("hone/tokens/limits.bin");
    let uncached = run(&["--no-cache"]);
    assert!(uncached.1.contains("HS402"), "{}", uncached.1);
    assert!(!memo.exists(), "--no-cache writes no cache");
    let first = run(&[]);
    assert!(memo.is_file());
    let written = std::fs::metadata(&memo).unwrap().modified().unwrap();
    let second = run(&[]);
    assert_eq!(first, uncached);
    assert_eq!(second, uncached);
    let unchanged = std::fs::metadata(&memo).unwrap().modified().unwrap();
    assert_eq!(
        written, unchanged,
        "a run with nothing new leaves the cache alone"
    );
    std::fs::write(&memo, b"damaged").unwrap();
    assert_eq!(run(&[]), uncached, "a damaged cache is rebuilt");
}

/// skills-ref's test suite builds folders without a `SKILL.md` (empty, or
/// with only a lowercase `skill.md`): a check that finds no skill is a usage
/// error, with the misnamed file named in the hint.
#[test]
fn a_check_that_finds_no_skill_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = hone().arg("check").arg(tmp.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no skills"));
    let dir = tmp.path().join("pdf-tools");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("skill.md"), CLEAN).unwrap();
    let out = hone()
        .args(["check", "--strict"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("skill.md") && stderr.contains("rename"),
        "{stderr}"
    );
    let (code, out) = stdout(hone().args(["check", "--allow-empty"]).arg(tmp.path()));
    assert_eq!(code, 0, "{out}");
}

/// Every outcome of `--format json` is one JSON document on stdout.
#[test]
fn json_errors_are_json_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let missing = tmp.path().join("missing");
    for path in [&missing, &file, &empty] {
        let out = hone()
            .args(["check", "--format", "json"])
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(json["error"]["message"].is_string(), "{json}");
        assert_eq!(json["version"], 1);
        assert!(json["diagnostics"].as_array().unwrap().is_empty());
        assert!(
            String::from_utf8_lossy(&out.stderr).is_empty(),
            "{}",
            path.display()
        );
    }
    let out = hone()
        .args(["check", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not a SKILL.md")
    );
}

/// `hone check file.txt` no longer says "All checks passed".
#[test]
fn a_path_that_is_not_a_skill_never_passes() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(tmp.path(), "pdf-tools", CLEAN);
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    let (code, out) = stdout(
        hone()
            .arg("check")
            .arg(tmp.path().join("pdf-tools"))
            .arg(&file),
    );
    assert_eq!(code, 2);
    assert!(!out.contains("All checks passed"), "{out}");
    let (code, out) = stdout(hone().arg("check").arg(&file));
    assert_eq!(code, 2);
    assert!(!out.contains("All checks passed"), "{out}");
}

/// The compatibility matrix: per skill, per client, a verdict and the
/// findings behind it (Claude Code CHANGELOG 2.1.186 for broken YAML).
#[test]
fn json_has_a_compatibility_matrix() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(tmp.path(), "pdf-tools", BROKEN);
    let (_, out) = stdout(hone().args(["check", "--format", "json"]).arg(tmp.path()));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(json["error"].is_null());
    let row = &json["compatibility"][0];
    assert_eq!(row["id"], "pdf-tools");
    assert_eq!(row["targets"]["agentskills"]["verdict"], "refused");
    assert_eq!(
        row["targets"]["claude-code"]["verdict"],
        "loads-with-changes"
    );
    assert_eq!(row["targets"]["copilot"]["findings"][0]["code"], "HS003");
}

/// GitHub Copilot is a target of its own (its docs; Copilot CLI's loader).
#[test]
fn copilot_is_a_target() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(
        tmp.path(),
        "deploy",
        "---\nname: tools:deploy\ndescription: Deploys. Use when asked to deploy.\n---\nBody\n",
    );
    let (code, out) = stdout(
        hone()
            .args(["check", "--target", "copilot"])
            .arg(tmp.path()),
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("HS108"), "{out}");
}

/// A key outside the spec: a warning for the spec (HS306), an error for
/// Anthropic's upload (HS307).
const EXTRA_KEY: &str = "---\nname: pdf-tools\ndescription: Reads PDFs. Use when the user sends a PDF.\nfavourite-colour: blue\n---\n# PDF\n";

#[test]
fn the_library_remembered_target_applies_unless_target_is_given() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    write_skill(&lib, "pdf-tools", EXTRA_KEY);
    // Without settings: the spec's rules, under which the key is a warning.
    let (code, out) = stdout(hone().arg("check").arg(&lib).args(["--format", "json"]));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\"target\": \"agentskills\""), "{out}");

    std::fs::create_dir_all(lib.join("evals")).unwrap();
    std::fs::write(
        lib.join("evals/hone-settings.json"),
        "{\"target\": \"claude-api\"}\n",
    )
    .unwrap();
    let (code, out) = stdout(hone().arg("check").arg(&lib).args(["--format", "json"]));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"target\": \"claude-api\""), "{out}");
    assert!(out.contains("HS307"), "{out}");
    let (code, out) = stdout(
        hone()
            .arg("check")
            .arg(&lib)
            .args(["--target", "agentskills"]),
    );
    assert_eq!(code, 0, "--target wins over the remembered one: {out}");

    // Broken settings are a usage error that says where, not a silent default.
    std::fs::write(lib.join("evals/hone-settings.json"), "{\"target\": 3}").unwrap();
    let output = hone().arg("check").arg(&lib).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("hone-settings.json:1:"), "{err}");

    let help = stdout(hone().args(["check", "--help"])).1;
    assert!(help.contains("else agentskills"), "{help}");
}
