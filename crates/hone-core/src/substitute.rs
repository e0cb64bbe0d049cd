//! Claude Code's substitutions: what a skill's body becomes when it is invoked
//! with arguments.
//!
//! The app previews them and `hone serve` applies them when an agent loads a
//! skill, so both follow one reading of Claude Code's rules:
//!
//! - `$ARGUMENTS` is the argument string exactly as typed;
//! - `$ARGUMENTS[N]` and its shorthand `$N` are the N-th argument (from 0),
//!   the string split the way a shell splits words (quotes group and are
//!   removed); a position with no argument is left as written;
//! - `${CLAUDE_SKILL_DIR}` is the skill's folder;
//! - when the body has no `$ARGUMENTS` (in any form; `$N` alone does not
//!   count) and arguments were given, they are appended as a last line
//!   `ARGUMENTS: …`, so they are never lost.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The placeholder for the whole argument string.
pub const ARGUMENTS: &str = "$ARGUMENTS";
/// The placeholder for the skill's folder.
pub const SKILL_DIR: &str = "${CLAUDE_SKILL_DIR}";

/// One placeholder and what it becomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Substitution {
    pub placeholder: String,
    pub becomes: String,
}

/// What the two named placeholders become for `arguments` in the skill at
/// `skill_dir` (the preview the app shows).
pub fn placeholders(skill_dir: &Path, arguments: &str) -> Vec<Substitution> {
    vec![
        Substitution {
            placeholder: ARGUMENTS.into(),
            becomes: arguments.to_owned(),
        },
        Substitution {
            placeholder: SKILL_DIR.into(),
            becomes: skill_dir.to_string_lossy().into_owned(),
        },
    ]
}

/// `body` with every placeholder replaced, as Claude Code renders a skill
/// invoked with `arguments` (see the module docs).
pub fn apply(body: &str, arguments: &str, skill_dir: &Path) -> String {
    let words = split_words(arguments);
    let dir = skill_dir.to_string_lossy();
    let mut out = String::with_capacity(body.len() + arguments.len());
    let mut saw_arguments = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix(SKILL_DIR) {
            out.push_str(&dir);
            rest = after;
        } else if let Some(after) = tail.strip_prefix(ARGUMENTS) {
            saw_arguments = true;
            match indexed(after) {
                Some((index, after_index)) => {
                    match words.get(index) {
                        Some(word) => out.push_str(word),
                        None => out.push_str(&tail[..tail.len() - after_index.len()]),
                    }
                    rest = after_index;
                }
                None => {
                    out.push_str(arguments);
                    rest = after;
                }
            }
        } else if let Some((index, after)) = positional(&tail[1..]) {
            match words.get(index) {
                Some(word) => out.push_str(word),
                None => out.push_str(&tail[..tail.len() - after.len()]),
            }
            rest = after;
        } else {
            out.push('$');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    if !saw_arguments && !arguments.trim().is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\nARGUMENTS: ");
        out.push_str(arguments);
        out.push('\n');
    }
    out
}

/// `[N]` at the start of `s`: the index and what follows.
fn indexed(s: &str) -> Option<(usize, &str)> {
    let inner = s.strip_prefix('[')?;
    let close = inner.find(']')?;
    let index = parse_index(&inner[..close])?;
    Some((index, &inner[close + 1..]))
}

/// Digits at the start of `s` (after a `$`) not followed by a word character:
/// `$1` is a position, `$1st` is text.
fn positional(s: &str) -> Option<(usize, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let after = &s[end..];
    if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None;
    }
    parse_index(&s[..end]).map(|index| (index, after))
}

fn parse_index(digits: &str) -> Option<usize> {
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Splits an argument string into words as a POSIX shell would, without
/// expansions: whitespace separates, single quotes keep everything, double
/// quotes keep everything but `\"` and `\\`, a backslash escapes one
/// character. An unclosed quote runs to the end.
pub fn split_words(arguments: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = arguments.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    current.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(next @ ('"' | '\\')) => current.push(next),
                            Some(next) => {
                                current.push('\\');
                                current.push(next);
                            }
                            None => current.push('\\'),
                        },
                        c => current.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> &'static Path {
        Path::new("/lib/pdf")
    }

    #[test]
    fn whole_string_and_skill_dir() {
        let body = "Fix issue $ARGUMENTS using ${CLAUDE_SKILL_DIR}/scripts/run.sh\n";
        assert_eq!(
            apply(body, "#42 \"the bug\"", dir()),
            "Fix issue #42 \"the bug\" using /lib/pdf/scripts/run.sh\n"
        );
    }

    #[test]
    fn positions_split_like_a_shell() {
        let body = "from $0 to $ARGUMENTS[1], then $2\n";
        assert_eq!(apply(body, "'a b' c", dir()), "from a b to c, then $2\n");
        assert_eq!(
            split_words(r#"one "two \"2\"" th\ ree"#),
            ["one", "two \"2\"", "th ree"]
        );
    }

    #[test]
    fn arguments_are_appended_when_the_body_never_asks() {
        assert_eq!(apply("Do it.", "now", dir()), "Do it.\n\nARGUMENTS: now\n");
        // `$0` alone is not `$ARGUMENTS`: the whole string is appended too.
        assert_eq!(
            apply("Open $0.\n", "a b", dir()),
            "Open a.\n\nARGUMENTS: a b\n"
        );
        assert_eq!(apply("Do it.\n", "", dir()), "Do it.\n");
    }

    #[test]
    fn other_dollars_stay() {
        let body = "costs $5.00, $HOME, $1st, $ and $ARGUMENTS[x]\n";
        assert_eq!(
            apply(body, "A", dir()),
            "costs $5.00, $HOME, $1st, $ and A[x]\n"
        );
    }

    #[test]
    fn placeholders_for_the_preview() {
        let subs = placeholders(dir(), "x");
        assert_eq!(subs[0].placeholder, "$ARGUMENTS");
        assert_eq!(subs[1].becomes, "/lib/pdf");
    }
}
