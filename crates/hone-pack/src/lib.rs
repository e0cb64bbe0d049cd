//! # hone-pack
//!
//! Shipping skills: [`pack`] exports reproducible packs and plugins, verifies
//! and imports them safely, and installs skills into each client.
//!
//! It imports the skill model, the clients (costs per stage in the manifest)
//! and the checks (a pack is checked and scanned before it ships). It runs no
//! agent and no model, so it may not import `hone-agent` or `hone-bench`.

// The lower crates' modules this crate's code names, at the crate root, so
// that a path reads `crate::skill::Skill` in every crate of the engine.
use hone_check::{library_settings, rules, security};
use hone_clients::{catalog, clients, tokens};
use hone_skill::{diagnostic, document, edit, folder, library, skill, workspace, yaml};

pub mod pack;
