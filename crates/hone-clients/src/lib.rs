//! # hone-clients
//!
//! Tokens and the clients' listings: what each agent sees of a skill.
//!
//! - [`tokens`] counts tokens, exactly where an exact count exists (o200k is
//!   built into the binary; other models' tokenizers are loaded when asked).
//! - [`clients`] holds the agent clients that load skills (Claude Code, Codex,
//!   Gemini CLI, OpenCode, Copilot): where each looks, what it lists, what it
//!   truncates and drops, checked against the real clients by captures.
//! - [`catalog`] builds the listing text each client gives every skill and the
//!   tokens of every disclosure stage.
//!
//! It imports only `hone-skill`. Ranking, the checks, the agents and packs
//! build on it; it may not import them.

// The lower crates' modules this crate's code names, at the crate root, so
// that a path reads `crate::skill::Skill` in every crate of the engine.
use hone_skill::{cancel, skill, text, workspace, yaml};
#[cfg(test)]
use hone_skill::{corpus_files, document};

pub mod catalog;
pub mod clients;
pub mod tokens;
