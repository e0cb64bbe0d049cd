//! Fitting a ranker's selection threshold on a library's own suites.
//!
//! Each ranker's default threshold was fitted on one development benchmark.
//! On another library the top match may be right far more often than it is
//! *selected* (right answers falling under the threshold), or wrong answers
//! may clear it. Calibration ranks every case of the library's suites once,
//! then picks the threshold with the best routing accuracy (ties: the lower
//! false-positive rate, then the threshold nearest the current one, so a
//! flat optimum does not move it for nothing) on a grid of hundredths.
//!
//! The figure reported for the fitted threshold is cross-validated: the
//! cases are split into [`FOLDS`] folds (by a hash of the request, so the
//! split is the same on every machine and run), each fold is scored with
//! the threshold fitted on the others, and the folds' results are pooled. A
//! threshold scored on the cases it was fitted to would flatter itself.

use serde::{Deserialize, Serialize};

use super::report::{CaseReport, MetricValues};
use super::{RANK_DEPTH, Suite};
use crate::rank::{Explanation, KeywordExplanation, Match, RankError, Ranker, RankerKind};

/// Folds of the cross-validation.
pub const FOLDS: usize = 5;
/// Fewest decided cases (expecting a skill or none) calibration accepts.
pub const MIN_CASES: usize = 10;

/// The outcome of a calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Calibration {
    pub ranker: RankerKind,
    /// Cases that expect a skill or none (the ones a threshold decides).
    pub cases: usize,
    /// The threshold in use before, on every case.
    pub before: ThresholdScore,
    /// The threshold fitted on every case, with its cross-validated
    /// accuracy and false-positive rate.
    pub after: ThresholdScore,
}

/// A threshold and how it routes the cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ThresholdScore {
    pub threshold: f32,
    pub accuracy: Option<f64>,
    pub false_positive_rate: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error(
        "calibration needs at least {MIN_CASES} cases that expect a skill or none; the suites have {0}"
    )]
    TooFewCases(usize),
}

/// One case, ranked once.
struct Ranked<'a> {
    suite: &'a str,
    case: &'a super::Case,
    matches: Vec<Match>,
    fold: usize,
}

/// Fits the selection threshold of `ranker` on resolved `suites` (see
/// [`super::resolve_suites`]); `current` is the threshold in use.
pub fn calibrate(
    ranker: &dyn Ranker,
    suites: &[Suite],
    current: f32,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Calibration, CalibrationError> {
    let cases: Vec<(&str, &super::Case)> = suites
        .iter()
        .flat_map(|s| s.cases.iter().map(move |c| (s.name.as_str(), c)))
        .filter(|(_, c)| c.is_positive() || c.is_negative())
        .collect();
    if cases.len() < MIN_CASES {
        return Err(CalibrationError::TooFewCases(cases.len()));
    }
    let total = cases.len();
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by_key(|&i| (fnv1a(cases[i].1.query.as_bytes()), i));
    let mut fold_of = vec![0; total];
    for (position, &i) in order.iter().enumerate() {
        fold_of[i] = position % FOLDS;
    }
    let mut ranked = Vec::with_capacity(total);
    for (i, (suite, case)) in cases.into_iter().enumerate() {
        let matches = ranker
            .rank(&case.query, RANK_DEPTH)
            .map(strip_explanations)
            .unwrap_or_default();
        ranked.push(Ranked {
            suite,
            case,
            matches,
            fold: fold_of[i],
        });
        progress(i + 1, total);
    }
    let all: Vec<&Ranked> = ranked.iter().collect();
    let before = score(&all, current);
    let fitted = fit(&all, current);
    // Each fold routed with the threshold fitted on the others.
    let mut held_out: Vec<CaseReport> = Vec::with_capacity(total);
    for fold in 0..FOLDS {
        let (test, train): (Vec<&Ranked>, Vec<&Ranked>) =
            ranked.iter().partition(|r| r.fold == fold);
        let threshold = fit(&train, current);
        held_out.extend(test.iter().map(|r| report(r, threshold)));
    }
    let pooled = MetricValues::of(&held_out);
    Ok(Calibration {
        ranker: ranker.kind(),
        cases: total,
        before,
        after: ThresholdScore {
            threshold: fitted,
            accuracy: pooled.accuracy,
            false_positive_rate: pooled.false_positive_rate,
        },
    })
}

/// The threshold of the grid that routes `cases` best; see the module docs.
fn fit(cases: &[&Ranked], current: f32) -> f32 {
    let mut best: Option<(f64, f64, f32, f32)> = None;
    for step in 0..=100u8 {
        let threshold = f32::from(step) / 100.0;
        let scored = score(cases, threshold);
        let accuracy = scored.accuracy.unwrap_or(0.0);
        let false_positives = scored.false_positive_rate.unwrap_or(0.0);
        let distance = (threshold - current).abs();
        let better = match best {
            None => true,
            Some((a, f, d, _)) => {
                accuracy > a + 1e-12
                    || ((accuracy - a).abs() <= 1e-12
                        && (false_positives < f - 1e-12
                            || ((false_positives - f).abs() <= 1e-12 && distance < d)))
            }
        };
        if better {
            best = Some((accuracy, false_positives, distance, threshold));
        }
    }
    best.map_or(current, |(_, _, _, threshold)| threshold)
}

fn score(cases: &[&Ranked], threshold: f32) -> ThresholdScore {
    let reports: Vec<CaseReport> = cases.iter().map(|r| report(r, threshold)).collect();
    let metrics = MetricValues::of(&reports);
    ThresholdScore {
        threshold,
        accuracy: metrics.accuracy,
        false_positive_rate: metrics.false_positive_rate,
    }
}

fn report(ranked: &Ranked, threshold: f32) -> CaseReport {
    CaseReport::new(
        ranked.suite,
        ranked.case,
        Ok::<_, RankError>(ranked.matches.clone()),
        threshold,
        0.0,
    )
}

/// Matches without their explanations: only ids and confidences are needed,
/// and each case is re-judged at a hundred thresholds.
fn strip_explanations(matches: Vec<Match>) -> Vec<Match> {
    matches
        .into_iter()
        .map(|m| Match {
            explanation: Explanation::Keyword(KeywordExplanation::default()),
            ..m
        })
        .collect()
}

/// FNV-1a, a fixed hash: the folds must not change between runs.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::rank::RoutingDoc;

    /// A ranker answering each request with set (skill, confidence) pairs.
    pub(crate) struct Scripted(pub HashMap<String, Vec<(String, f32)>>);

    impl Ranker for Scripted {
        fn kind(&self) -> RankerKind {
            RankerKind::Bm25
        }
        fn rank(&self, query: &str, k: usize) -> Result<Vec<Match>, RankError> {
            Ok(self
                .0
                .get(query)
                .into_iter()
                .flatten()
                .take(k)
                .map(|(id, confidence)| Match {
                    id: id.clone(),
                    key: id.clone(),
                    score: *confidence,
                    confidence: *confidence,
                    explanation: Explanation::Keyword(KeywordExplanation::default()),
                })
                .collect())
        }
        fn upsert(&mut self, _: RoutingDoc) -> Result<(), RankError> {
            Err(RankError::Index("scripted".into()))
        }
        fn remove(&mut self, _: &str) -> Result<bool, RankError> {
            Ok(false)
        }
        fn len(&self) -> usize {
            2
        }
        fn default_threshold(&self) -> f32 {
            0.5
        }
    }

    /// Ten requests for `pdf` whose right top match has `positive`
    /// confidence and ten off-topic ones whose wrong top match has
    /// `negative` confidence.
    fn suite(positive: f32, negative: f32) -> (Scripted, Suite) {
        let mut answers = HashMap::new();
        let mut yaml = String::from("name: t\ncases:\n");
        for i in 0..10 {
            let jitter = i as f32 / 200.0;
            let query = format!("read pdf number {i}");
            answers.insert(
                query.clone(),
                vec![
                    ("pdf".to_owned(), positive + jitter),
                    ("csv".to_owned(), 0.05),
                ],
            );
            yaml.push_str(&format!("  - query: {query}\n    expect: [pdf]\n"));
            let query = format!("weather today {i}");
            answers.insert(query.clone(), vec![("csv".to_owned(), negative + jitter)]);
            yaml.push_str(&format!("  - query: {query}\n    expect: []\n"));
        }
        let suite = Suite::from_yaml(std::path::Path::new("t.yaml"), &yaml).unwrap();
        (Scripted(answers), suite)
    }

    #[test]
    fn right_answers_under_the_threshold_move_it_down() {
        let (ranker, suite) = suite(0.30, 0.10);
        let calibration = calibrate(&ranker, &[suite], 0.5, &mut |_, _| {}).unwrap();
        assert_eq!(calibration.before.accuracy, Some(0.5));
        let fitted = calibration.after.threshold;
        assert!(fitted > 0.15 && fitted <= 0.30, "{fitted}");
        assert!(calibration.after.accuracy.unwrap() > 0.9, "{calibration:?}");
        assert_eq!(calibration.after.false_positive_rate, Some(0.0));
    }

    #[test]
    fn confident_wrong_answers_move_it_up() {
        let (ranker, suite) = suite(0.85, 0.60);
        let calibration = calibrate(&ranker, &[suite], 0.5, &mut |_, _| {}).unwrap();
        assert_eq!(calibration.before.false_positive_rate, Some(1.0));
        let fitted = calibration.after.threshold;
        assert!((0.65..=0.85).contains(&fitted), "{fitted}");
        assert!(calibration.after.false_positive_rate.unwrap() < 0.1);
    }

    #[test]
    fn too_few_cases_are_refused() {
        let (ranker, mut suite) = suite(0.3, 0.1);
        suite.cases.truncate(4);
        let err = calibrate(&ranker, &[suite], 0.5, &mut |_, _| {}).unwrap_err();
        assert!(err.to_string().contains("the suites have 4"));
    }
}
