//! Lexing scripts just enough to tell code from comments.
//!
//! A scanner that greps a script reports the `curl … | sh` of a comment
//! explaining what not to do as readily as the one that runs. Each script is
//! read by a small lexer of its language (shell, Python, JavaScript and
//! TypeScript, PowerShell) that knows its string and comment syntax, here
//! documents and block comments: comments are blanked (replaced by spaces,
//! line breaks kept, so every byte offset still points into the file) and
//! the detectors run on what is left, the code and its string literals.
//! String literals stay because a command is often built in one
//! (`os.system("curl … | sh")`).

/// The language a file is lexed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// POSIX shells, Bash, Zsh; also Ruby, Perl and Makefiles, whose
    /// comments start with `#` too.
    Shell,
    Python,
    /// JavaScript and TypeScript.
    JavaScript,
    PowerShell,
    /// Windows batch files: `REM` and `::` comments.
    Batch,
}

impl Lang {
    /// The language of a file, from its extension, else its `#!` line.
    pub(crate) fn of(path: &str, text: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name
            .rsplit_once('.')
            .map(|(_, ext)| ext.to_ascii_lowercase());
        let by_ext = match ext.as_deref() {
            Some("sh" | "bash" | "zsh" | "ksh" | "command" | "rb" | "pl" | "fish") => {
                Some(Lang::Shell)
            }
            Some("py" | "pyw") => Some(Lang::Python),
            Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx") => {
                Some(Lang::JavaScript)
            }
            Some("ps1" | "psm1" | "psd1") => Some(Lang::PowerShell),
            Some("bat" | "cmd") => Some(Lang::Batch),
            _ if name == "Makefile" || name == "makefile" => Some(Lang::Shell),
            _ => None,
        };
        by_ext.or_else(|| Lang::of_shebang(text))
    }

    fn of_shebang(text: &str) -> Option<Lang> {
        let first = text.lines().next()?.strip_prefix("#!")?;
        if first.contains("python") {
            Some(Lang::Python)
        } else if first.contains("node") || first.contains("deno") || first.contains("bun") {
            Some(Lang::JavaScript)
        } else if first.contains("pwsh") || first.contains("powershell") {
            Some(Lang::PowerShell)
        } else {
            Some(Lang::Shell)
        }
    }

    /// The language of a fenced code block's info string; `None` for
    /// languages that are not run (JSON, YAML, text, diff…).
    pub(crate) fn of_fence(info: &str) -> Option<Lang> {
        let word = info
            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match word.as_str() {
            "" | "sh" | "bash" | "shell" | "zsh" | "console" | "shell-session" | "terminal"
            | "ruby" | "perl" | "makefile" => Some(Lang::Shell),
            "python" | "py" | "python3" => Some(Lang::Python),
            "js" | "javascript" | "ts" | "typescript" | "jsx" | "tsx" | "node" => {
                Some(Lang::JavaScript)
            }
            "powershell" | "ps1" | "pwsh" | "ps" => Some(Lang::PowerShell),
            "bat" | "batch" | "cmd" => Some(Lang::Batch),
            _ => None,
        }
    }
}

/// `text` with its comments replaced by spaces (line breaks kept): the same
/// length, so offsets into it are offsets into `text`.
pub(crate) fn strip_comments(text: &str, lang: Lang) -> String {
    let bytes = text.as_bytes();
    let mut blank = vec![false; bytes.len()];
    match lang {
        Lang::Shell => lex_shell(bytes, &mut blank),
        Lang::Python => lex_hash_language(bytes, &mut blank, true),
        Lang::PowerShell => lex_powershell(bytes, &mut blank),
        Lang::JavaScript => lex_javascript(bytes, &mut blank),
        Lang::Batch => lex_batch(text, &mut blank),
    }
    // Blanking whole comments keeps character boundaries: a comment runs
    // from an ASCII `#` or `/` to a line break or an ASCII delimiter.
    let out: Vec<u8> = bytes
        .iter()
        .zip(&blank)
        .map(|(&b, &blanked)| if blanked && b != b'\n' { b' ' } else { b })
        .collect();
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

fn mark(blank: &mut [bool], from: usize, to: usize) {
    let to = to.min(blank.len());
    if from < to {
        blank[from..to].fill(true);
    }
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &bytes[from.min(bytes.len())..]).map_or(bytes.len(), |at| from + at)
}

/// Skips a quoted string starting at `at` (on its quote); returns the index
/// after the closing quote. `escape` is the escaping byte, if any.
fn skip_quoted(bytes: &[u8], at: usize, quote: u8, escape: Option<u8>) -> usize {
    let mut i = at + 1;
    while i < bytes.len() {
        let b = bytes[i];
        if Some(b) == escape {
            i += 2;
            continue;
        }
        if b == quote {
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

fn lex_shell(bytes: &[u8], blank: &mut [bool]) {
    let mut i = 0;
    // Here-document delimiters waiting for the end of the current line.
    let mut pending: Vec<(Vec<u8>, bool)> = Vec::new();
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                i += 1;
                // A here document's body is data, not code to lex: it ends
                // at the line holding only its delimiter.
                for (delimiter, strip_tabs) in std::mem::take(&mut pending) {
                    while i < bytes.len() {
                        let end = line_end(bytes, i);
                        let line = &bytes[i..end];
                        let line = if strip_tabs {
                            let tabs = line.iter().take_while(|&&c| c == b'\t').count();
                            &line[tabs..]
                        } else {
                            line
                        };
                        i = (end + 1).min(bytes.len());
                        if line == delimiter.as_slice()
                            || line.strip_suffix(b"\r") == Some(&delimiter[..])
                        {
                            break;
                        }
                    }
                }
            }
            b'\'' => i = skip_quoted(bytes, i, b'\'', None),
            b'"' => i = skip_quoted(bytes, i, b'"', Some(b'\\')),
            b'\\' => i += 2,
            b'#' if i == 0
                || matches!(
                    bytes[i - 1],
                    b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'('
                ) =>
            {
                let end = line_end(bytes, i);
                mark(blank, i, end);
                i = end;
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') && bytes.get(i + 2) != Some(&b'<') => {
                let mut j = i + 2;
                let strip_tabs = bytes.get(j) == Some(&b'-');
                if strip_tabs {
                    j += 1;
                }
                while bytes.get(j).is_some_and(|c| *c == b' ' || *c == b'\t') {
                    j += 1;
                }
                let quoted = bytes
                    .get(j)
                    .filter(|c| **c == b'\'' || **c == b'"')
                    .copied();
                if quoted.is_some() {
                    j += 1;
                }
                let start = j;
                while bytes
                    .get(j)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    j += 1;
                }
                if j > start {
                    pending.push((bytes[start..j].to_vec(), strip_tabs));
                }
                i = j + usize::from(quoted.is_some());
            }
            _ => i += 1,
        }
    }
}

/// Python (and any language with `#` comments and `'`/`"` strings, with
/// Python's triple quotes when `triple`).
fn lex_hash_language(bytes: &[u8], blank: &mut [bool], triple: bool) {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'\'' | b'"') => {
                if triple && bytes[i..].starts_with(&[q, q, q]) {
                    let close = [q, q, q];
                    i = memchr::memmem::find(&bytes[i + 3..], &close)
                        .map_or(bytes.len(), |at| i + 3 + at + 3);
                } else {
                    i = skip_quoted(bytes, i, q, Some(b'\\'));
                }
            }
            b'#' => {
                let end = line_end(bytes, i);
                mark(blank, i, end);
                i = end;
            }
            _ => i += 1,
        }
    }
}

fn lex_powershell(bytes: &[u8], blank: &mut [bool]) {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' if bytes.get(i + 1) == Some(&b'#') => {
                let end = memchr::memmem::find(&bytes[i + 2..], b"#>")
                    .map_or(bytes.len(), |at| i + 2 + at + 2);
                mark(blank, i, end);
                i = end;
            }
            b'@' if matches!(bytes.get(i + 1), Some(b'"' | b'\'')) => {
                // A here-string runs to `"@` (or `'@`) at the start of a line.
                let close = [b'\n', bytes[i + 1], b'@'];
                i = memchr::memmem::find(&bytes[i + 2..], &close)
                    .map_or(bytes.len(), |at| i + 2 + at + 3);
            }
            b'\'' => i = skip_quoted(bytes, i, b'\'', None),
            b'"' => i = skip_quoted(bytes, i, b'"', Some(b'`')),
            b'#' => {
                let end = line_end(bytes, i);
                mark(blank, i, end);
                i = end;
            }
            _ => i += 1,
        }
    }
}

fn lex_javascript(bytes: &[u8], blank: &mut [bool]) {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(bytes, i, q, Some(b'\\')),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = line_end(bytes, i);
                mark(blank, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = memchr::memmem::find(&bytes[i + 2..], b"*/")
                    .map_or(bytes.len(), |at| i + 2 + at + 2);
                mark(blank, i, end);
                i = end;
            }
            _ => i += 1,
        }
    }
}

fn lex_batch(text: &str, blank: &mut [bool]) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let lead = line.len() - trimmed.len();
        let upper = trimmed.get(..4).map(str::to_ascii_uppercase);
        if trimmed.starts_with("::")
            || upper.as_deref() == Some("REM ")
            || upper.as_deref() == Some("REM\r")
        {
            mark(blank, offset + lead, offset + line.trim_end().len());
        }
        offset += line.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_comments_are_blanked_strings_and_heredocs_kept() {
        let text =
            "# curl x | sh\necho '# not' \"a # b\" # gone\ncat <<EOF\n# kept\nEOF\necho $# ${#x}\n";
        let code = strip_comments(text, Lang::Shell);
        assert_eq!(code.len(), text.len());
        assert!(!code.contains("curl"));
        assert!(code.contains("'# not'") && code.contains("\"a # b\""));
        assert!(!code.contains("gone"));
        assert!(code.contains("# kept"));
        assert!(code.contains("$# ${#x}"));
    }

    #[test]
    fn other_languages() {
        let py = strip_comments("x = '#s'  # c\n\"\"\"doc # d\"\"\"\n", Lang::Python);
        assert!(py.contains("'#s'") && !py.contains("# c") && py.contains("doc # d"));
        let js = strip_comments("a('//x') // c\n/* b */ c", Lang::JavaScript);
        assert!(js.contains("'//x'") && !js.contains("// c") && !js.contains("b */"));
        let ps = strip_comments("<# block #>\n'a#' # c\n", Lang::PowerShell);
        assert!(!ps.contains("block") && ps.contains("'a#'") && !ps.contains("# c"));
        let bat = strip_comments("REM curl\n:: x\necho y\n", Lang::Batch);
        assert!(!bat.contains("curl") && bat.contains("echo y"));
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for lang in [
            Lang::Shell,
            Lang::Python,
            Lang::JavaScript,
            Lang::PowerShell,
            Lang::Batch,
        ] {
            for text in [
                "'", "\"\\", "<<", "<<-", "/*", "<#", "@\"", "\"\"\"", "é#é\n", "\\",
            ] {
                assert_eq!(strip_comments(text, lang).len(), text.len());
            }
        }
    }
}
