//! # hone-skill
//!
//! The skill model and parsing, the room every other crate of Hone's engine
//! builds on.
//!
//! - [`document`] splits a file into frontmatter and body; [`yaml`] parses the
//!   frontmatter into a tree with byte spans; [`skill`] builds the typed model;
//!   [`fields`] is the table of frontmatter keys (types, readers, limits) that
//!   the model, the rules and the app's form read; [`library`] discovers
//!   skills under one or more roots, and [`folder`] walks a skill's files.
//! - [`diagnostic`] is the one finding type every check reports; [`text`]
//!   turns byte offsets into lines and columns.
//! - [`edit`] changes one frontmatter key without disturbing the rest;
//!   [`workspace`] touches an opened library's files safely (confinement,
//!   atomic writes) and [`watch`] sees them change on disk.
//! - [`links`], [`render`] and [`substitute`]: a body's links, its safe HTML,
//!   and what Claude Code makes of it when the skill is invoked.
//! - [`cancel`]: the flag a long run shares with whoever may stop it.
//!
//! It imports no other crate of Hone: what a client does with a skill
//! (`hone-clients`), ranking (`hone-rank`) and the checks (`hone-check`) sit
//! above it and may not leak into the model.

pub mod cancel;
#[cfg(any(test, feature = "corpus-files"))]
pub mod corpus_files;
pub mod diagnostic;
pub mod document;
pub mod edit;
pub mod fields;
pub mod folder;
pub mod heap;
pub mod library;
pub mod links;
pub mod render;
pub mod skill;
pub mod substitute;
pub mod text;
pub mod watch;
pub mod workspace;
pub mod yaml;
