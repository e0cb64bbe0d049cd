//! One module per subcommand: its arguments and its `run`.

pub(crate) mod agent;
pub mod bench;
pub mod check;
pub mod clients;
pub mod eval;
pub mod install;
pub mod model;
pub mod pack;
pub mod prompt;
pub mod rule;
pub mod scan;
pub mod search;
pub mod serve;
pub mod tokens;
pub mod unpack;
