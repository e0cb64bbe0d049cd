//! HS909 `destructive-command`: its documentation and detector.

use super::{pattern, statements};
use crate::rules::Rule;
use crate::security::{Code, Confidence, Hit, Threat};

crate::rules::rule_doc! {
    /// Commands that destroy data outside the workspace: `rm -rf` of `/`,
    /// `~`, `$HOME` or system folders, `mkfs` and `dd` onto a disk, `find / …
    /// -delete`, `chmod -R 777 /`, a fork bomb, Python's
    /// `shutil.rmtree(Path.home())`, Node's `fs.rmSync(os.homedir(), …)`,
    /// PowerShell's `Remove-Item -Recurse` of a drive or the user's profile,
    /// `Format-Volume`. Cleaning a build folder inside the workspace
    /// (`rm -rf ./dist`, `rm -rf "$TMPDIR/x"`) is not reported.
    ///
    /// ```bash
    /// rm -rf ~/ --no-preserve-root
    /// ```
}

pattern!(
    DESTRUCTIVE,
    r"\brm\s+(-{1,2}[\w-]+\s+)*-{1,2}[\w-]*([rR]|recursive)[\w-]*\s+(-{1,2}[\w-]+\s+)*['\x22]?(/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*|/etc|/usr|/var|/bin|/boot|/home|/Users|/System|/Library|\.\./\.\.|[A-Z]:\\)['\x22]?(\s|$|;|&|\|)|--no-preserve-root|\bmkfs(\.\w+)?\s+/dev/|\bdd\s+[^\n]*\bof=/dev/(sd|nvme|disk|hd|mmcblk|xvd|vd)|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|>\s*/dev/sd[a-z]\b|\bchmod\s+-R\s+0?777\s+/(\s|$)|\bchown\s+-R\s+\S+\s+/(\s|$)|\bfind\s+(/|~|\$HOME)\s+[^\n]*-delete\b|\bshred\s+[^\n]*(/dev/|~/|\$HOME)|\bshutil\.rmtree\s*\(\s*(os\.path\.expanduser\s*\(\s*['\x22]~/?['\x22]\s*\)|['\x22](/|~|~/|C:\\\\?)['\x22]|Path\.home\s*\(\s*\)\s*\)|os\.environ\s*\[\s*['\x22]HOME|os\.getenv\s*\(\s*['\x22]HOME)|\bfs\.(rmSync|rm|rmdirSync|rmdir)\s*\(\s*(os\.homedir\s*\(\s*\)|['\x22](/|~|C:\\\\?)['\x22])|\bRemove-Item\b[^\n]*-Recurse[^\n]*(\s['\x22]?[A-Z]:\\?['\x22]?(\s|$)|\$HOME\b|\$env:USERPROFILE\b|\s~['\x22]?(\s|$))|\b(Format-Volume|Clear-Disk)\b|\b(rd|rmdir)\s+/s\s+/q\s+[A-Z]:\\?(\s|$)|\bdel\s+/[fsq]\s+[^\n]*[A-Z]:\\\*"
);

pub(crate) fn check(code: Code, hits: &mut Vec<Hit>) {
    for (range, line) in statements(code.text) {
        if let Some(m) = DESTRUCTIVE.find(line) {
            let at = code.base + range.start;
            hits.push(Hit::new(
                Rule::DestructiveCommand,
                Threat::Critical,
                Confidence::High,
                at + m.start()..at + m.end(),
                format!(
                    "destroys data outside the workspace: `{}`",
                    m.as_str().trim()
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::lex::Lang;

    fn count(text: &str) -> usize {
        let mut hits = Vec::new();
        check(
            Code {
                text,
                base: 0,
                lang: Lang::Shell,
                depth: 0,
            },
            &mut hits,
        );
        hits.len()
    }

    #[test]
    fn outside_the_workspace_only() {
        assert_eq!(count("rm -rf ~/\n"), 1);
        assert_eq!(count("sudo rm -rf / --no-preserve-root\n"), 1);
        assert_eq!(count("rm -rf \"$HOME\"\n"), 1);
        assert_eq!(count("shutil.rmtree(Path.home())\n"), 1);
        assert_eq!(
            count("rm -rf ./dist build/ \"$TMPDIR/x\" ~/.cache/hone\n"),
            0
        );
        assert_eq!(count("dd if=/dev/zero of=/dev/sda bs=1M\n"), 1);
    }
}
