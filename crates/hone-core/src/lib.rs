//! # hone-core
//!
//! The engine of Hone, a workbench for authors of agent skills: folders with a
//! `SKILL.md` (YAML frontmatter, then markdown instructions) that agents
//! discover and load on demand.
//!
//! The engine is a plain library: no UI, no printing. The `hone` CLI and the
//! desktop app are thin adapters over it, so both give the same answers.
//!
//! - [`document`] splits a file into frontmatter and body; [`yaml`] parses the
//!   frontmatter into a tree with byte spans; [`skill`] builds the typed model;
//!   [`fields`] is the table of frontmatter keys (types, readers, limits)
//!   that the model, the rules and the app's form read; [`library`]
//!   discovers skills under one or more roots.
//! - [`diagnostic`] is the one finding type every check reports.
//!
//! The top-level modules form layers, each to become a crate of its own:
//! the skill model and parsing; tokens and the clients' listings
//! ([`tokens`], [`clients`], [`catalog`]); ranking, embedding and the checks
//! ([`rank`], [`embed`], [`eval`], [`rules`], [`security`],
//! [`library_settings`]); the agents and the local model ([`agent`],
//! [`llm`]); packs, installers and benchmarks ([`pack`], [`install`],
//! [`bench`]). A module imports its own layer and the layers below, and no
//! two modules import each other: `tests/layers.rs` holds the table and
//! checks every `crate::` import against it.
//!
//! ```
//! use hone_core::{document::SkillDocument, skill::Skill};
//! let doc = SkillDocument::parse("---\nname: pdf\ndescription: Reads PDFs.\n---\n# PDF\n".into());
//! let skill = Skill::from_document(std::path::Path::new("pdf"), doc);
//! assert_eq!(skill.id, "pdf");
//! assert_eq!(skill.body(), "# PDF\n");
//! ```

pub mod agent;
pub mod bench;
pub mod cancel;
pub mod catalog;
pub mod clients;
#[cfg(test)]
mod corpus_files;
pub mod diagnostic;
pub mod document;
pub mod edit;
pub mod embed;
pub mod eval;
pub mod fields;
pub mod folder;
pub mod install;
pub mod library;
pub mod library_settings;
pub mod links;
pub mod llm;
pub mod pack;
pub mod rank;
pub mod render;
pub mod rules;
pub mod security;
pub mod skill;
pub mod substitute;
pub mod text;
pub mod tokens;
pub mod watch;
pub mod workspace;
pub mod yaml;
