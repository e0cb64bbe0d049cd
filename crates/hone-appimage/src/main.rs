//! The runtime at the head of Hone's AppImage (`Hone_<version>_amd64.AppImage`).
//!
//! An AppImage (type 2 of the AppImage specification) is an ELF program, the
//! runtime, with a SquashFS filesystem appended after its ELF part and
//! `AI\x02` at byte 8 of the file. The AppImage project's runtime mounts that
//! filesystem with FUSE and runs the `AppRun` at its root. That runtime, and
//! the tools that make AppImages with it, are published on GitHub, which
//! Hone's build cannot reach (it may use only the package registries), so
//! Hone carries its own runtime, `scripts/bundle-appimage.sh` appends the
//! image the reference `mksquashfs` makes, and `tests/bundle.rs` runs the
//! result.
//!
//! This runtime never mounts. The first start of an image unpacks it into
//! the user's cache, `$XDG_CACHE_HOME/hone/appimage/<fingerprint>` (or
//! `~/.cache/…`), and every start runs it from there: no FUSE, no set-user-ID
//! `fusermount`, nothing to unmount, at the cost of the unpacked size on disk
//! and a first start that takes seconds. Unpacking goes into a `.part` folder
//! renamed into place when complete, so a start that is killed midway, or
//! two starts at once, never leave a half-unpacked app that a later start
//! would run. A new version's first start removes the older versions'
//! folders that no running program uses. When the cache cannot be written,
//! the image is unpacked into a temporary folder that is removed when the
//! app exits.
//!
//! It answers the reference runtime's options that need no mount (as the
//! first argument; every other argument goes to `AppRun`), and sets the
//! variables it sets for `AppRun`: `APPIMAGE` (this file), `APPDIR` (the
//! unpacked folder), `OWD` (the folder it was started in) and `ARGV0` (the
//! name it was started by: Hone's `AppRun` runs the `hone` command when that
//! name is `hone`, so a link named `hone` to the AppImage is the command).

mod image;
mod unpack;

use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use globset::Glob;

use crate::image::Image;
use crate::unpack::unpack;

const HELP: &str = "\
Hone's AppImage: the Hone app, and the `hone` command through a link named `hone`.

Usage:
  Hone.AppImage [ARGS...]        start the app (ARGS go to it, such as a library's folder)
  hone [ARGS...]                 with a link named `hone` to the AppImage: the `hone` command

Options of the AppImage itself, as its first argument:
  --appimage-extract [PATTERN]   unpack its files into ./squashfs-root (only the paths, such as
                                 usr/bin/hone, that match the glob PATTERN)
  --appimage-extract-and-run     unpack into a temporary folder, run, and remove the folder
                                 afterwards (also APPIMAGE_EXTRACT_AND_RUN=1)
  --appimage-offset              print where its filesystem starts in the file, in bytes
  --appimage-help                print this help
  --appimage-version             print the runtime's version

The first start of each version unpacks the app into $XDG_CACHE_HOME/hone/appimage/ (by default
~/.cache/hone/appimage/); later starts run it from there. This runtime does not mount the image
with FUSE. The folder may be removed whenever Hone is not running.
";

/// A failure: what to print, and the exit code (2 for a usage error).
struct Failure(String, u8);

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure(message, 1)
    }
}

fn main() -> ExitCode {
    match run(std::env::args_os().collect()) {
        Ok(code) => code,
        Err(Failure(message, code)) => {
            eprintln!("hone-appimage: {message}");
            ExitCode::from(code)
        }
    }
}

fn run(mut args: Vec<OsString>) -> Result<ExitCode, Failure> {
    let argv0 = if args.is_empty() {
        OsString::new()
    } else {
        args.remove(0)
    };
    let option = args
        .first()
        .and_then(|arg| arg.to_str())
        .filter(|arg| arg.starts_with("--appimage-"))
        .map(str::to_owned);
    let image = || -> Result<Image, Failure> {
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find this program's own file: {e}"))?;
        Ok(Image::open(&exe)?)
    };
    match option.as_deref() {
        None if std::env::var_os("APPIMAGE_EXTRACT_AND_RUN").is_some_and(|v| v == "1") => {
            extract_and_run(&image()?, args, argv0)
        }
        None => run_from_cache(&image()?, args, argv0),
        Some("--appimage-help") => {
            print!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        Some("--appimage-version") => {
            println!("hone-appimage-runtime {}", env!("CARGO_PKG_VERSION"));
            Ok(ExitCode::SUCCESS)
        }
        Some("--appimage-offset") => {
            println!("{}", image()?.offset);
            Ok(ExitCode::SUCCESS)
        }
        Some("--appimage-extract") => {
            let only = match args.get(1) {
                None => None,
                Some(pattern) => {
                    let pattern = pattern.to_string_lossy();
                    let glob = Glob::new(&pattern).map_err(|e| {
                        Failure(format!("{pattern:?} is not a glob pattern: {e}"), 2)
                    })?;
                    Some(glob.compile_matcher())
                }
            };
            let into = Path::new("squashfs-root");
            if into.symlink_metadata().is_ok() {
                return Err(Failure(
                    "squashfs-root already exists here: remove it, or extract in another folder"
                        .to_owned(),
                    1,
                ));
            }
            let unpacked = unpack(&image()?, into, only.as_ref())?;
            eprintln!(
                "unpacked {} file(s), {} bytes, into squashfs-root",
                unpacked.files, unpacked.bytes
            );
            Ok(ExitCode::SUCCESS)
        }
        Some("--appimage-extract-and-run") => {
            args.remove(0);
            extract_and_run(&image()?, args, argv0)
        }
        Some(other) => Err(Failure(
            format!(
                "{other} is not an option of this AppImage (it does not mount with FUSE); \
                 --appimage-help lists those it has"
            ),
            2,
        )),
    }
}

/// Runs the image from the user's cache, unpacking it there first if this
/// version has never started; from a temporary folder when the cache cannot
/// be used.
fn run_from_cache(
    image: &Image,
    args: Vec<OsString>,
    argv0: OsString,
) -> Result<ExitCode, Failure> {
    let Some(root) = cache_root() else {
        eprintln!(
            "hone-appimage: no cache folder (neither XDG_CACHE_HOME nor HOME is set): running from a temporary copy"
        );
        return extract_and_run(image, args, argv0);
    };
    match unpacked_in_cache(image, &root) {
        Ok(folder) => {
            let error = app_run(image, &folder, args, argv0).exec();
            Err(format!("cannot start {}: {error}", folder.join("AppRun").display()).into())
        }
        Err(Failure(message, _)) => {
            eprintln!("hone-appimage: {message}: running from a temporary copy");
            extract_and_run(image, args, argv0)
        }
    }
}

/// `$XDG_CACHE_HOME/hone/appimage`, or `$HOME/.cache/hone/appimage`.
fn cache_root() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|path| path.is_absolute())
                .map(|home| home.join(".cache"))
        })?;
    Some(cache.join("hone").join("appimage"))
}

/// The image's folder in the cache, unpacked there if it is not yet.
fn unpacked_in_cache(image: &Image, root: &Path) -> Result<PathBuf, Failure> {
    let fingerprint = image.fingerprint()?;
    let folder = root.join(&fingerprint);
    if folder.join("AppRun").is_file() {
        return Ok(folder);
    }
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    remove_abandoned_parts(root, &fingerprint);
    let part = root.join(format!("{fingerprint}.part-{}", std::process::id()));
    eprintln!(
        "hone-appimage: the first start of this version unpacks it into {}",
        folder.display()
    );
    if let Err(error) = unpack(image, &part, None) {
        let _ = std::fs::remove_dir_all(&part);
        return Err(error.into());
    }
    if let Err(error) = std::fs::rename(&part, &folder) {
        let _ = std::fs::remove_dir_all(&part);
        // Another start of the same version finished first: use its folder.
        if !folder.join("AppRun").is_file() {
            return Err(format!(
                "cannot move the unpacked app to {} ({error}): remove that folder and start again",
                folder.display()
            )
            .into());
        }
    }
    remove_unused_versions(root, &fingerprint);
    Ok(folder)
}

/// Removes the other versions' folders (each some 360 MB) that no running
/// program was started from, so that updating Hone does not pile them up in
/// the cache. A folder stays while any process's executable lies in it, or
/// when the processes cannot be read.
fn remove_unused_versions(root: &Path, current: &str) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let Some(running) = running_executables() else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let is_version = name.len() == 16 && name.bytes().all(|b| b.is_ascii_hexdigit());
        let path = entry.path();
        if is_version && name != current && !running.iter().any(|exe| exe.starts_with(&path)) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// The executable of every process this user can see (`/proc/PID/exe`).
fn running_executables() -> Option<Vec<PathBuf>> {
    let processes = std::fs::read_dir("/proc").ok()?;
    Some(
        processes
            .flatten()
            .filter(|entry| {
                entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            })
            .filter_map(|entry| std::fs::read_link(entry.path().join("exe")).ok())
            .collect(),
    )
}

/// Removes the `.part` folders of `fingerprint` that a start which is no
/// longer running left behind (it was killed while unpacking).
fn remove_abandoned_parts(root: &Path, fingerprint: &str) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let prefix = format!("{fingerprint}.part-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|name| name.strip_prefix(&prefix)) else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Unpacks the image into a new temporary folder, runs it, removes the
/// folder and exits as the app did.
fn extract_and_run(
    image: &Image,
    args: Vec<OsString>,
    argv0: OsString,
) -> Result<ExitCode, Failure> {
    let folder = std::env::temp_dir().join(format!(
        "hone-appimage-{}-{}",
        image.fingerprint()?,
        std::process::id()
    ));
    if let Err(error) = unpack(image, &folder, None) {
        let _ = std::fs::remove_dir_all(&folder);
        return Err(error.into());
    }
    let status = app_run(image, &folder, args, argv0).status();
    let _ = std::fs::remove_dir_all(&folder);
    let status =
        status.map_err(|e| format!("cannot start {}: {e}", folder.join("AppRun").display()))?;
    // A signal's end is reported as a shell would: 128 + the signal.
    let code = status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1);
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// The command that runs `AppRun` in `folder`, with the variables an
/// AppImage's `AppRun` expects.
fn app_run(image: &Image, folder: &Path, args: Vec<OsString>, argv0: OsString) -> Command {
    let mut command = Command::new(folder.join("AppRun"));
    command
        .args(args)
        .env("APPIMAGE", &image.path)
        .env("APPDIR", folder)
        .env("ARGV0", argv0);
    if let Ok(here) = std::env::current_dir() {
        command.env("OWD", here);
    }
    command
}
