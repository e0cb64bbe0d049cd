//! # hone-bench
//!
//! Task evals: does a skill make the agent do the task better? [`bench`] runs
//! each case through the real agent CLIs (in scratch folders, offline but for
//! their provider) with and without the skill, grades what they did, and
//! reports the lift with its interval and the cost.
//!
//! It imports the skill model, the clients (how each CLI is run and read),
//! the evals and the agents. Nothing in the engine imports it.

// The lower crates' modules this crate's code names, at the crate root, so
// that a path reads `crate::skill::Skill` in every crate of the engine.
use hone_agent::agent;
use hone_check::eval;
use hone_clients::{clients, tokens};
use hone_skill::{cancel, library, skill, text, workspace, yaml};

pub mod bench;
