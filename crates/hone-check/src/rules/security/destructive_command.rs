//! HS909 `destructive-command`: its documentation, what `hone rule HS909`
//! prints; the detector is `security::detect::destructive_command`.

crate::rules::rule_doc! {
    /// Commands that destroy data outside the workspace: `rm -rf` of `/`,
    /// `~`, `$HOME` or system folders, `mkfs` and `dd` onto a disk, `find / …
    /// -delete`, `chmod -R 777 /`, a fork bomb, Python's
    /// `shutil.rmtree(Path.home())`, Node's `fs.rmSync(os.homedir(), …)`,
    /// PowerShell's `Remove-Item -Recurse` of a drive or the user's profile,
    /// `Format-Volume`. Cleaning a build folder inside the workspace
    /// (`rm -rf ./dist`, `rm -rf "$TMPDIR/x"`) is not reported.
    ///
    /// Deleting the home folder or the system is critical. Formatting or
    /// overwriting a disk (`mkfs`, `dd of=/dev/…`) is high with low
    /// confidence, a review: imaging and server guides do it on purpose. A
    /// command named in a deny-list (`BLOCKED_COMMANDS=…`, "blocks `rm -rf
    /// /`") is low.
    ///
    /// ```bash
    /// rm -rf ~/ --no-preserve-root
    /// ```
}
