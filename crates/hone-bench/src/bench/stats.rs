//! The statistics of a benchmark, kept honest for small samples.
//!
//! - A pass rate gets a Wilson score interval (95%), which stays inside
//!   [0, 1] and is sane at 0/3 and 3/3, where the normal approximation
//!   collapses to a point.
//! - Lift (with − without) is a mean over cases of each case's difference in
//!   pass rate, so every case weighs the same. Its interval is a two-level
//!   bootstrap: resample the cases, then each arm's runs within a case. The
//!   second level matters: with one case and three runs, resampling cases
//!   alone would give an interval of width zero. Where every run agrees
//!   (3/3 against 0/3), resampling cannot vary anything and the bootstrap
//!   collapses to a point; the interval is therefore widened to at least
//!   Newcombe's score interval for the difference of the pooled rates
//!   (his method 10, built from the two Wilson intervals).
//! - The verdict reads the interval: it helps when the interval is above
//!   zero, hurts when below, and otherwise cannot tell yet, with the runs per
//!   arm that would make an effect of the size seen clear (intervals shrink
//!   with the square root of the runs).
//! - pass@k (some run of k passes) is the unbiased estimator of Chen et al.
//!   (2021); pass^k (every run of k passes) is its strict twin from τ-bench.

use serde::{Deserialize, Serialize};

/// The 0.975 quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;
/// Bootstrap resamples: enough for stable 2.5% and 97.5% percentiles.
pub const RESAMPLES: usize = 4000;
/// Beyond this many runs per arm, "more runs" is not a useful answer.
const MAX_USEFUL_RUNS: u32 = 200;

/// A 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// The Wilson score interval of `passes` out of `runs`.
pub fn wilson(passes: usize, runs: usize) -> Interval {
    if runs == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let n = runs as f64;
    let p = passes as f64 / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    Interval {
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// The chance that at least one of `k` runs passes, from `passes` of `runs`.
pub fn pass_at_k(runs: usize, passes: usize, k: usize) -> f64 {
    if k == 0 || k > runs {
        return f64::NAN;
    }
    if runs - passes < k {
        return 1.0;
    }
    1.0 - ((runs - passes + 1)..=runs)
        .map(|i| 1.0 - k as f64 / i as f64)
        .product::<f64>()
}

/// The chance that all of `k` runs pass, from `passes` of `runs`.
pub fn pass_hat_k(runs: usize, passes: usize, k: usize) -> f64 {
    if k == 0 || k > runs {
        return f64::NAN;
    }
    if passes < k {
        return 0.0;
    }
    (0..k)
        .map(|i| (passes - i) as f64 / (runs - i) as f64)
        .product()
}

/// What the lift says about the skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
// Named apart from the other verdicts where they cross to TypeScript.
#[serde(rename = "LiftVerdict", rename_all = "kebab-case")]
pub enum Verdict {
    Helps,
    Hurts,
    CantTellYet,
}

/// The lift of one arm over another, with its interval and verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Lift {
    pub mean: f64,
    pub interval: Interval,
    pub verdict: Verdict,
    /// Runs per arm and case that would likely settle a "can't tell yet"
    /// (none when the effect seen is nil or would need an absurd number).
    pub runs_to_tell: Option<u32>,
    /// Cases that had runs in both arms.
    pub cases: usize,
}

/// Per case, the pass/fail of each run in the arm and in the baseline arm.
pub type Paired = (Vec<bool>, Vec<bool>);

/// The lift of the first arm over the second, over cases with runs in both.
pub fn lift(cases: &[Paired], seed: u64) -> Option<Lift> {
    let cases: Vec<&Paired> = cases
        .iter()
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .collect();
    if cases.is_empty() {
        return None;
    }
    let rate = |runs: &[bool]| runs.iter().filter(|p| **p).count() as f64 / runs.len() as f64;
    let mean = cases.iter().map(|(a, b)| rate(a) - rate(b)).sum::<f64>() / cases.len() as f64;
    let mut rng = fastrand::Rng::with_seed(seed);
    let resample_rate = |rng: &mut fastrand::Rng, runs: &[bool]| {
        (0..runs.len())
            .filter(|_| runs[rng.usize(..runs.len())])
            .count() as f64
            / runs.len() as f64
    };
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            (0..cases.len())
                .map(|_| {
                    let (a, b) = cases[rng.usize(..cases.len())];
                    resample_rate(&mut rng, a) - resample_rate(&mut rng, b)
                })
                .sum::<f64>()
                / cases.len() as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((RESAMPLES as f64 - 1.0) * q).round() as usize];
    let pooled = |pick: fn(&Paired) -> &Vec<bool>| {
        let runs: Vec<bool> = cases.iter().flat_map(|c| pick(c).iter().copied()).collect();
        (runs.iter().filter(|p| **p).count(), runs.len())
    };
    let floor = newcombe(pooled(|c| &c.0), pooled(|c| &c.1));
    let interval = Interval {
        low: at(0.025).min(floor.low),
        high: at(0.975).max(floor.high),
    };
    let verdict = if interval.low > 0.0 {
        Verdict::Helps
    } else if interval.high < 0.0 {
        Verdict::Hurts
    } else {
        Verdict::CantTellYet
    };
    let runs_now = cases
        .iter()
        .map(|(a, b)| a.len().min(b.len()))
        .min()
        .unwrap_or(1) as f64;
    let half = (interval.high - interval.low) / 2.0;
    let runs_to_tell = (verdict == Verdict::CantTellYet && mean.abs() > 1e-9)
        .then(|| (runs_now * (half / mean.abs()).powi(2)).ceil() as u32)
        .filter(|runs| *runs <= MAX_USEFUL_RUNS)
        .map(|runs| runs.max(runs_now as u32 + 1));
    Some(Lift {
        mean,
        interval,
        verdict,
        runs_to_tell,
        cases: cases.len(),
    })
}

/// Newcombe's hybrid score interval for the difference of two independent
/// proportions, `(passes, runs)` of each (Newcombe 1998, method 10).
pub fn newcombe(first: (usize, usize), second: (usize, usize)) -> Interval {
    let rate = |(passes, runs): (usize, usize)| passes as f64 / runs.max(1) as f64;
    let (p1, p2) = (rate(first), rate(second));
    let (w1, w2) = (wilson(first.0, first.1), wilson(second.0, second.1));
    let d = p1 - p2;
    Interval {
        low: d - ((p1 - w1.low).powi(2) + (w2.high - p2).powi(2)).sqrt(),
        high: d + ((w1.high - p1).powi(2) + (p2 - w2.low).powi(2)).sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), Table I: 81/263 → 0.2553–0.3662; 15/148 → 0.0624–0.1605.
        let i = wilson(81, 263);
        assert!(close(i.low, 0.2553) && close(i.high, 0.3662), "{i:?}");
        let i = wilson(15, 148);
        assert!(close(i.low, 0.0624) && close(i.high, 0.1605), "{i:?}");
        // 0/10 → 0–0.2775; 3/3 → 0.4385–1.
        let i = wilson(0, 10);
        assert!(close(i.low, 0.0) && close(i.high, 0.2775), "{i:?}");
        let i = wilson(3, 3);
        assert!(close(i.low, 0.4385) && close(i.high, 1.0), "{i:?}");
    }

    #[test]
    fn newcombe_matches_the_published_example() {
        // Newcombe (1998), Table II, example (a): 56/70 − 48/80 → 0.0524 to 0.3339.
        let i = newcombe((56, 70), (48, 80));
        assert!(close(i.low, 0.0524) && close(i.high, 0.3339), "{i:?}");
    }

    #[test]
    fn runs_that_all_agree_still_get_an_interval() {
        let l = lift(&[(vec![true; 3], vec![false; 3])], 1).unwrap();
        assert!(l.interval.low > 0.0 && l.interval.low < 0.6, "{l:?}");
        assert_eq!(l.verdict, Verdict::Helps);
    }

    #[test]
    fn pass_at_k_and_pass_hat_k() {
        // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 0.7; C(2,2)/C(5,2) = 0.1.
        assert!(close(pass_at_k(5, 2, 2), 0.7));
        assert!(close(pass_hat_k(5, 2, 2), 0.1));
        assert!(close(pass_at_k(3, 3, 3), 1.0));
        assert!(close(pass_hat_k(3, 2, 3), 0.0));
        assert!(close(pass_at_k(3, 1, 1), 1.0 / 3.0));
        assert!(pass_at_k(2, 1, 3).is_nan());
    }

    #[test]
    fn a_clear_gain_helps_and_no_difference_cannot_tell() {
        let gain: Vec<Paired> = (0..6).map(|_| (vec![true; 5], vec![false; 5])).collect();
        let l = lift(&gain, 1).unwrap();
        assert_eq!(l.verdict, Verdict::Helps);
        assert!(close(l.mean, 1.0));
        let loss: Vec<Paired> = (0..6)
            .map(|_| (vec![false, false, true], vec![true; 3]))
            .collect();
        assert_eq!(lift(&loss, 1).unwrap().verdict, Verdict::Hurts);
        let same: Vec<Paired> = vec![(vec![true, false, true], vec![true, false, true])];
        let l = lift(&same, 1).unwrap();
        assert_eq!(l.verdict, Verdict::CantTellYet);
        assert!(l.runs_to_tell.is_none());
        // One case, three runs: the run-level resample keeps the interval wide.
        let small: Vec<Paired> = vec![(vec![true, true, false], vec![false, true, false])];
        let l = lift(&small, 1).unwrap();
        assert!(l.interval.high - l.interval.low > 0.3, "{l:?}");
        assert_eq!(l.verdict, Verdict::CantTellYet);
        assert!(l.runs_to_tell.is_some_and(|r| r > 3), "{l:?}");
    }

    #[test]
    fn the_bootstrap_is_reproducible_and_cases_without_both_arms_are_left_out() {
        let cases: Vec<Paired> = vec![
            (vec![true, false], vec![false, false]),
            (vec![], vec![true]),
        ];
        assert_eq!(lift(&cases, 7), lift(&cases, 7));
        assert_eq!(lift(&cases, 7).unwrap().cases, 1);
        assert!(lift(&[(vec![], vec![])], 7).is_none());
    }
}
