//! HS909 `destructive-command`: its detector; the documentation is in
//! `rules/security/destructive_command.rs`.

use super::{pattern, statements};
use crate::rules::Rule;
use crate::security::{Code, Confidence, Hit, Threat};

pattern!(
    DESTRUCTIVE,
    r"\brm\s+(-{1,2}[\w-]+\s+)*-{1,2}[\w-]*([rR]|recursive)[\w-]*\s+(-{1,2}[\w-]+\s+)*['\x22]?(/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*|/etc|/usr|/var|/bin|/boot|/home|/Users|/System|/Library|\.\./\.\.|[A-Z]:\\)['\x22]?(\s|$|;|&|\|)|--no-preserve-root|\bmkfs(\.\w+)?\s+/dev/|\bdd\s+[^\n]*\bof=/dev/(sd|nvme|disk|hd|mmcblk|xvd|vd)|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|>\s*/dev/sd[a-z]\b|\bchmod\s+-R\s+0?777\s+/(\s|$)|\bchown\s+-R\s+\S+\s+/(\s|$)|\bfind\s+(/|~|\$HOME)\s+[^\n]*-delete\b|\bshred\s+[^\n]*(/dev/|~/|\$HOME)|\bshutil\.rmtree\s*\(\s*(os\.path\.expanduser\s*\(\s*['\x22]~/?['\x22]\s*\)|['\x22](/|~|~/|C:\\\\?)['\x22]|Path\.home\s*\(\s*\)\s*\)|os\.environ\s*\[\s*['\x22]HOME|os\.getenv\s*\(\s*['\x22]HOME)|\bfs\.(rmSync|rm|rmdirSync|rmdir)\s*\(\s*(os\.homedir\s*\(\s*\)|['\x22](/|~|C:\\\\?)['\x22])|\bRemove-Item\b[^\n]*-Recurse[^\n]*(\s['\x22]?[A-Z]:\\?['\x22]?(\s|$)|\$HOME\b|\$env:USERPROFILE\b|\s~['\x22]?(\s|$))|\b(Format-Volume|Clear-Disk)\b|\b(rd|rmdir)\s+/s\s+/q\s+[A-Z]:\\?(\s|$)|\bdel\s+/[fsq]\s+[^\n]*[A-Z]:\\\*"
);

// A line that lists commands to block or refuse (a deny-list, a safety
// hook's table) names them without running them.
pattern!(
    REFUSED,
    r"\b(block(s|ed|list|ing)?|deny(list)?|denied|forbid\w*|refus\w*|prevent\w*|reject\w*|disallow\w*|never\s+run|do\s+not\s+run|don't\s+run)\b|\b\w*(BLOCK|DENY|FORBID|DANGER|UNSAFE)\w*\s*[:=]"
);
// Formatting or overwriting a device: what disk-imaging and server set-up
// guides do on purpose, and what a reviewer must read before it runs.
pattern!(DEVICE_WRITE, r"^(mkfs|dd\b|>)");

pub(crate) fn check(code: Code, hits: &mut Vec<Hit>) {
    for (range, line) in statements(code.text) {
        if let Some(m) = DESTRUCTIVE.get().find(line) {
            let at = code.base + range.start;
            let command = m.as_str().trim();
            let (threat, confidence, message) = if REFUSED.get().is_match(line) {
                (
                    Threat::Low,
                    Confidence::Low,
                    format!(
                        "names a destructive command in a list of commands to refuse: `{command}`"
                    ),
                )
            } else if DEVICE_WRITE.get().is_match(command) {
                (
                    Threat::High,
                    Confidence::Low,
                    format!("formats or overwrites a disk: `{command}`"),
                )
            } else {
                (
                    Threat::Critical,
                    Confidence::High,
                    format!("destroys data outside the workspace: `{command}`"),
                )
            };
            hits.push(Hit::new(
                Rule::DestructiveCommand,
                threat,
                confidence,
                at + m.start()..at + m.end(),
                message,
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
        check(Code::plain(text, 0, Lang::Shell, 0), &mut hits);
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

    #[test]
    fn deny_lists_are_low() {
        let mut hits = Vec::new();
        let text = "BLOCKED=\"rm -rf / ,mkfs,:(){ :|:& };:\"\n";
        check(Code::plain(text, 0, Lang::Shell, 0), &mut hits);
        assert!(hits.iter().all(|h| h.threat == Threat::Low), "{hits:?}");
    }
}
