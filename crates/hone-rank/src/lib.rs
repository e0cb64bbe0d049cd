//! # hone-rank
//!
//! Ranking skills for a request, and the embedding models it runs.
//!
//! - [`rank`] ranks a library's skills for a request: BM25 over the listing
//!   text (or, in the retrieval view, the whole skill), embeddings, and their
//!   hybrid; it also finds the skills that compete for the same requests.
//! - [`embed`] computes sentence embeddings in-process (MiniLM, mpnet), with
//!   a cache per text so that a library is embedded once.
//!
//! It imports `hone-skill` and `hone-clients` (a ranked skill is the listing
//! entry a client shows). The checks, evals and agents build on it; it may not
//! import them. The agent ranker, which asks a language model, lives in
//! `hone-agent` and plugs into [`rank::Ranker`].

// The lower crates' modules this crate's code names, at the crate root, so
// that a path reads `crate::skill::Skill` in every crate of the engine.
use hone_clients::clients;
use hone_skill::{library, skill, workspace};

pub mod embed;
pub mod rank;
