//! The installable artifacts, as a user gets them: the `.deb` that
//! `make bundle` writes is unpacked into a scratch root (`dpkg -x`, nothing is
//! installed on the machine), and the AppImage is run as a user runs it
//! (unpacked into a scratch cache by its runtime), through a link named
//! `hone`, and extracted (`--appimage-extract`). In each, `hone --version`
//! must answer and the app must start on the bundled library under a private
//! Xvfb display until its window says it is ready.
//!
//! The tests are ignored unless asked for, as their input is a build product:
//! `make test` builds the bundle and runs them with `--ignored`, and there a
//! missing bundle fails.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the app may take to show a ready window (WebKit's first start
/// on a busy two-core machine takes seconds; this is a failure, not a figure).
const READY_TIMEOUT: Duration = Duration::from_secs(120);

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/debug/bundle/<kind>`, beside the test binaries.
fn bundle_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("debug/bundle")
        .join(kind)
}

/// The bundle of this version, failing with what to run when it is absent.
fn artifact(kind: &str, name: &str) -> PathBuf {
    let path = bundle_dir(kind).join(name);
    assert!(
        path.is_file(),
        "{} is missing: run `make bundle BUNDLES={kind}` first",
        path.display()
    );
    path
}

fn run(command: &mut Command) -> String {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// `hone --version` of the unpacked command names this version.
fn assert_cli_runs(hone: &Path) {
    let version = run(Command::new(hone).arg("--version"));
    assert_eq!(version.trim(), concat!("hone ", env!("CARGO_PKG_VERSION")));
    run(Command::new(hone)
        .arg("check")
        .arg(repo_root().join("skills")));
}

/// A child stopped when dropped: asked first, then killed, so WebKit's
/// processes end with the app and Xvfb with the test.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(pid) = i32::try_from(self.0.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if !matches!(self.0.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Xvfb on a display number it picks itself (`-displayfd`), once it listens.
fn start_display() -> (Process, String) {
    let mut child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", "1600x1000x24"])
        .args(["-nolisten", "tcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts (scripts/setup-app.sh installs it)");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("Xvfb writes its display number");
    assert!(!line.trim().is_empty(), "Xvfb exited before it listened");
    (Process(child), format!(":{}", line.trim()))
}

/// Starts `app` (a command line) on the bundled library and waits for the
/// line the app prints once the window has marked itself ready.
fn assert_app_starts(app: &mut Command) {
    let (_xvfb, display) = start_display();
    let config = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut child = app
        .arg(repo_root().join("skills"))
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("HONE_CONFIG_DIR", config.path())
        .env("XDG_DATA_HOME", data.path())
        .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
        .env("NO_AT_BRIDGE", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the app starts");
    let stderr = child.stderr.take().expect("piped");
    let app = Process(child);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let started = Instant::now();
    let mut said = Vec::new();
    loop {
        match receiver.recv_timeout(Duration::from_millis(200)) {
            Ok(line) if line.starts_with("hone: ready") => {
                println!("bundle: {line}");
                break;
            }
            Ok(line) => said.push(line),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                panic!(
                    "the app exited before its window was ready:\n{}",
                    said.join("\n")
                )
            }
        }
        assert!(
            started.elapsed() < READY_TIMEOUT,
            "the window was not ready after {READY_TIMEOUT:?}:\n{}",
            said.join("\n")
        );
    }
    drop(app);
}

#[test]
#[ignore = "needs the .deb: `make bundle`, then `cargo test --test bundle -- --ignored` (make test does both)"]
fn bundle_deb_unpacks_and_runs() {
    let deb = artifact(
        "deb",
        concat!("Hone_", env!("CARGO_PKG_VERSION"), "_amd64.deb"),
    );
    let depends = run(Command::new("dpkg-deb")
        .args(["--field"])
        .arg(&deb)
        .arg("Depends"));
    assert!(
        depends.contains("libwebkit2gtk-4.1-0") && depends.contains("libgtk-3-0"),
        "the package should depend on WebKitGTK and GTK: {depends}"
    );
    let root = tempfile::tempdir().unwrap();
    run(Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(root.path()));
    let usr = root.path().join("usr");
    for file in [
        "bin/hone",
        "bin/hone-app",
        "share/applications/Hone.desktop",
    ] {
        assert!(usr.join(file).is_file(), "the package lacks /usr/{file}");
    }
    assert_cli_runs(&usr.join("bin/hone"));
    assert_app_starts(&mut Command::new(usr.join("bin/hone-app")));
}

#[test]
#[ignore = "needs the AppImage: `make bundle`, then `cargo test --test bundle -- --ignored` (make test does both)"]
fn bundle_appimage_runs_and_extracts() {
    let image = artifact(
        "appimage",
        concat!("Hone_", env!("CARGO_PKG_VERSION"), "_amd64.AppImage"),
    );
    let scratch = tempfile::tempdir().unwrap();
    let cache = scratch.path().join("cache");

    // As a user starts it: the runtime unpacks it into the cache, once.
    assert_app_starts(Command::new(&image).env("XDG_CACHE_HOME", &cache));
    let unpacked: Vec<_> = std::fs::read_dir(cache.join("hone/appimage"))
        .expect("the first start unpacked the app into the cache")
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(unpacked.len(), 1, "one folder per version: {unpacked:?}");
    assert!(unpacked[0].join("usr/bin/hone-app").is_file());

    // A link named `hone` is the command.
    let hone = scratch.path().join("hone");
    std::os::unix::fs::symlink(&image, &hone).unwrap();
    let version = run(Command::new(&hone)
        .arg("--version")
        .env("XDG_CACHE_HOME", &cache));
    assert_eq!(version.trim(), concat!("hone ", env!("CARGO_PKG_VERSION")));

    // Unpacked by hand, it holds the command and an AppRun that starts the app.
    run(Command::new(&image)
        .arg("--appimage-extract")
        .current_dir(scratch.path()));
    let app_dir = scratch.path().join("squashfs-root");
    for file in [
        "Hone.desktop",
        "hone-app.png",
        "usr/share/applications/Hone.desktop",
    ] {
        assert!(app_dir.join(file).is_file(), "the AppImage lacks {file}");
    }
    assert_cli_runs(&app_dir.join("usr/bin/hone"));
    assert_app_starts(&mut Command::new(app_dir.join("AppRun")));
}
