//! Eval reports: per-case outcomes, metrics, comparisons of two runs and
//! gates on metrics.
//!
//! ## Metrics
//!
//! A case is *positive* when it expects at least one skill, *negative* when
//! it expects none (`expect: []`); a case with only `reject` is neither. A
//! match is *selected* when its confidence is at least the threshold.
//!
//! | metric | over | definition |
//! |---|---|---|
//! | `p_at_1` | positives | the top match is expected |
//! | `p_at_3` | positives | expected skills among the top 3, divided by 3 |
//! | `recall_at_3` | positives | expected skills among the top 3, divided by the number expected |
//! | `hit_at_3`, `hit_at_5` | positives | an expected skill is in the top 3 (5) |
//! | `mrr` | positives | mean of 1 / rank of the first expected skill in the top 10 (0 when absent) |
//! | `accuracy` | positives and negatives | the routing decision is right: for a positive, the top match is expected *and* selected; for a negative, nothing is selected |
//! | `false_positive_rate` | negatives and cases with `reject` | something is selected for a negative, or a rejected skill is selected |
//! | `latency_ms_p50`, `latency_ms_p99` | all cases | time of one ranking (nearest-rank percentiles) |
//!
//! A metric with no case to average over is `null`. `by_kind` holds the same
//! metrics for the cases of each tag.
//!
//! ## JSON shape (stable)
//!
//! ```json
//! {"suite": "routing", "library": "skills", "ranker": "bm25", "threshold": 0.3,
//!  "metrics": {"cases": 100, "positive_cases": 80, "negative_cases": 20,
//!              "p_at_1": 0.8, "p_at_3": 0.3, "recall_at_3": 0.9, "hit_at_3": 0.9,
//!              "hit_at_5": 0.95, "mrr": 0.85, "accuracy": 0.8, "false_positive_rate": 0.05,
//!              "latency_ms_p50": 0.1, "latency_ms_p99": 0.4,
//!              "by_kind": {"direct": {"cases": 40, "...": "same keys, no by_kind"}}},
//!  "cases": [{"suite": "routing", "line": 7, "query": "...", "kinds": ["direct"],
//!             "expect": ["deploy"], "reject": [], "first_expected_rank": 1,
//!             "top": [{"id": "deploy", "score": 7.1, "confidence": 0.62}],
//!             "selected": ["deploy"], "passed": true, "failure": null, "latency_ms": 0.12}]}
//! ```
//!
//! `expect` is `null` for a reject-only case; `top` holds at most 3 matches.
//!
//! ## Confusion
//!
//! `confusion` counts, over the positive and negative cases, which skill was
//! picked for which expected one: `{"expected": "deploy", "picked": "release",
//! "count": 3}`. The expected skill is a case's first `expect` entry, or
//! `(none)` for a negative; the pick is the selected top match, `(none)` when
//! nothing is selected, `(error)` when the ranker failed, `NAME (built-in)`
//! when a client's own skill ranks first (runs with a client's built-ins,
//! `hone eval --client`). The diagonal
//! (`expected == picked`) holds the right picks, so the table draws as a
//! heatmap; every other cell is a failure and names the skill picked instead.
//! [`agreement`] compares the top picks of two runs over the same suites.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::suite::Case;
use crate::clients::Client;
use crate::rank::{Match, RankError, RankerKind, builtin_client};

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Report {
    pub suite: String,
    pub library: String,
    pub ranker: RankerKind,
    pub threshold: f32,
    pub metrics: Metrics,
    pub cases: Vec<CaseReport>,
    /// Expected skill → picked skill, with counts (see the module docs).
    #[serde(default)]
    pub confusion: Vec<ConfusionCell>,
}

impl Report {
    /// The report of `cases`, with its metrics and confusion table.
    pub fn new(
        suite: String,
        library: String,
        ranker: RankerKind,
        threshold: f32,
        cases: Vec<CaseReport>,
    ) -> Report {
        Report {
            suite,
            library,
            ranker,
            threshold,
            metrics: Metrics::of(&cases),
            confusion: confusion(&cases),
            cases,
        }
    }
}

/// The name a confusion cell uses for "no skill".
pub const NO_SKILL: &str = "(none)";
/// The name a confusion cell uses for a case the ranker failed on.
pub const RANKER_ERROR: &str = "(error)";

/// How many cases expecting `expected` picked `picked`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConfusionCell {
    pub expected: String,
    pub picked: String,
    pub count: usize,
}

/// The confusion table of `cases`, sorted by expected then picked skill.
pub fn confusion(cases: &[CaseReport]) -> Vec<ConfusionCell> {
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for case in cases {
        let expected = match case.expect.as_deref() {
            None => continue,
            Some([]) => NO_SKILL.to_owned(),
            Some([first, ..]) => first.clone(),
        };
        *counts.entry((expected, case.pick())).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|((expected, picked), count)| ConfusionCell {
            expected,
            picked,
            count,
        })
        .collect()
}

/// How often two runs over the same cases made the same top pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Agreement {
    /// The ranker compared with.
    pub ranker: RankerKind,
    /// Cases found in both runs (matched by suite, line and request).
    pub cases: usize,
    /// Cases where both picked the same skill, or both picked none.
    pub agreed: usize,
    /// `agreed / cases`; `None` without a common case.
    pub share: Option<f64>,
}

/// The agreement of `other`'s top picks with `base`'s.
pub fn agreement(base: &Report, other: &Report) -> Agreement {
    let picks: HashMap<(&str, u32, &str), String> = other
        .cases
        .iter()
        .map(|c| ((c.suite.as_str(), c.line, c.query.as_str()), c.pick()))
        .collect();
    let (mut cases, mut agreed) = (0, 0);
    for case in &base.cases {
        if let Some(pick) = picks.get(&(case.suite.as_str(), case.line, case.query.as_str())) {
            cases += 1;
            agreed += usize::from(*pick == case.pick());
        }
    }
    Agreement {
        ranker: other.ranker,
        cases,
        agreed,
        share: (cases > 0).then(|| agreed as f64 / cases as f64),
    }
}

/// The failure of a positive case with no match at all.
const NO_MATCH: &str = "no skill matched";

/// A match as the report keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RankedSkill {
    pub id: String,
    pub score: f32,
    pub confidence: f32,
    /// The client whose built-in skill this is, when it is not the library's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin_of: Option<Client>,
}

/// The outcome of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CaseReport {
    pub suite: String,
    /// Line of the case in its suite file.
    pub line: u32,
    pub query: String,
    pub kinds: Vec<String>,
    pub expect: Option<Vec<String>>,
    pub reject: Vec<String>,
    /// 1-based rank of the first expected skill in the top 10.
    pub first_expected_rank: Option<usize>,
    /// The top 3 matches.
    pub top: Vec<RankedSkill>,
    /// Matches at or above the threshold, best first.
    pub selected: Vec<String>,
    pub passed: bool,
    /// Why the case failed, in one sentence.
    pub failure: Option<String>,
    /// The built-in skill the client would pick for this request instead of
    /// the library's: the top match, when it is one of the client's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken_by_builtin: Option<String>,
    pub latency_ms: f64,
    /// The full ranking, kept in memory for the metrics only.
    #[serde(skip)]
    ranked: Vec<String>,
}

impl CaseReport {
    pub fn new(
        suite: &str,
        case: &Case,
        ranked: Result<Vec<Match>, RankError>,
        threshold: f32,
        latency_ms: f64,
    ) -> CaseReport {
        let (matches, error) = match ranked {
            Ok(matches) => (matches, None),
            Err(err) => (Vec::new(), Some(err.to_string())),
        };
        let expected = |m: &Match| {
            builtin_client(&m.key).is_none() && case.expect.iter().flatten().any(|e| *e == m.id)
        };
        let first_expected_rank = matches.iter().position(expected).map(|i| i + 1);
        // A built-in is never the library's pick: it is reported apart.
        let selected: Vec<String> = matches
            .iter()
            .filter(|m| m.confidence >= threshold && builtin_client(&m.key).is_none())
            .map(|m| m.id.clone())
            .collect();
        let top_match = matches.first();
        let top_builtin = top_match.and_then(|m| Some((builtin_client(&m.key)?, m)));
        let taken_by_builtin = top_builtin
            .filter(|(_, m)| m.confidence >= threshold)
            .map(|(_, m)| m.id.clone());
        let rejected: Vec<&String> = selected
            .iter()
            .filter(|id| case.reject.contains(id))
            .collect();
        let failure = if let Some(error) = error {
            Some(error)
        } else if !rejected.is_empty() {
            let names: Vec<_> = rejected.iter().map(|id| format!("`{id}`")).collect();
            Some(format!("rejected skill {} was selected", names.join(", ")))
        } else if case.is_negative() {
            (!selected.is_empty())
                .then(|| format!("nothing should be selected, but `{}` was", selected[0]))
        } else if case.is_positive() {
            match top_match {
                None => Some(NO_MATCH.to_owned()),
                Some(m) if top_builtin.is_some() => Some(format!(
                    "{}'s built-in `{}` ranks first{} (first expected at rank {})",
                    top_builtin.map_or("", |(c, _)| c.display_name()),
                    m.id,
                    if taken_by_builtin.is_some() {
                        ": the agent would take it"
                    } else {
                        ", below the threshold"
                    },
                    first_expected_rank.map_or("> 10".to_owned(), |r| r.to_string())
                )),
                Some(m) if !expected(m) => Some(format!(
                    "top match `{}` is not expected (first expected at rank {})",
                    m.id,
                    first_expected_rank.map_or("> 10".to_owned(), |r| r.to_string())
                )),
                Some(m) if m.confidence < threshold => Some(format!(
                    "top match `{}` is expected but below the threshold ({:.2} < {threshold:.2})",
                    m.id, m.confidence
                )),
                Some(_) => None,
            }
        } else {
            None
        };
        CaseReport {
            suite: suite.to_owned(),
            line: case.line,
            query: case.query.clone(),
            kinds: case.kinds.clone(),
            expect: case.expect.clone(),
            reject: case.reject.clone(),
            first_expected_rank,
            top: matches
                .iter()
                .take(3)
                .map(|m| RankedSkill {
                    id: m.id.clone(),
                    score: m.score,
                    confidence: m.confidence,
                    builtin_of: builtin_client(&m.key),
                })
                .collect(),
            selected,
            passed: failure.is_none(),
            failure,
            taken_by_builtin,
            latency_ms,
            ranked: matches.into_iter().map(|m| m.id).collect(),
        }
    }

    fn is_positive(&self) -> bool {
        self.expect.as_ref().is_some_and(|e| !e.is_empty())
    }

    /// The case's pick as the confusion table names it: the selected top
    /// match, [`NO_SKILL`] or [`RANKER_ERROR`].
    pub fn pick(&self) -> String {
        if self.top.is_empty() && self.failure.is_some() && self.ranked.is_empty() {
            // A ranker error leaves no match at all; "no skill matched" is
            // told apart by its message.
            if self.failure.as_deref() != Some(NO_MATCH) {
                return RANKER_ERROR.to_owned();
            }
        }
        if let Some(builtin) = &self.taken_by_builtin {
            return format!("{builtin} (built-in)");
        }
        self.selected
            .first()
            .cloned()
            .unwrap_or_else(|| NO_SKILL.to_owned())
    }

    fn is_negative(&self) -> bool {
        self.expect.as_ref().is_some_and(Vec::is_empty)
    }

    /// Expected skills among the top `n` (of the full ranking when the report
    /// was produced by this run, else of the kept top 3).
    fn expected_in_top(&self, n: usize) -> usize {
        let expect = self.expect.as_deref().unwrap_or_default();
        let ranked: Vec<&str> = if self.ranked.is_empty() {
            self.top.iter().map(|m| m.id.as_str()).collect()
        } else {
            self.ranked.iter().map(String::as_str).collect()
        };
        ranked
            .iter()
            .take(n)
            .filter(|id| expect.iter().any(|e| e == *id))
            .count()
    }

    fn is_false_positive(&self) -> bool {
        let rejected = self.selected.iter().any(|id| self.reject.contains(id));
        rejected || (self.is_negative() && !self.selected.is_empty())
    }

    fn routing_correct(&self) -> bool {
        if self.is_negative() {
            return self.selected.is_empty();
        }
        let expect = self.expect.as_deref().unwrap_or_default();
        self.top
            .first()
            .is_some_and(|m| expect.contains(&m.id) && self.selected.first() == Some(&m.id))
    }
}

/// Metrics of a set of cases. See the module documentation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MetricValues {
    pub cases: usize,
    pub positive_cases: usize,
    pub negative_cases: usize,
    pub p_at_1: Option<f64>,
    pub p_at_3: Option<f64>,
    pub recall_at_3: Option<f64>,
    pub hit_at_3: Option<f64>,
    pub hit_at_5: Option<f64>,
    pub mrr: Option<f64>,
    pub accuracy: Option<f64>,
    pub false_positive_rate: Option<f64>,
    pub latency_ms_p50: Option<f64>,
    pub latency_ms_p99: Option<f64>,
}

/// The names of the gateable metrics, in report order.
pub const METRIC_NAMES: [&str; 10] = [
    "p_at_1",
    "p_at_3",
    "recall_at_3",
    "hit_at_3",
    "hit_at_5",
    "mrr",
    "accuracy",
    "false_positive_rate",
    "latency_ms_p50",
    "latency_ms_p99",
];

impl MetricValues {
    pub fn of<'a>(cases: impl IntoIterator<Item = &'a CaseReport>) -> MetricValues {
        let cases: Vec<&CaseReport> = cases.into_iter().collect();
        let positives: Vec<&CaseReport> =
            cases.iter().copied().filter(|c| c.is_positive()).collect();
        let negatives = cases.iter().filter(|c| c.is_negative()).count();
        let over_positives =
            |value: &dyn Fn(&CaseReport) -> f64| mean(positives.iter().map(|c| value(c)));
        let hit = |n: usize| over_positives(&|c| f64::from(u8::from(c.expected_in_top(n) > 0)));
        let decided = cases.iter().filter(|c| c.is_positive() || c.is_negative());
        let exposed = cases
            .iter()
            .filter(|c| c.is_negative() || !c.reject.is_empty());
        let mut latencies: Vec<f64> = cases.iter().map(|c| c.latency_ms).collect();
        latencies.sort_by(f64::total_cmp);
        MetricValues {
            cases: cases.len(),
            positive_cases: positives.len(),
            negative_cases: negatives,
            p_at_1: hit(1),
            p_at_3: over_positives(&|c| c.expected_in_top(3) as f64 / 3.0),
            recall_at_3: over_positives(&|c| {
                let expected = c.expect.as_ref().map_or(1, Vec::len).max(1);
                c.expected_in_top(3) as f64 / expected as f64
            }),
            hit_at_3: hit(3),
            hit_at_5: hit(5),
            mrr: over_positives(&|c| c.first_expected_rank.map_or(0.0, |r| 1.0 / r as f64)),
            accuracy: mean(decided.map(|c| f64::from(u8::from(c.routing_correct())))),
            false_positive_rate: mean(exposed.map(|c| f64::from(u8::from(c.is_false_positive())))),
            latency_ms_p50: percentile(&latencies, 50.0),
            latency_ms_p99: percentile(&latencies, 99.0),
        }
    }

    /// A metric by name; `None` when the name is unknown, `Some(None)` when
    /// the metric is undefined for these cases.
    pub fn get(&self, name: &str) -> Option<Option<f64>> {
        Some(match name {
            "p_at_1" => self.p_at_1,
            "p_at_3" => self.p_at_3,
            "recall_at_3" => self.recall_at_3,
            "hit_at_3" => self.hit_at_3,
            "hit_at_5" => self.hit_at_5,
            "mrr" => self.mrr,
            "accuracy" => self.accuracy,
            "false_positive_rate" => self.false_positive_rate,
            "latency_ms_p50" => self.latency_ms_p50,
            "latency_ms_p99" => self.latency_ms_p99,
            _ => return None,
        })
    }
}

/// Overall metrics and the same per tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Metrics {
    #[serde(flatten)]
    pub overall: MetricValues,
    pub by_kind: BTreeMap<String, MetricValues>,
}

impl Metrics {
    pub fn of(cases: &[CaseReport]) -> Metrics {
        let mut groups: BTreeMap<&str, Vec<&CaseReport>> = BTreeMap::new();
        for case in cases {
            for kind in &case.kinds {
                groups.entry(kind).or_default().push(case);
            }
        }
        Metrics {
            overall: MetricValues::of(cases),
            by_kind: groups
                .into_iter()
                .map(|(k, cases)| (k.to_owned(), MetricValues::of(cases)))
                .collect(),
        }
    }
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (count > 0).then(|| sum / count as f64)
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// A metric in two runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MetricDelta {
    pub old: Option<f64>,
    pub new: Option<f64>,
    /// `new - old`, when both are defined.
    pub delta: Option<f64>,
}

/// A case whose outcome changed between two runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CaseChange {
    pub suite: String,
    pub query: String,
    pub old_passed: bool,
    pub new_passed: bool,
    pub old_rank: Option<usize>,
    pub new_rank: Option<usize>,
}

/// What changed from an old run to a new one. A case improved when it now
/// passes and did not, or passes (or fails) as before with its first expected
/// skill ranked higher; it regressed in the opposite cases. Cases are matched
/// by suite and query; `only_old` and `only_new` count the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Comparison {
    pub metrics: BTreeMap<String, MetricDelta>,
    pub improved: Vec<CaseChange>,
    pub regressed: Vec<CaseChange>,
    pub only_old: usize,
    pub only_new: usize,
    /// The change of `latency_ms_p50` the two runs' own spread explains: see
    /// [`latency_noise_ms`]. A smaller change is noise, not a regression.
    #[serde(default)]
    pub latency_noise_ms: Option<f64>,
}

/// How much the median latency of two runs may differ by chance, in ms.
///
/// Latency is timed per case, so each run says how much its cases scatter:
/// the standard error of a median of `n` values is about 1.2533 σ / √n, with
/// σ estimated robustly as IQR / 1.349 (outliers, such as a first query that
/// warms a cache, do not inflate it). Two runs' medians then differ by chance
/// by up to twice the standard error of their difference (~95 %). `None`
/// when a run has fewer than 4 timed cases: no spread to measure.
pub fn latency_noise_ms(old: &Report, new: &Report) -> Option<f64> {
    let standard_error = |report: &Report| {
        let mut latencies: Vec<f64> = report.cases.iter().map(|c| c.latency_ms).collect();
        if latencies.len() < 4 {
            return None;
        }
        latencies.sort_by(f64::total_cmp);
        let iqr = percentile(&latencies, 75.0)? - percentile(&latencies, 25.0)?;
        Some(1.2533 * (iqr / 1.349) / (latencies.len() as f64).sqrt())
    };
    let (old, new) = (standard_error(old)?, standard_error(new)?);
    Some(2.0 * (old * old + new * new).sqrt())
}

impl Comparison {
    pub fn new(old: &Report, new: &Report) -> Comparison {
        let metrics = METRIC_NAMES
            .iter()
            .map(|name| {
                let old = old.metrics.overall.get(name).flatten();
                let new = new.metrics.overall.get(name).flatten();
                let delta = old.zip(new).map(|(o, n)| n - o);
                ((*name).to_owned(), MetricDelta { old, new, delta })
            })
            .collect();
        let old_cases: HashMap<(&str, &str), &CaseReport> = old
            .cases
            .iter()
            .map(|c| ((c.suite.as_str(), c.query.as_str()), c))
            .collect();
        let mut comparison = Comparison {
            metrics,
            improved: Vec::new(),
            regressed: Vec::new(),
            only_old: 0,
            only_new: 0,
            latency_noise_ms: latency_noise_ms(old, new),
        };
        let mut matched = 0;
        for case in &new.cases {
            let Some(before) = old_cases.get(&(case.suite.as_str(), case.query.as_str())) else {
                comparison.only_new += 1;
                continue;
            };
            matched += 1;
            // Lower is better; absent ranks last.
            let rank_key = |r: Option<usize>| r.unwrap_or(usize::MAX);
            let outcome = (
                case.passed,
                std::cmp::Reverse(rank_key(case.first_expected_rank)),
            );
            let previous = (
                before.passed,
                std::cmp::Reverse(rank_key(before.first_expected_rank)),
            );
            let change = CaseChange {
                suite: case.suite.clone(),
                query: case.query.clone(),
                old_passed: before.passed,
                new_passed: case.passed,
                old_rank: before.first_expected_rank,
                new_rank: case.first_expected_rank,
            };
            match outcome.cmp(&previous) {
                std::cmp::Ordering::Greater => comparison.improved.push(change),
                std::cmp::Ordering::Less => comparison.regressed.push(change),
                std::cmp::Ordering::Equal => {}
            }
        }
        comparison.only_old = old.cases.len().saturating_sub(matched);
        comparison
    }
}

/// A bound on a metric: `--min p_at_1=0.8` or `--max false_positive_rate=0.05`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    pub metric: String,
    /// `true` for a lower bound, `false` for an upper bound.
    pub minimum: bool,
    pub value: f64,
}

impl Gate {
    /// Parses `METRIC=VALUE`.
    pub fn parse(spec: &str, minimum: bool) -> Result<Gate, String> {
        let (metric, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("`{spec}`: expected METRIC=VALUE, e.g. p_at_1=0.8"))?;
        let metric = metric.trim();
        if !METRIC_NAMES.contains(&metric) {
            return Err(format!(
                "`{metric}` is not a metric (one of {})",
                METRIC_NAMES.join(", ")
            ));
        }
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("`{spec}`: `{}` is not a number", value.trim()))?;
        Ok(Gate {
            metric: metric.to_owned(),
            minimum,
            value,
        })
    }

    /// `None` when the run passes the gate, else why not. An undefined metric
    /// fails: a gate on nothing must not pass silently.
    pub fn check(&self, metrics: &MetricValues) -> Option<String> {
        let bound = if self.minimum { "at least" } else { "at most" };
        match metrics.get(&self.metric).flatten() {
            None => Some(format!(
                "{} is undefined for this run (no case measures it)",
                self.metric
            )),
            Some(actual)
                if (self.minimum && actual < self.value)
                    || (!self.minimum && actual > self.value) =>
            {
                Some(format!(
                    "{} = {actual:.4}, required {bound} {}",
                    self.metric, self.value
                ))
            }
            Some(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{Explanation, KeywordExplanation};

    fn ranked(ids: &[(&str, f32)]) -> Result<Vec<Match>, RankError> {
        Ok(ids
            .iter()
            .map(|(id, confidence)| Match {
                id: (*id).to_owned(),
                key: (*id).to_owned(),
                score: *confidence * 10.0,
                confidence: *confidence,
                explanation: Explanation::Keyword(KeywordExplanation::default()),
            })
            .collect())
    }

    fn case(expect: Option<&[&str]>, reject: &[&str], kind: &str) -> Case {
        Case {
            query: format!("q{expect:?}{reject:?}"),
            expect: expect.map(|e| e.iter().map(|s| (*s).to_owned()).collect()),
            reject: reject.iter().map(|s| (*s).to_owned()).collect(),
            kinds: vec![kind.to_owned()],
            line: 1,
        }
    }

    fn report(cases: Vec<CaseReport>) -> Report {
        Report::new("s".into(), "l".into(), RankerKind::Bm25, 0.5, cases)
    }

    #[test]
    fn a_builtin_ranking_first_takes_the_case_and_is_never_selected() {
        let mut matches = ranked(&[("code-review", 0.9), ("review-checklist", 0.8)]).unwrap();
        matches[0].key = "builtin:claude-code/code-review".into();
        let taken = CaseReport::new(
            "s",
            &case(Some(&["review-checklist"]), &[], "d"),
            Ok(matches.clone()),
            0.5,
            1.0,
        );
        assert!(!taken.passed);
        assert_eq!(taken.taken_by_builtin.as_deref(), Some("code-review"));
        assert_eq!(
            taken.failure.as_deref(),
            Some(
                "Claude Code's built-in `code-review` ranks first: the agent would take it (first expected at rank 2)"
            )
        );
        assert_eq!(taken.selected, ["review-checklist"]);
        assert_eq!(taken.top[0].builtin_of, Some(Client::ClaudeCode));
        assert_eq!(taken.pick(), "code-review (built-in)");
        // Below the threshold the built-in is not picked either.
        let low = CaseReport::new(
            "s",
            &case(Some(&["review-checklist"]), &[], "d"),
            Ok(matches.clone()),
            0.95,
            1.0,
        );
        assert_eq!(low.taken_by_builtin, None);
        assert!(
            low.failure
                .as_deref()
                .unwrap()
                .contains("ranks first, below the threshold")
        );
        assert_eq!(low.pick(), NO_SKILL);

        // A request no library skill should take may go to a built-in.
        let negative = CaseReport::new(
            "s",
            &case(Some(&[]), &[], "d"),
            Ok(matches[..1].to_vec()),
            0.5,
            1.0,
        );
        assert!(negative.passed, "{:?}", negative.failure);
        // The JSON of a run without built-ins is unchanged.
        let plain = CaseReport::new(
            "s",
            &case(Some(&["a"]), &[], "d"),
            ranked(&[("a", 0.9)]),
            0.5,
            1.0,
        );
        let json = serde_json::to_string(&plain).unwrap();
        assert!(!json.contains("builtin"), "{json}");
    }

    #[test]
    fn confusion_counts_expected_against_picked_and_agreement_compares_picks() {
        let cases = vec![
            CaseReport::new(
                "s",
                &case(Some(&["a"]), &[], "d"),
                ranked(&[("a", 0.9)]),
                0.5,
                1.0,
            ),
            CaseReport::new(
                "s",
                &case(Some(&["a"]), &[], "d"),
                ranked(&[("b", 0.9)]),
                0.5,
                1.0,
            ),
            CaseReport::new(
                "s",
                &case(Some(&["a"]), &[], "d"),
                ranked(&[("a", 0.1)]),
                0.5,
                1.0,
            ),
            CaseReport::new(
                "s",
                &case(Some(&[]), &[], "n"),
                ranked(&[("b", 0.9)]),
                0.5,
                1.0,
            ),
            CaseReport::new(
                "s",
                &case(Some(&["b"]), &[], "e"),
                Err(RankError::Agent("malformed answer".into())),
                0.5,
                1.0,
            ),
            // Reject-only cases expect nothing in particular: not counted.
            CaseReport::new(
                "s",
                &case(None, &["a"], "r"),
                ranked(&[("a", 0.9)]),
                0.5,
                1.0,
            ),
        ];
        let mut cases = cases;
        // Cases are matched across runs by suite, line and request.
        for (line, case) in cases.iter_mut().enumerate() {
            case.line = line as u32 + 1;
        }
        let table: Vec<(String, String, usize)> = confusion(&cases)
            .into_iter()
            .map(|c| (c.expected, c.picked, c.count))
            .collect();
        let cell = |e: &str, p: &str, n| (e.to_owned(), p.to_owned(), n);
        // Same query text: the first two cases share it, which is fine here.
        assert_eq!(
            table,
            vec![
                cell(NO_SKILL, "b", 1),
                cell("a", NO_SKILL, 1),
                cell("a", "a", 1),
                cell("a", "b", 1),
                cell("b", RANKER_ERROR, 1),
            ]
        );
        let base = report(cases.clone());
        assert_eq!(base.confusion.len(), 5);
        let json = serde_json::to_value(&base).unwrap();
        assert_eq!(json["confusion"][0]["picked"], "b");
        let same = agreement(&base, &report(cases));
        assert_eq!((same.cases > 0, same.share), (true, Some(1.0)));
    }

    #[test]
    fn metrics_follow_their_definitions() {
        let cases = vec![
            // Right and selected.
            CaseReport::new(
                "s",
                &case(Some(&["a"]), &[], "direct"),
                ranked(&[("a", 0.9), ("b", 0.2)]),
                0.5,
                1.0,
            ),
            // Expected second; two expected, both in the top 3.
            CaseReport::new(
                "s",
                &case(Some(&["b", "c"]), &[], "direct"),
                ranked(&[("a", 0.4), ("b", 0.3), ("c", 0.1)]),
                0.5,
                2.0,
            ),
            // Negative, correctly empty.
            CaseReport::new(
                "s",
                &case(Some(&[]), &[], "negative"),
                ranked(&[("a", 0.1)]),
                0.5,
                3.0,
            ),
            // Negative with a selection: a false positive.
            CaseReport::new(
                "s",
                &case(Some(&[]), &[], "negative"),
                ranked(&[("a", 0.6)]),
                0.5,
                4.0,
            ),
            // Reject-only, violated.
            CaseReport::new(
                "s",
                &case(None, &["a"], "reject"),
                ranked(&[("a", 0.7)]),
                0.5,
                5.0,
            ),
        ];
        let m = Metrics::of(&cases);
        let o = &m.overall;
        assert_eq!((o.cases, o.positive_cases, o.negative_cases), (5, 2, 2));
        assert_eq!(o.p_at_1, Some(0.5));
        assert_eq!(o.p_at_3, Some((1.0 / 3.0 + 2.0 / 3.0) / 2.0));
        assert_eq!(o.recall_at_3, Some(1.0));
        assert_eq!(o.hit_at_3, Some(1.0));
        assert_eq!(o.mrr, Some(0.75));
        assert_eq!(o.accuracy, Some(0.5));
        assert_eq!(o.false_positive_rate, Some(2.0 / 3.0));
        assert_eq!(o.latency_ms_p50, Some(3.0));
        assert_eq!(o.latency_ms_p99, Some(5.0));
        assert_eq!(m.by_kind["negative"].false_positive_rate, Some(0.5));
        assert_eq!(m.by_kind["reject"].p_at_1, None);
        assert!(cases[1].failure.as_deref().unwrap().contains("rank 2"));
        assert!(cases[4].failure.as_deref().unwrap().contains("rejected"));
    }

    #[test]
    fn reports_round_trip_through_json_with_the_documented_keys() {
        let cases = vec![CaseReport::new(
            "s",
            &case(Some(&["a"]), &[], "direct"),
            ranked(&[("a", 0.9)]),
            0.5,
            1.0,
        )];
        let report = report(cases);
        let json = serde_json::to_value(&report).unwrap();
        for key in [
            "suite",
            "library",
            "ranker",
            "threshold",
            "metrics",
            "cases",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
        for key in METRIC_NAMES.iter().chain(&["by_kind"]) {
            assert!(json["metrics"].get(key).is_some(), "{key}");
        }
        assert_eq!(json["ranker"], "bm25");
        let back: Report = serde_json::from_value(json).unwrap();
        assert_eq!(back.metrics, report.metrics);
    }

    #[test]
    fn comparisons_list_changed_cases_and_deltas() {
        let good = CaseReport::new(
            "s",
            &case(Some(&["a"]), &[], "d"),
            ranked(&[("a", 0.9)]),
            0.5,
            1.0,
        );
        let bad = CaseReport::new(
            "s",
            &case(Some(&["a"]), &[], "d"),
            ranked(&[("b", 0.9), ("a", 0.8)]),
            0.5,
            1.0,
        );
        let comparison = Comparison::new(&report(vec![bad.clone()]), &report(vec![good.clone()]));
        assert_eq!(comparison.improved.len(), 1);
        assert_eq!(comparison.metrics["p_at_1"].delta, Some(1.0));
        let comparison = Comparison::new(&report(vec![good]), &report(vec![bad]));
        assert_eq!(comparison.regressed.len(), 1);
    }

    fn timed(latencies: &[f64]) -> Report {
        report(
            latencies
                .iter()
                .map(|&ms| {
                    CaseReport::new(
                        "s",
                        &case(Some(&["a"]), &[], "d"),
                        ranked(&[("a", 0.9)]),
                        0.5,
                        ms,
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn latency_noise_comes_from_the_runs_own_spread() {
        // Too few cases to measure a spread: no noise band, so no claim.
        assert_eq!(
            latency_noise_ms(&timed(&[1.0, 2.0]), &timed(&[1.0, 2.0, 3.0, 4.0])),
            None
        );
        // Identical timings: any change of the median is real.
        let steady = timed(&[2.0; 16]);
        assert_eq!(latency_noise_ms(&steady, &steady), Some(0.0));
        // Cases scattered between 1 and 4 ms: IQR 2 ms over 16 cases.
        let scattered: Vec<f64> = (0..16).map(|i| 1.0 + f64::from(i) * 0.2).collect();
        let noise = latency_noise_ms(&timed(&scattered), &timed(&scattered)).unwrap();
        let one: f64 = 1.2533 * (1.6 / 1.349) / 4.0;
        assert!(
            (noise - 2.0 * (2.0 * one * one).sqrt()).abs() < 1e-9,
            "{noise}"
        );
        // A slow outlier barely moves it: the band is robust.
        let mut outlier = scattered.clone();
        outlier[15] = 500.0;
        let with_outlier = latency_noise_ms(&timed(&scattered), &timed(&outlier)).unwrap();
        assert!(
            (with_outlier - noise).abs() < 0.1,
            "{with_outlier} vs {noise}"
        );
        let comparison = Comparison::new(&timed(&scattered), &timed(&outlier));
        assert_eq!(comparison.latency_noise_ms, Some(with_outlier));
    }

    #[test]
    fn gates_parse_and_check() {
        let metrics = MetricValues::of(&[CaseReport::new(
            "s",
            &case(Some(&["a"]), &[], "d"),
            ranked(&[("a", 0.9)]),
            0.5,
            1.0,
        )]);
        assert_eq!(
            Gate::parse("p_at_1=0.8", true).unwrap().check(&metrics),
            None
        );
        assert!(
            Gate::parse("mrr = 1.5", true)
                .unwrap()
                .check(&metrics)
                .is_some()
        );
        assert!(
            Gate::parse("false_positive_rate=0", false)
                .unwrap()
                .check(&metrics)
                .unwrap()
                .contains("undefined")
        );
        assert!(
            Gate::parse("p1=0.8", true)
                .unwrap_err()
                .contains("not a metric")
        );
        assert!(Gate::parse("p_at_1", true).is_err());
        assert!(Gate::parse("p_at_1=NaN", true).is_err());
    }
}
