//! `hone search` and `hone eval` end to end: formats, gates, comparisons and
//! exit codes on the bundled library and on suites made on the spot.

use std::path::Path;

mod common;

use assert_cmd::Command;
use common::{run, skills};
use serde_json::Value;

fn hone() -> Command {
    let mut cmd = Command::cargo_bin("hone").unwrap();
    cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    cmd
}

#[test]
fn search_selects_and_explains() {
    let (code, out, _) = run(hone()
        .arg("search")
        .arg(skills())
        .arg("write a commit message for my staged changes")
        .arg("--explain"));
    assert_eq!(code, 0);
    assert!(out.starts_with("selected git-commit-messages"), "{out}");
    assert!(out.contains("description:"), "{out}");

    let (code, out, _) = run(hone()
        .arg("search")
        .arg(skills())
        .arg("write a commit message for my staged changes")
        .args(["--format", "json", "--top", "3", "--explain"])
        .args(["--ranker", "bm25"]));
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["selected"], "git-commit-messages");
    assert_eq!(json["ranker"], "bm25");
    assert!(json["matches"].as_array().unwrap().len() <= 3);
    let top = &json["matches"][0];
    assert!(top["confidence"].as_f64().unwrap() <= 1.0);
    assert_eq!(top["explanation"]["kind"], "keyword");
    assert!(top["explanation"]["terms"][0]["highlights"].is_array());
}

#[test]
fn search_accepts_any_text_and_rejects_bad_options() {
    for query in ["", "\"AND (title:", "部署 🚀 \u{7}"] {
        let (code, out, _) = run(hone()
            .arg("search")
            .arg(skills())
            .arg(query)
            .args(["--format", "json"]));
        assert_eq!(code, 0, "{query:?}");
        assert_eq!(
            serde_json::from_str::<Value>(&out).unwrap()["selected"],
            Value::Null
        );
    }
    let (code, _, err) = run(hone()
        .arg("search")
        .arg(skills())
        .arg("x")
        .args(["--threshold", "1.5"]));
    assert_eq!(code, 2);
    assert!(err.contains("between 0 and 1"), "{err}");
    let (code, _, err) = run(hone()
        .arg("search")
        .arg(skills())
        .arg("x")
        .args(["--ranker", "magic"]));
    assert_eq!(code, 2);
    assert!(err.contains("unknown ranker"), "{err}");
    let (code, _, err) = run(hone()
        .arg("search")
        .arg(skills())
        .arg("x".repeat(100 * 1024)));
    assert_eq!(code, 2);
    assert!(err.contains("at most"), "{err}");
}

#[test]
fn eval_reports_gates_and_compares() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = skills().join("evals/routing.yaml");
    let (code, out, _) = run(hone()
        .arg("eval")
        .arg(skills())
        .arg(&suite)
        .args(["--format", "json"]));
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&out).unwrap();
    for key in [
        "suite",
        "library",
        "ranker",
        "threshold",
        "metrics",
        "cases",
    ] {
        assert!(report.get(key).is_some(), "{key}");
    }
    assert!(report["metrics"]["by_kind"]["paraphrase"]["p_at_1"].is_number());
    let old = tmp.path().join("old.json");
    std::fs::write(&old, &out).unwrap();

    let (code, out, _) = run(hone()
        .arg("eval")
        .arg(skills())
        .arg(&suite)
        .args([
            "--min",
            "p_at_1=0.5",
            "--max",
            "false_positive_rate=0.5",
            "--compare",
        ])
        .arg(&old));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("p@1")
            && out.contains("Compared with the earlier run")
            && out.contains("0 regressed"),
        "{out}"
    );

    let (code, out, _) = run(hone().arg("eval").arg(skills()).arg(&suite).args([
        "--min",
        "p_at_1=0.99",
        "--threshold",
        "0.9",
    ]));
    assert_eq!(code, 1);
    assert!(out.contains("FAIL p_at_1"), "{out}");
    assert!(out.contains("Failing cases"), "{out}");

    let (code, out, _) = run(hone()
        .arg("eval")
        .arg(skills())
        .arg(skills().join("evals/trigger-evals"))
        .args(["--format", "json", "--max", "latency_ms_p99=10000"]));
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["gates"][0]["passed"], true);
}

/// With `--builtins`, a client's own skills compete: a request one of them
/// takes is reported as such, in search and in eval.
#[test]
fn builtins_compete_in_search_and_eval() {
    let query = "do a security review of the pending changes on my branch";
    let (code, out, _) = run(hone().arg("search").arg(skills()).arg(query).args([
        "--ranker",
        "bm25",
        "--builtins",
        "claude-code",
    ]));
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Claude Code's built-in security-review would take the request"),
        "{out}"
    );
    assert!(out.contains("built-in of Claude Code"), "{out}");
    let (_, out, _) = run(hone().arg("search").arg(skills()).arg(query).args([
        "--ranker",
        "bm25",
        "--builtins",
        "claude-code",
        "--format",
        "json",
    ]));
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["matches"][0]["id"], "security-review");
    assert_eq!(json["matches"][0]["builtin_of"], "claude-code");
    assert!(json["matches"][1].get("builtin_of").is_none());

    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite.yaml");
    std::fs::write(
        &suite,
        format!("name: s\ncases:\n  - query: {query}\n    expect: [code-review-checklist]\n"),
    )
    .unwrap();
    let (code, out, _) = run(hone().arg("eval").arg(skills()).arg(&suite).args([
        "--ranker",
        "bm25",
        "--builtins",
        "claude-code",
    ]));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "Claude Code's built-in `security-review` ranks first: the agent would take it"
        ),
        "{out}"
    );
    assert!(
        out.contains("1 of 1 requests would go to the client's built-in skills"),
        "{out}"
    );
    // Without the flag the library competes alone.
    let (_, out, _) = run(hone()
        .arg("eval")
        .arg(skills())
        .arg(&suite)
        .args(["--ranker", "bm25"]));
    assert!(!out.contains("built-in"), "{out}");

    let (code, _, err) = run(hone().arg("search").arg(skills()).arg(query).args([
        "--view",
        "retrieval",
        "--builtins",
        "claude-code",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("listing view only"), "{err}");
}

/// Without a suite, `hone eval` runs the library's own, found as the app
/// finds them: `evals/` and its sub-folders.
#[test]
fn eval_defaults_to_the_librarys_suites() {
    let (code, out, _) = run(hone().arg("eval").arg(skills()).args(["--format", "json"]));
    assert_eq!(code, 0, "{out}");
    let default: Value = serde_json::from_str(&out).unwrap();
    let (code, out, _) = run(hone()
        .arg("eval")
        .arg(skills())
        .arg(skills().join("evals"))
        .arg(skills().join("evals/trigger-evals"))
        .args(["--format", "json"]));
    assert_eq!(code, 0, "{out}");
    let explicit: Value = serde_json::from_str(&out).unwrap();
    let cases = |report: &Value| -> Vec<(String, String)> {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["suite"].to_string(), c["query"].to_string()))
            .collect()
    };
    assert!(!cases(&default).is_empty());
    assert_eq!(cases(&default), cases(&explicit));

    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = run(hone().arg("eval").arg(empty.path()));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds none in `evals/`"), "{err}");
}

#[test]
fn eval_rejects_bad_suites_with_positions_and_names() {
    let tmp = tempfile::tempdir().unwrap();
    let broken = tmp.path().join("broken.yaml");
    std::fs::write(&broken, "cases:\n  - query: \"unclosed\n").unwrap();
    let (code, _, err) = run(hone().arg("eval").arg(skills()).arg(&broken));
    assert_eq!(code, 2);
    assert!(
        err.contains("broken.yaml:") && err.contains("invalid YAML"),
        "{err}"
    );

    let unknown = tmp.path().join("unknown.yaml");
    std::fs::write(
        &unknown,
        "cases:\n  - query: q\n    expect: [nope, regex-authoring]\n",
    )
    .unwrap();
    let (code, _, err) = run(hone().arg("eval").arg(skills()).arg(&unknown));
    assert_eq!(code, 2);
    assert!(
        err.contains("`nope`") && !err.contains("`regex-authoring`"),
        "{err}"
    );

    let (code, _, err) = run(hone()
        .arg("eval")
        .arg(skills())
        .arg(skills().join("evals/routing.yaml"))
        .args(["--min", "p1=0.5"]));
    assert_eq!(code, 2);
    assert!(err.contains("not a metric"), "{err}");
}

#[test]
fn search_why_contrasts_two_skills() {
    let request = "squash my last three commits into one";
    let (code, out, _) = run(hone().arg("search").arg(skills()).arg(request).args([
        "--ranker",
        "bm25",
        "--why",
        "git-commit-messages",
    ]));
    assert_eq!(code, 0);
    assert!(
        out.contains("`git-commit-messages` trails `git-history-cleanup`"),
        "{out}"
    );
    assert!(out.contains("in neither: last, three"), "{out}");

    let (code, out, _) = run(hone()
        .arg("search")
        .arg(skills())
        .arg(request)
        .args(["--ranker", "bm25", "--format", "json"])
        .args([
            "--why",
            "git-history-cleanup",
            "--against",
            "git-commit-messages",
        ]));
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["expected"]["id"], "git-history-cleanup");
    assert_eq!(json["expected"]["rank"], 1);
    assert_eq!(json["other"]["id"], "git-commit-messages");
    assert!(
        json["margin"].as_f64().unwrap() < 0.0,
        "the expected skill leads"
    );
    assert_eq!(json["neither"], serde_json::json!(["last", "three"]));
    // snake_case like every key of hone's JSON (it was `strongestPart`).
    let field = &json["expected"]["fields"][0];
    assert!(field.get("strongest_part").is_some(), "{field}");

    let (code, _, err) = run(hone().arg("search").arg(skills()).arg(request).args([
        "--ranker",
        "bm25",
        "--why",
        "no-such-skill",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no skill `no-such-skill`"), "{err}");
}

/// `--calibrate` stores the threshold beside the suites, and later runs use it.
#[test]
fn eval_calibrates_and_later_runs_use_the_stored_threshold() {
    let tmp = tempfile::tempdir().unwrap();
    let library = tmp.path().join("lib");
    copy_dir(&skills(), &library);
    let suite = library.join("evals/routing.yaml");
    let (code, out, err) = run(hone().arg("eval").arg(&library).arg(&suite).args([
        "--ranker",
        "bm25",
        "--calibrate",
        "--format",
        "json",
    ]));
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let fitted = json["after"]["threshold"].as_f64().unwrap();
    assert_eq!(json["before"]["threshold"].as_f64().unwrap(), 0.5);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(library.join("evals/hone-settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        settings["thresholds"]["bm25"]["threshold"]
            .as_f64()
            .unwrap(),
        fitted
    );

    // The settings file is not a suite, and the stored threshold is used.
    let (code, out, err) = run(hone()
        .arg("eval")
        .arg(&library)
        .arg(library.join("evals"))
        .args(["--ranker", "bm25", "--format", "json"]));
    assert!(code == 0 || code == 1, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert!((json["threshold"].as_f64().unwrap() - fitted).abs() < 1e-6);
    // The retrieval view selects on the listing's confidence: the stored
    // threshold is its too.
    let (_, out, err) = run(hone()
        .arg("search")
        .arg(&library)
        .arg("write a commit message")
        .args([
            "--ranker",
            "bm25",
            "--view",
            "retrieval",
            "--format",
            "json",
        ]));
    let json: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert!((json["threshold"].as_f64().unwrap() - fitted).abs() < 1e-6);
    // An explicit threshold still wins.
    let (_, out, _) = run(hone()
        .arg("search")
        .arg(&library)
        .arg("write a commit message")
        .args(["--ranker", "bm25", "--format", "json", "--threshold", "0.9"]));
    let json: Value = serde_json::from_str(&out).unwrap();
    assert!((json["threshold"].as_f64().unwrap() - 0.9).abs() < 1e-6);
}

#[test]
fn eval_suggests_measured_edits() {
    let (code, out, err) = run(hone()
        .arg("eval")
        .arg(skills())
        .arg(skills().join("evals/routing.yaml"))
        .args(["--ranker", "bm25", "--format", "json"])
        .args(["--suggest", "writing-skill-descriptions"]));
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["skill"], "writing-skill-descriptions");
    let candidates = json["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty());
    let deltas: Vec<f64> = candidates
        .iter()
        .map(|c| c["held_out_delta"].as_f64().unwrap())
        .collect();
    assert!(
        deltas.windows(2).all(|w| w[0] >= w[1]),
        "ranked by held-out delta: {deltas:?}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
