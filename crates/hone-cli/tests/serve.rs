//! `hone serve` driven by a real MCP client: the official Python SDK (`mcp`
//! on PyPI) runs `tests/mcp/serve_client.py` against the built binary, over
//! stdio and over Streamable HTTP (see that script for every check).
//!
//! The SDK is found in `$HONE_MCP_PYTHON`, else in the virtual environment
//! `scripts/setup.sh` creates (`$XDG_CACHE_HOME/hone/mcp-venv`), else in
//! `python3` if it can import `mcp`. Without it these tests fail and say how
//! to install it (`make test` does): they never pass without having run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn sdk_python() -> Option<PathBuf> {
    let imports_mcp = |python: &Path| {
        Command::new(python)
            .args(["-c", "import mcp, mcp.client.streamable_http"])
            .output()
            .is_ok_and(|out| out.status.success())
    };
    if let Some(explicit) = std::env::var_os("HONE_MCP_PYTHON") {
        return Some(PathBuf::from(explicit));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")));
    let venv = cache.map(|c| c.join("hone/mcp-venv/bin/python"));
    [venv, Some(PathBuf::from("python3"))]
        .into_iter()
        .flatten()
        .find(|python| imports_mcp(python))
}

fn drive(transport: &str) {
    let python = sdk_python().expect(
        "the MCP Python SDK (`mcp` from PyPI) is not installed: scripts/install-mcp-sdk.sh installs it",
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp/serve_client.py");
    let output = Command::new(&python)
        .arg(script)
        .args([
            "--hone",
            env!("CARGO_BIN_EXE_hone"),
            "--transport",
            transport,
        ])
        // The tests pin BM25: they must not depend on the embedding model.
        .env_remove("HONE_MODEL")
        .output()
        .expect("the Python interpreter runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    assert!(
        output.status.success(),
        "the MCP client's checks failed over {transport}:\n{}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

#[test]
fn serve_over_stdio_with_the_python_sdk() {
    drive("stdio");
}

#[test]
fn serve_over_http_with_the_python_sdk() {
    drive("http");
}

#[test]
fn print_config_snippets() {
    let library = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_hone"))
            .arg("serve")
            .arg(&library)
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let claude = run(&["--print-config", "claude-code"]);
    assert!(
        claude.starts_with("claude mcp add --scope user hone-skills -- "),
        "{claude}"
    );
    assert!(claude.contains(" serve /"), "{claude}");
    let cursor: serde_json::Value = serde_json::from_str(&run(&[
        "--print-config",
        "cursor",
        "--http",
        "127.0.0.1:8808",
    ]))
    .unwrap();
    assert_eq!(
        cursor["mcpServers"]["hone-skills"]["url"],
        "http://127.0.0.1:8808/mcp"
    );
    let desktop: serde_json::Value =
        serde_json::from_str(&run(&["--print-config", "claude-desktop", "--strict"])).unwrap();
    let args = desktop["mcpServers"]["hone-skills"]["args"]
        .as_array()
        .unwrap();
    assert_eq!(args.last().unwrap(), "--strict");
}

#[test]
fn refuses_a_public_address_without_listen() {
    let output = Command::new(env!("CARGO_BIN_EXE_hone"))
        .args(["serve", "--http", "0.0.0.0:0"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not a loopback address") && stderr.contains("--listen"),
        "{stderr}"
    );
}

/// The retrieval view's hybrid ranking answers at once on a library whose
/// body sections were never embedded, embeds them beside serving, and finds
/// them all in the cache on the next start.
#[test]
fn hybrid_retrieval_serves_before_the_sections_are_embedded() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let model = hone_core::embed::resolve_model_dir(None);
    assert!(
        model.installed,
        "no embedding model at {}: run `hone model install` (`make test` does)",
        model.dir.display()
    );
    let library = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let cache = tempfile::tempdir().unwrap();
    // The server's log up to `last` (a line that contains it), or up to the
    // line it listens on when `last` is `None`.
    let serve_until = |last: Option<&str>| -> Vec<String> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hone"))
            .arg("serve")
            .arg(&library)
            .args(["--ranker", "hybrid", "--view", "retrieval"])
            .args(["--http", "127.0.0.1:0"])
            .env("XDG_CACHE_HOME", cache.path())
            .env("HONE_MODEL", &model.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut seen = Vec::new();
        for line in BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            let done = match last {
                Some(last) => line.contains(last),
                None => line.contains("at http://"),
            };
            seen.push(line);
            if done {
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        seen
    };
    let first = serve_until(Some("body sections embedded")).join("\n");
    let pending = first.find("body sections not embedded yet").expect(&first);
    let listening = first.find("at http://").expect(&first);
    let embedded = first.find("body sections embedded (").expect(&first);
    assert!(pending < listening && listening < embedded, "{first}");
    assert!(!first.contains("embedded (0 new)"), "{first}");
    let again = serve_until(None).join("\n");
    assert!(!again.contains("not embedded yet"), "{again}");
}
