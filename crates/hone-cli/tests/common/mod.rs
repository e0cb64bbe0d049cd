//! What the CLI's end-to-end tests share: the bundled library, and a run of
//! `hone` read back as exit code, stdout and stderr.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The bundled library, `skills/` at the top of the repository.
pub fn skills() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")
}

/// Runs `cmd` to its end: exit code, stdout, stderr.
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let output = cmd.output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (
        output.status.code().unwrap(),
        text(output.stdout),
        text(output.stderr),
    )
}
