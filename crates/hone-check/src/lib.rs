//! # hone-check
//!
//! The checks an author runs on a library, and the settings that tune them.
//!
//! - [`rules`]: the validation rules in the style of ruff, one module per rule
//!   with its code, doc, fix and tests; the `Rule` enum is the registry.
//! - [`security`]: static security analysis of a skill's text and scripts.
//! - [`eval`]: routing evals: suites of requests run through a ranker, their
//!   metrics, calibration and suggestions.
//! - [`library_settings`]: a library's own `evals/hone-settings.json` (rule
//!   settings, ranker thresholds).
//!
//! It imports `hone-skill`, `hone-clients` (the rules judge a skill against
//! what each client does) and `hone-rank` (collisions between skills). Agents,
//! packs and task benchmarks build on it; it may not import them.

// The lower crates' modules this crate's code names, at the crate root, so
// that a path reads `crate::skill::Skill` in every crate of the engine.
use hone_clients::{clients, tokens};
use hone_rank::rank;
use hone_skill::{
    diagnostic, document, edit, fields, folder, library, links, skill, text, workspace, yaml,
};

pub mod eval;
pub mod library_settings;
pub mod rules;
pub mod security;
