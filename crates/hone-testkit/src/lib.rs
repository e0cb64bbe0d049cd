//! What Hone's tests and benchmarks share but its users never need: synthetic
//! libraries at sizes no real library reaches yet, and the process figures
//! benchmarks print. Kept out of the engine so
//! the engine's public API is only what the CLI and the app use.

pub mod git;
pub mod measure;
pub mod synth;
