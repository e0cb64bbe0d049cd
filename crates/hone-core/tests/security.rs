//! The security analysis measured: recall and false-positive rate on the
//! labelled set in `hone-testkit/data/security` (malicious skills, and
//! benign ones that look risky to a naive scanner), and the verdicts on the
//! shared corpus of real skills (`HONE_CORPUS`; ignored without it).

mod common;

use std::path::{Path, PathBuf};

use hone_core::folder::ResourceDetail;
use hone_core::library::{Filters, Library};
use hone_core::security::{self, SkillSecurity, Verdict};

fn labelled(label: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../hone-testkit/data/security")
        .join(label)
}

fn scan(root: &Path) -> Vec<SkillSecurity> {
    let library = Library::open_with(
        &[root.to_path_buf()],
        &Filters::default(),
        ResourceDetail::Paths,
    )
    .expect("the labelled set opens");
    security::scan_library(&library, &[])
}

fn describe(report: &SkillSecurity) -> String {
    let findings: Vec<String> = report
        .findings
        .iter()
        .map(|f| {
            format!(
                "    {} {:?}/{:?} {}: {}",
                f.code, f.threat, f.confidence, f.span.start.line, f.message
            )
        })
        .collect();
    format!(
        "  {} {}\n{}",
        report.verdict,
        report.id,
        findings.join("\n")
    )
}

/// A skill is caught when its verdict is not `safe`; a benign skill is a
/// false positive when its verdict is not `safe` either (so `review`
/// counts against the scanner both ways).
#[test]
fn recall_and_false_positive_rate_on_the_labelled_set() {
    let malicious = scan(&labelled("malicious"));
    let benign = scan(&labelled("benign"));
    assert!(
        malicious.len() >= 60 && benign.len() >= 60,
        "{} / {}",
        malicious.len(),
        benign.len()
    );
    let missed: Vec<&SkillSecurity> = malicious
        .iter()
        .filter(|r| r.verdict == Verdict::Safe)
        .collect();
    let flagged: Vec<&SkillSecurity> = benign
        .iter()
        .filter(|r| r.verdict != Verdict::Safe)
        .collect();
    let dangerous = malicious
        .iter()
        .filter(|r| r.verdict == Verdict::Dangerous)
        .count();
    let benign_dangerous = benign
        .iter()
        .filter(|r| r.verdict == Verdict::Dangerous)
        .count();
    let recall = 1.0 - missed.len() as f64 / malicious.len() as f64;
    let fpr = flagged.len() as f64 / benign.len() as f64;
    eprintln!(
        "labelled set: {} malicious, {} benign; recall {recall:.3} (dangerous {dangerous}, review {}), FPR {fpr:.3} ({} flagged, {benign_dangerous} dangerous)",
        malicious.len(),
        benign.len(),
        malicious.len() - missed.len() - dangerous,
        flagged.len(),
    );
    let missed_text: Vec<String> = missed.iter().map(|r| describe(r)).collect();
    let flagged_text: Vec<String> = flagged.iter().map(|r| describe(r)).collect();
    eprintln!(
        "missed:\n{}\nfalse positives:\n{}",
        missed_text.join("\n"),
        flagged_text.join("\n")
    );
    assert!(recall >= 0.95, "recall {recall:.3}");
    assert!(fpr <= 0.05, "FPR {fpr:.3}");
}

/// Every finding points into its file, and carries evidence.
#[test]
fn findings_carry_positions_and_evidence() {
    for report in scan(&labelled("malicious")) {
        for f in &report.findings {
            let text = std::fs::read_to_string(&f.path).expect("the finding's file");
            assert!(f.span.end.offset <= text.len(), "{f:?}");
            assert!(f.span.start.line >= 1 && f.span.start.column >= 1);
            assert!(
                !f.evidence.is_empty() || f.span.start.offset == f.span.end.offset,
                "{f:?}"
            );
            assert!(f.content_hash.starts_with("sha256:"));
        }
    }
}

#[test]
#[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
fn verdicts_on_the_corpus() {
    let root = common::corpus();
    let reports = scan(&root);
    assert_eq!(reports.len(), 1821);
    let count = |v: Verdict| reports.iter().filter(|r| r.verdict == v).count();
    eprintln!(
        "corpus: {} safe, {} review, {} dangerous",
        count(Verdict::Safe),
        count(Verdict::Review),
        count(Verdict::Dangerous)
    );
    for report in reports.iter().filter(|r| r.verdict != Verdict::Safe) {
        eprintln!("{}\n    at {}", describe(report), report.path.display());
    }
    // Real public skills are mostly benign: flagging more than one in twenty
    // would bury the few that matter (55 of 1,821 when this was written,
    // most of them penetration-testing skills quoting real attacks).
    let flagged = reports.len() - count(Verdict::Safe);
    assert!(flagged * 20 <= reports.len(), "{flagged} flagged");
}
