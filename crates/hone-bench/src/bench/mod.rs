//! Task evals: does a skill make the agent do the task better, by how much,
//! and at what cost?
//!
//! A task suite ([`suite`]) holds cases: a prompt, the files the workspace
//! starts with, and graders ([`grade`]). The runner ([`run`]) puts every
//! case to the real agent CLI in each arm (with the skill, without it, an
//! earlier version, another skill), k times, and reads what the agent did
//! from its own transcript ([`transcript`]). The report ([`summarize`])
//! gives each arm's pass rate with its interval, the lift over the arm
//! without the skill with a bootstrap interval and a verdict ([`stats`]),
//! and the cost.
//!
//! Why runs where the skill never loaded are set apart: such a run measured
//! the agent without the skill while labelled "with". Counting it as the
//! skill failing is the commonest way task evals mislead (a description
//! that does not trigger looks like instructions that do not help), so
//! those runs are reported as "measured nothing" and left out of the lift;
//! trigger evals are the tool for that problem.

pub mod api;
pub mod batch;
pub mod edit;
pub mod grade;
pub mod import;
pub mod judge;
pub mod run;
pub mod stats;
pub mod suite;
pub mod transcript;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use run::{Agent, ArmSpec, BenchOptions, CostPreview, Outcome, Progress, RunResult};
pub use suite::{TaskCase, TaskSuite, TaskSuiteError};

use stats::{Interval, Lift};

/// One arm over every case.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ArmSummary {
    pub label: String,
    pub runs: usize,
    pub passed: usize,
    /// Runs that measured the skill (not "not loaded", not errors).
    pub measured: usize,
    pub not_loaded: usize,
    /// Runs no grader applied to.
    pub ungraded: usize,
    pub errors: usize,
    pub pass_rate: Option<f64>,
    pub interval: Interval,
    /// Mean over cases of pass@k and pass^k, k the runs per case.
    pub pass_at_k: Option<f64>,
    pub pass_hat_k: Option<f64>,
    pub k: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub mean_seconds: f64,
    pub cost_usd: f64,
}

/// One case in one arm.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CaseArm {
    pub arm: String,
    pub passed: usize,
    pub measured: usize,
    pub not_loaded: usize,
    pub errors: usize,
}

/// One case over every arm, with what makes its figures weak.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CaseSummary {
    pub name: String,
    pub arms: Vec<CaseArm>,
    /// Graders that passed in some runs of an arm and failed in others.
    pub flaky: Vec<String>,
    /// Graders that passed in every run of every arm: they cannot tell the
    /// arms apart.
    pub never_discriminating: Vec<String>,
}

/// A whole benchmark.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct BenchReport {
    pub suite: String,
    pub skill: String,
    pub agent: String,
    pub agent_version: String,
    pub model: Option<String>,
    pub scripted: bool,
    pub arms: Vec<ArmSummary>,
    /// The first arm with the skill over the arm without it.
    pub lift: Option<Lift>,
    /// Lift per dollar spent on a run of the arm with the skill.
    pub lift_per_dollar: Option<f64>,
    pub cases: Vec<CaseSummary>,
    pub runs: Vec<RunResult>,
    /// Why the benchmark stopped before every run was made.
    pub stopped: Option<String>,
    pub notes: Vec<String>,
}

/// What the report is about, beside the runs.
pub struct ReportHeader {
    pub suite: String,
    pub skill: String,
    pub agent: String,
    pub agent_version: String,
    pub model: Option<String>,
    pub scripted: bool,
    pub notes: Vec<String>,
}

/// The kept report of the suite at `suite` (inside `library`): one per
/// suite, named after the suite's path in the library so two suites with
/// the same name do not share it.
pub fn kept_path(library: &Path, suite: &Path) -> PathBuf {
    let relative = suite.strip_prefix(library).unwrap_or(suite);
    let name: String = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("__")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    library
        .join(crate::eval::suite::KEPT_DIR)
        .join(format!("{name}.json"))
}

/// Keeps `report` as the one later runs of the suite at `suite` are compared
/// with, replacing the last kept (written whole or not at all).
pub fn keep(library: &Path, suite: &Path, report: &BenchReport) -> std::io::Result<PathBuf> {
    let path = kept_path(library, suite);
    crate::workspace::write_json_atomic(&path, report)?;
    Ok(path)
}

/// The report kept for the suite at `suite`, if any.
pub fn kept(library: &Path, suite: &Path) -> Result<Option<BenchReport>, String> {
    let path = kept_path(library, suite);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Seed of the lift's bootstrap: the same runs give the same interval.
const BOOTSTRAP_SEED: u64 = 0x686f6e65;

/// The report of a benchmark from its runs, arms in the order given.
pub fn summarize(
    header: ReportHeader,
    arm_labels: &[(String, bool)],
    case_names: &[String],
    runs: Vec<RunResult>,
    stopped: Option<String>,
) -> BenchReport {
    let measured = |r: &&RunResult| matches!(r.outcome, Outcome::Passed | Outcome::Failed);
    let arms: Vec<ArmSummary> = arm_labels
        .iter()
        .map(|(label, _)| {
            let all: Vec<&RunResult> = runs.iter().filter(|r| &r.arm == label).collect();
            let counted: Vec<&RunResult> = all.iter().copied().filter(measured).collect();
            let passed = counted
                .iter()
                .filter(|r| r.outcome == Outcome::Passed)
                .count();
            let (mut at_k, mut hat_k, mut k_min) = (Vec::new(), Vec::new(), usize::MAX);
            for case in case_names {
                let n = counted.iter().filter(|r| &r.case == case).count();
                let c = counted
                    .iter()
                    .filter(|r| &r.case == case && r.outcome == Outcome::Passed)
                    .count();
                if n > 0 {
                    k_min = k_min.min(n);
                    at_k.push((n, c));
                    hat_k.push((n, c));
                }
            }
            let k = if k_min == usize::MAX { 0 } else { k_min };
            let mean = |values: Vec<f64>| {
                (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
            };
            ArmSummary {
                label: label.clone(),
                runs: all.len(),
                passed,
                measured: counted.len(),
                not_loaded: all
                    .iter()
                    .filter(|r| r.outcome == Outcome::NotLoaded)
                    .count(),
                ungraded: all
                    .iter()
                    .filter(|r| r.outcome == Outcome::Ungraded)
                    .count(),
                errors: all.iter().filter(|r| r.outcome == Outcome::Error).count(),
                pass_rate: (!counted.is_empty()).then(|| passed as f64 / counted.len() as f64),
                interval: stats::wilson(passed, counted.len()),
                pass_at_k: mean(
                    at_k.iter()
                        .map(|&(n, c)| stats::pass_at_k(n, c, k))
                        .collect(),
                ),
                pass_hat_k: mean(
                    hat_k
                        .iter()
                        .map(|&(n, c)| stats::pass_hat_k(n, c, k))
                        .collect(),
                ),
                k,
                input_tokens: all
                    .iter()
                    .map(|r| {
                        let u = &r.transcript.usage;
                        u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
                    })
                    .sum(),
                output_tokens: all.iter().map(|r| r.transcript.usage.output_tokens).sum(),
                mean_seconds: if all.is_empty() {
                    0.0
                } else {
                    all.iter().map(|r| r.seconds).sum::<f64>() / all.len() as f64
                },
                cost_usd: all.iter().map(|r| r.cost_usd).sum(),
            }
        })
        .collect();
    let with = arm_labels.iter().find(|(_, with)| *with).map(|(l, _)| l);
    let without = arm_labels
        .iter()
        .find(|(l, _)| l == "without")
        .map(|(l, _)| l);
    let lift = with.zip(without).and_then(|(with, without)| {
        let paired: Vec<stats::Paired> = case_names
            .iter()
            .map(|case| {
                let outcomes = |arm: &str| -> Vec<bool> {
                    runs.iter()
                        .filter(|r| r.arm == arm && &r.case == case)
                        .filter(measured)
                        .map(|r| r.outcome == Outcome::Passed)
                        .collect()
                };
                (outcomes(with), outcomes(without))
            })
            .collect();
        stats::lift(&paired, BOOTSTRAP_SEED)
    });
    let lift_per_dollar = lift.and_then(|lift| {
        let arm = arms.iter().find(|a| Some(&a.label) == with)?;
        let per_run = arm.cost_usd / arm.runs.max(1) as f64;
        (per_run > 0.0).then(|| lift.mean / per_run)
    });
    let cases = case_names
        .iter()
        .map(|case| summarize_case(case, arm_labels, &runs))
        .collect();
    BenchReport {
        suite: header.suite,
        skill: header.skill,
        agent: header.agent,
        agent_version: header.agent_version,
        model: header.model,
        scripted: header.scripted,
        arms,
        lift,
        lift_per_dollar,
        cases,
        runs,
        stopped,
        notes: header.notes,
    }
}

fn summarize_case(case: &str, arm_labels: &[(String, bool)], runs: &[RunResult]) -> CaseSummary {
    let of_case: Vec<&RunResult> = runs.iter().filter(|r| r.case == case).collect();
    let arms = arm_labels
        .iter()
        .map(|(arm, _)| {
            let mine: Vec<&&RunResult> = of_case.iter().filter(|r| &r.arm == arm).collect();
            CaseArm {
                arm: arm.clone(),
                passed: mine.iter().filter(|r| r.outcome == Outcome::Passed).count(),
                measured: mine
                    .iter()
                    .filter(|r| matches!(r.outcome, Outcome::Passed | Outcome::Failed))
                    .count(),
                not_loaded: mine
                    .iter()
                    .filter(|r| r.outcome == Outcome::NotLoaded)
                    .count(),
                errors: mine.iter().filter(|r| r.outcome == Outcome::Error).count(),
            }
        })
        .collect();
    // grader → arm → the verdicts it gave.
    let mut verdicts: BTreeMap<&str, BTreeMap<&str, Vec<bool>>> = BTreeMap::new();
    let measured = of_case
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Passed | Outcome::Failed));
    for run in measured {
        for graded in &run.graded {
            if let Some(passed) = graded.passed {
                verdicts
                    .entry(&graded.name)
                    .or_default()
                    .entry(&run.arm)
                    .or_default()
                    .push(passed);
            }
        }
    }
    let flaky = verdicts
        .iter()
        .filter(|(_, arms)| {
            arms.values()
                .any(|v| v.iter().any(|p| *p) && v.iter().any(|p| !*p))
        })
        .map(|(name, _)| name.to_string())
        .collect();
    let never_discriminating = verdicts
        .iter()
        .filter(|(_, arms)| arms.len() > 1 && arms.values().all(|v| v.iter().all(|p| *p)))
        .map(|(name, _)| name.to_string())
        .collect();
    CaseSummary {
        name: case.to_string(),
        arms,
        flaky,
        never_discriminating,
    }
}

#[cfg(test)]
mod tests {
    use super::grade::Graded;
    use super::transcript::Transcript;
    use super::*;

    fn run(case: &str, arm: &str, outcome: Outcome, grader_passes: bool) -> RunResult {
        RunResult {
            case: case.into(),
            arm: arm.into(),
            run: 0,
            outcome,
            graded: vec![Graded {
                name: "g".into(),
                kind: "regex".into(),
                passed: Some(grader_passes),
                evidence: String::new(),
            }],
            transcript: Transcript::default(),
            files: Vec::new(),
            seconds: 1.0,
            cost_usd: 0.5,
            status: String::new(),
            cached: false,
        }
    }

    #[test]
    fn a_kept_report_reads_back_under_the_suites_path() {
        let library = tempfile::tempdir().unwrap();
        let suite = library.path().join("greet/evals/tasks/greet.yaml");
        assert_eq!(kept(library.path(), &suite).unwrap().map(|r| r.suite), None);
        let header = ReportHeader {
            suite: "greet".into(),
            skill: "greet".into(),
            agent: "claude-code".into(),
            agent_version: "1".into(),
            model: None,
            scripted: true,
            notes: Vec::new(),
        };
        let runs = vec![run("a", "with", Outcome::Passed, true)];
        let report = summarize(header, &[("with".into(), true)], &["a".into()], runs, None);
        let path = keep(library.path(), &suite, &report).unwrap();
        assert!(path.ends_with("evals/bench-runs/greet__evals__tasks__greet.json"));
        let back = kept(library.path(), &suite).unwrap().unwrap();
        assert_eq!(back.runs, report.runs);
        assert_eq!(back.arms[0].pass_rate, Some(1.0));
    }

    #[test]
    fn runs_where_the_skill_did_not_load_measure_nothing() {
        use Outcome::*;
        let runs = vec![
            run("a", "with", Passed, true),
            run("a", "with", Passed, true),
            run("a", "with", NotLoaded, false),
            run("a", "without", Failed, false),
            run("a", "without", Failed, false),
            run("a", "without", Passed, true),
        ];
        let header = ReportHeader {
            suite: "s".into(),
            skill: "k".into(),
            agent: "claude-code".into(),
            agent_version: "1".into(),
            model: None,
            scripted: true,
            notes: Vec::new(),
        };
        let report = summarize(
            header,
            &[("with".into(), true), ("without".into(), false)],
            &["a".into()],
            runs,
            None,
        );
        let with = &report.arms[0];
        assert_eq!(
            (with.runs, with.measured, with.not_loaded, with.passed),
            (3, 2, 1, 2)
        );
        assert_eq!(with.pass_rate, Some(1.0));
        let lift = report.lift.unwrap();
        assert!((lift.mean - (1.0 - 1.0 / 3.0)).abs() < 1e-9, "{lift:?}");
        assert_eq!(report.cases[0].flaky, ["g"]);
        assert!(report.cases[0].never_discriminating.is_empty());
        // 0.667 lift for $0.50 a run.
        assert!((report.lift_per_dollar.unwrap() - 4.0 / 3.0).abs() < 1e-9);
    }
}
