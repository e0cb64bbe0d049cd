//! The runtime on a small AppImage made as `scripts/bundle-appimage.sh` makes
//! Hone's: the runtime with a filesystem from the reference `mksquashfs`
//! appended (Debian's squashfs-tools, which `make` installs; the tests fail
//! without it). Its `AppRun` prints what it was given, so each test sees
//! what the app would.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch folder holding `Tool.AppImage` and a cache folder for it.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("Tool.AppDir");
        std::fs::create_dir_all(app.join("usr/bin")).unwrap();
        std::fs::create_dir_all(app.join("usr/share/doc")).unwrap();
        write_script(
            &app.join("AppRun"),
            "#!/bin/sh\necho \"args=$*\"\necho \"argv0=$ARGV0\"\necho \"appimage=$APPIMAGE\"\n\
             echo \"appdir=$APPDIR\"\necho \"owd=$OWD\"\nexec \"$APPDIR/usr/bin/tool\"\n",
        );
        write_script(
            &app.join("usr/bin/tool"),
            "#!/bin/sh\necho tool ran\nexit 7\n",
        );
        std::fs::write(app.join("usr/share/doc/readme"), "x".repeat(300_000)).unwrap();
        std::os::unix::fs::symlink("usr/bin/tool", app.join("tool")).unwrap();
        let filesystem = dir.path().join("image.squashfs");
        let made = Command::new("mksquashfs")
            .arg(&app)
            .arg(&filesystem)
            .args([
                "-comp",
                "lz4",
                "-all-root",
                "-noappend",
                "-quiet",
                "-no-progress",
            ])
            .output()
            .expect(
                "mksquashfs runs (apt install squashfs-tools; scripts/setup-app.sh installs it)",
            );
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let mut image = std::fs::read(env!("CARGO_BIN_EXE_hone-appimage-runtime")).unwrap();
        image[8..11].copy_from_slice(b"AI\x02");
        image.extend(std::fs::read(&filesystem).unwrap());
        let path = dir.path().join("Tool.AppImage");
        std::fs::write(&path, image).unwrap();
        set_mode(&path, 0o755);
        Fixture { dir }
    }

    fn image(&self) -> PathBuf {
        self.dir.path().join("Tool.AppImage")
    }

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// Runs the image (or `program`, a link to it) with the fixture's cache
    /// and no `APPIMAGE_EXTRACT_AND_RUN` from the test's environment.
    fn run(&self, program: &Path, args: &[&str]) -> Output {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("XDG_CACHE_HOME", self.cache())
            .env_remove("APPIMAGE_EXTRACT_AND_RUN");
        retrying_while_busy(|| command.output())
    }

    /// The folders under the cache's `hone/appimage`.
    fn unpacked(&self) -> Vec<PathBuf> {
        match std::fs::read_dir(self.cache().join("hone/appimage")) {
            Ok(entries) => entries.map(|entry| entry.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// The runtime's length: where an image's filesystem starts.
fn runtime_len() -> u64 {
    std::fs::metadata(env!("CARGO_BIN_EXE_hone-appimage-runtime"))
        .unwrap()
        .len()
}

/// Runs `start` again while the program is "text file busy": a test that
/// has just written an executable can have its write handle copied into a
/// child that another test's thread forks at that moment, until that child
/// execs.
fn retrying_while_busy<T>(mut start: impl FnMut() -> std::io::Result<T>) -> T {
    const TEXT_FILE_BUSY: i32 = 26;
    // Up to 30 s: a loaded machine can leave a forked child long before it execs.
    for _ in 0..3000 {
        match start() {
            Err(e) if e.raw_os_error() == Some(TEXT_FILE_BUSY) => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            result => return result.unwrap(),
        }
    }
    panic!("the program stayed busy for 30 s");
}

fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    set_mode(path, 0o755);
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `output` ended with `code` and said `says` on stderr.
fn assert_fails(output: &Output, code: i32, says: &str) {
    assert_eq!(output.status.code(), Some(code), "{}", stderr(output));
    assert!(stderr(output).contains(says), "{}", stderr(output));
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_first_start_unpacks_into_the_cache_and_later_starts_run_from_it() {
    let fixture = Fixture::new();
    let first = fixture.run(&fixture.image(), &["a b", "--flag"]);
    assert_eq!(first.status.code(), Some(7), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("first start of this version unpacks it"),
        "{}",
        stderr(&first)
    );
    let unpacked = fixture.unpacked();
    assert_eq!(unpacked.len(), 1, "{unpacked:?}");
    let folder = &unpacked[0];
    let out = stdout(&first);
    assert!(out.contains("args=a b --flag\n"), "{out}");
    assert!(
        out.contains(&format!("appimage={}\n", fixture.image().display())),
        "{out}"
    );
    assert!(
        out.contains(&format!("appdir={}\n", folder.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!("owd={}\n", fixture.dir.path().display())),
        "{out}"
    );
    assert!(
        out.contains(&format!("argv0={}\n", fixture.image().display())),
        "{out}"
    );
    assert!(out.ends_with("tool ran\n"), "{out}");
    assert_eq!(
        std::fs::read_link(folder.join("tool")).unwrap(),
        Path::new("usr/bin/tool")
    );
    assert_eq!(
        std::fs::read(folder.join("usr/share/doc/readme"))
            .unwrap()
            .len(),
        300_000
    );

    let second = fixture.run(&fixture.image(), &[]);
    assert_eq!(second.status.code(), Some(7));
    assert!(stderr(&second).is_empty(), "{}", stderr(&second));
    assert_eq!(fixture.unpacked(), unpacked);
}

#[test]
fn a_new_version_removes_the_older_ones_nothing_runs_from() {
    let fixture = Fixture::new();
    let root = fixture.cache().join("hone/appimage");
    let (unused, in_use) = (root.join("0123456789abcdef"), root.join("fedcba9876543210"));
    for folder in [&unused, &in_use] {
        std::fs::create_dir_all(folder.join("usr/bin")).unwrap();
    }
    // A program started from the second folder, as an older Hone still open.
    let sleep = in_use.join("usr/bin/sleep");
    std::fs::copy("/bin/sleep", &sleep).unwrap();
    let mut running = retrying_while_busy(|| Command::new(&sleep).arg("60").spawn());
    let other = root.join("notes");
    std::fs::create_dir_all(&other).unwrap();

    let output = fixture.run(&fixture.image(), &[]);
    running.kill().unwrap();
    running.wait().unwrap();
    assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
    assert!(!unused.exists(), "the unused older version is removed");
    assert!(in_use.exists(), "the version a program runs from is kept");
    assert!(other.exists(), "what is not a version's folder is kept");
    assert_eq!(fixture.unpacked().len(), 3);
}

#[test]
fn a_link_passes_its_own_name_as_argv0() {
    let fixture = Fixture::new();
    let link = fixture.dir.path().join("tool");
    std::os::unix::fs::symlink(fixture.image(), &link).unwrap();
    let output = fixture.run(&link, &[]);
    assert!(
        stdout(&output).contains(&format!("argv0={}\n", link.display())),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_start_killed_while_unpacking_leaves_nothing_a_later_start_runs() {
    let fixture = Fixture::new();
    fixture.run(&fixture.image(), &[]);
    let folder = fixture.unpacked().pop().unwrap();
    std::fs::remove_dir_all(&folder).unwrap();
    // What a start killed midway leaves: a `.part` folder of a process
    // that is gone (PIDs never reach 2^22 + 1 on Linux).
    let abandoned = PathBuf::from(format!("{}.part-4194305", folder.display()));
    std::fs::create_dir_all(abandoned.join("usr")).unwrap();
    let output = fixture.run(&fixture.image(), &[]);
    assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
    assert_eq!(fixture.unpacked(), vec![folder]);
}

#[test]
fn extract_and_run_removes_its_folder_afterwards() {
    let fixture = Fixture::new();
    let temp = fixture.dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    for (args, extract_and_run) in [
        (&["--appimage-extract-and-run", "x"][..], None),
        (&["x"][..], Some("1")),
    ] {
        let mut command = Command::new(fixture.image());
        command
            .args(args)
            .env("TMPDIR", &temp)
            .env("XDG_CACHE_HOME", fixture.cache());
        match extract_and_run {
            Some(value) => command.env("APPIMAGE_EXTRACT_AND_RUN", value),
            None => command.env_remove("APPIMAGE_EXTRACT_AND_RUN"),
        };
        let output = retrying_while_busy(|| command.output());
        assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
        assert!(stdout(&output).contains("args=x\n"), "{}", stdout(&output));
        assert!(stdout(&output).contains(&format!("appdir={}/hone-appimage-", temp.display())));
        assert_eq!(std::fs::read_dir(&temp).unwrap().count(), 0);
    }
    assert!(fixture.unpacked().is_empty(), "the cache is not used");
}

#[test]
fn extract_unpacks_into_squashfs_root_and_never_over_it() {
    let fixture = Fixture::new();
    let output = fixture.run(&fixture.image(), &["--appimage-extract", "usr/bin/*"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let root = fixture.dir.path().join("squashfs-root");
    assert!(root.join("usr/bin/tool").is_file());
    assert!(!root.join("AppRun").exists() && !root.join("usr/share").exists());

    let again = fixture.run(&fixture.image(), &["--appimage-extract"]);
    assert_fails(&again, 1, "squashfs-root already exists");

    std::fs::remove_dir_all(&root).unwrap();
    let all = fixture.run(&fixture.image(), &["--appimage-extract"]);
    assert!(all.status.success(), "{}", stderr(&all));
    for file in ["AppRun", "usr/bin/tool", "usr/share/doc/readme"] {
        assert!(root.join(file).is_file(), "{file}");
    }
    let offset = stdout(&fixture.run(&fixture.image(), &["--appimage-offset"]));
    assert_eq!(offset.trim(), runtime_len().to_string());
}

#[test]
fn options_it_lacks_and_damaged_images_fail_with_a_reason() {
    let fixture = Fixture::new();
    let mount = fixture.run(&fixture.image(), &["--appimage-mount"]);
    assert_fails(&mount, 2, "does not mount with FUSE");

    let help = fixture.run(&fixture.image(), &["--appimage-help"]);
    assert!(stdout(&help).contains("--appimage-extract [PATTERN]"));

    // Cut short in its filesystem: refused before anything is unpacked.
    let image = std::fs::read(fixture.image()).unwrap();
    let cut = fixture.dir.path().join("Cut.AppImage");
    std::fs::write(&cut, &image[..runtime_len() as usize + 128]).unwrap();
    set_mode(&cut, 0o755);
    let output = fixture.run(&cut, &[]);
    assert_fails(&output, 1, "damaged");
    assert!(!stdout(&output).contains("tool ran"));
}
