//! What issue 15 ("Keep up with the agents") changes on the shared corpus: per
//! target, how many skills change verdict because of the rules it added or
//! changed, and which rule moved each one. A report, not a timed test.
//!
//! Run with `HONE_CORPUS=/work/shared/corpus cargo test -p hone-core --test
//! fidelity_corpus -- --ignored --nocapture`. Without `HONE_CORPUS` the test
//! fails rather than pass on nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::folder::ResourceDetail;
use hone_core::library::{Filters, Library};
use hone_core::rules::compat::{Verdict, cell};
use hone_core::rules::{Target, check_skill};

/// Rules added by issue 15.
const NEW_RULES: &[&str] = &[
    "HS012", "HS013", "HS014", "HS107", "HS108", "HS207", "HS310", "HS311",
];

/// What a finding of issue 15 replaced, if anything: before it, Claude Code's
/// missing description was HS201 and a `: ` in a plain value HS003 (errors),
/// and `1`/`0` in a boolean field was HS301 (an error) where it is now HS309
/// (a warning).
fn before_issue(d: &Diagnostic, target: Target) -> Option<Diagnostic> {
    let mut old = d.clone();
    match d.code.as_str() {
        "HS207" | "HS014" if target == Target::ClaudeCode => {
            old.code = if d.code == "HS207" { "HS201" } else { "HS003" }.into();
            old.severity = Severity::Error;
            Some(old)
        }
        "HS309" if d.message.contains(": 1` is") || d.message.contains(": 0` is") => {
            old.code = "HS301".into();
            old.severity = Severity::Error;
            Some(old)
        }
        code if NEW_RULES.contains(&code) => None,
        _ => Some(old),
    }
}

fn fails(findings: &[Diagnostic]) -> bool {
    findings.iter().any(|d| d.severity == Severity::Error)
}

#[test]
#[ignore = "needs HONE_CORPUS (the shared corpus); run with --ignored"]
fn issue_15_verdict_changes_on_the_corpus() {
    let root = PathBuf::from(
        std::env::var_os("HONE_CORPUS").expect("set HONE_CORPUS to the shared corpus"),
    );
    assert!(
        root.is_dir(),
        "HONE_CORPUS is not a folder: {}",
        root.display()
    );
    let library = Library::open_with(&[root], &Filters::default(), ResourceDetail::Paths)
        .expect("corpus opens");
    println!("{} skills", library.skills.len());
    for target in Target::CLIENTS {
        // Pass/fail (any error-level finding) and the compatibility verdict,
        // now and as the findings would have been before issue 15.
        let mut flips_check: BTreeMap<String, usize> = BTreeMap::new();
        let mut flips_compat: BTreeMap<String, usize> = BTreeMap::new();
        let (mut check_changed, mut compat_changed) = (0, 0);
        let mut compat_now: BTreeMap<Verdict, usize> = BTreeMap::new();
        for skill in &library.skills {
            let now = check_skill(skill, target);
            let before: Vec<Diagnostic> =
                now.iter().filter_map(|d| before_issue(d, target)).collect();
            let moved_by = || {
                let mut codes: Vec<String> = now
                    .iter()
                    .filter(|d| before_issue(d, target).as_ref() != Some(*d))
                    .map(|d| d.code.clone())
                    .collect();
                codes.sort();
                codes.dedup();
                codes.join("+")
            };
            if fails(&now) != fails(&before) {
                check_changed += 1;
                let direction = if fails(&now) {
                    "pass→fail"
                } else {
                    "fail→pass"
                };
                *flips_check
                    .entry(format!("{direction} {}", moved_by()))
                    .or_default() += 1;
            }
            let (cell_now, cell_before) = (cell(&now, target), cell(&before, target));
            *compat_now.entry(cell_now.verdict).or_default() += 1;
            if cell_now.verdict != cell_before.verdict {
                compat_changed += 1;
                *flips_compat
                    .entry(format!(
                        "{:?}→{:?} {}",
                        cell_before.verdict,
                        cell_now.verdict,
                        moved_by()
                    ))
                    .or_default() += 1;
            }
        }
        let note = if target == Target::Copilot {
            " (a new target: every verdict is new; the counts are against its rules without issue 15's other rules)"
        } else {
            ""
        };
        println!(
            "\n{target}{note}: {check_changed} skills change `hone check` verdict; {compat_changed} change compatibility verdict; now {compat_now:?} (per skill, without the library-wide HS501)"
        );
        for (why, n) in &flips_check {
            println!("  check  {n:>5}  {why}");
        }
        for (why, n) in &flips_compat {
            println!("  compat {n:>5}  {why}");
        }
    }
}
