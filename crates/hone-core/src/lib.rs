//! # hone-core
//!
//! The engine of Hone, a workbench for authors of agent skills: folders with a
//! `SKILL.md` (YAML frontmatter, then markdown instructions) that agents
//! discover and load on demand.
//!
//! The engine is a plain library: no UI, no printing. The `hone` CLI, the MCP
//! server and the desktop app are thin adapters over it, so all give the same
//! answers. This crate is their one door: it owns no code, and re-exports the
//! modules of the crates that do, each a room with one concern, lowest first.
//! A crate imports only the crates below it (cargo refuses a cycle), and no
//! two modules of a crate import each other (`tests/layers.rs`).
//!
//! | crate | owns |
//! |---|---|
//! | `hone-skill` | the skill model and parsing: [`document`], [`yaml`], [`skill`], [`fields`], [`library`], [`folder`], [`diagnostic`], [`text`], [`edit`], [`workspace`], [`watch`], [`links`], [`render`], [`substitute`], [`cancel`] |
//! | `hone-clients` | tokens and the clients' listings: [`tokens`], [`clients`], [`catalog`] |
//! | `hone-rank` | ranking and the embedding models: [`rank`], [`embed`] |
//! | `hone-check` | the checks: [`rules`], [`security`], [`eval`], [`library_settings`] |
//! | `hone-agent` | language models: [`agent`], [`llm`], and the model [`install`]er |
//! | `hone-pack` | packs, plugins and installs into clients: [`pack`] |
//! | `hone-bench` | task evals run by the real agents: [`bench`] |
//!
//! ```
//! use hone_core::{document::SkillDocument, skill::Skill};
//! let doc = SkillDocument::parse("---\nname: pdf\ndescription: Reads PDFs.\n---\n# PDF\n".into());
//! let skill = Skill::from_document(std::path::Path::new("pdf"), doc);
//! assert_eq!(skill.id, "pdf");
//! assert_eq!(skill.body(), "# PDF\n");
//! ```

pub use hone_agent::{agent, install, llm};
pub use hone_bench::bench;
pub use hone_check::{eval, library_settings, rules, security};
pub use hone_clients::{catalog, clients, tokens};
pub use hone_pack::pack;
pub use hone_rank::{embed, rank};
pub use hone_skill::{
    cancel, diagnostic, document, edit, fields, folder, heap, library, links, render, skill,
    substitute, text, watch, workspace, yaml,
};
