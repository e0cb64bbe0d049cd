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
//! - `$name`, for each of the skill's named `arguments` (in order), is the
//!   word at that argument's position;
//! - `${CLAUDE_SKILL_DIR}` is the skill's folder;
//! - `${CLAUDE_SESSION_ID}` is the conversation's id, where there is one
//!   ([`invocation`]);
//! - when the body asks for no argument at all (no `$ARGUMENTS`, `$N` or
//!   `$name`) and arguments were given, they are appended after a blank line
//!   as `ARGUMENTS: …`, so they are never lost.
//!
//! After a `Skill` call, Claude Code 2.1.328 sends the model the rendered
//! body after a line naming the skill's folder ([`invocation`]). Both were
//! read off the real client and are held to it by the real-client suite
//! (`claude_code_sends_the_invocation_hone_previews`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::skill::Skill;

/// The placeholder for the whole argument string.
pub const ARGUMENTS: &str = "$ARGUMENTS";
/// The placeholder for the skill's folder.
pub const SKILL_DIR: &str = "${CLAUDE_SKILL_DIR}";
/// The placeholder for the conversation's id.
pub const SESSION_ID: &str = "${CLAUDE_SESSION_ID}";

/// One placeholder and what it becomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Substitution {
    pub placeholder: String,
    pub becomes: String,
}

/// Every placeholder of an invocation `/name ARGS` of `skill` and what it
/// becomes (the preview the app shows): `$ARGUMENTS`, `$ARGUMENTS[N]` and
/// `$N` for each word, `$name` for each named argument, and the skill's folder.
pub fn substitutions(skill: &Skill, arguments: &str) -> Vec<Substitution> {
    let words = split_words(arguments);
    let mut out = vec![Substitution {
        placeholder: ARGUMENTS.into(),
        becomes: arguments.to_owned(),
    }];
    for (i, word) in words.iter().enumerate() {
        for placeholder in [format!("{ARGUMENTS}[{i}]"), format!("${i}")] {
            out.push(Substitution {
                placeholder,
                becomes: word.clone(),
            });
        }
    }
    for (i, name) in skill.meta.argument_names().iter().enumerate() {
        out.push(Substitution {
            placeholder: format!("${name}"),
            becomes: words.get(i).cloned().unwrap_or_default(),
        });
    }
    out.push(Substitution {
        placeholder: SKILL_DIR.into(),
        becomes: skill.dir.to_string_lossy().into_owned(),
    });
    out
}

/// The body of `skill` as Claude Code renders it when invoked with
/// `arguments`.
pub fn render(skill: &Skill, arguments: &str) -> String {
    apply(
        skill.body(),
        arguments,
        &skill.dir,
        &skill.meta.argument_names(),
    )
}

/// The message Claude Code adds to the conversation when the model invokes
/// `skill` with `arguments`: the skill's folder, a blank line, and the
/// rendered body. `session_id` replaces `${CLAUDE_SESSION_ID}`; without one
/// the placeholder stays as written.
pub fn invocation(skill: &Skill, arguments: &str, session_id: Option<&str>) -> String {
    let body = match session_id {
        Some(id) => skill.body().replace(SESSION_ID, id),
        None => skill.body().to_owned(),
    };
    format!(
        "Base directory for this skill: {}\n\n{}",
        skill.dir.display(),
        apply(&body, arguments, &skill.dir, &skill.meta.argument_names())
    )
}

/// `body` with every placeholder replaced, as Claude Code renders a skill
/// invoked with `arguments` (see the module docs).
/// `names` are the skill's named arguments, in order.
pub fn apply(body: &str, arguments: &str, skill_dir: &Path, names: &[String]) -> String {
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
        } else if let Some((index, after)) = named(&tail[1..], names) {
            saw_arguments = true;
            out.push_str(words.get(index).map_or("", String::as_str));
            rest = after;
        } else if let Some((index, after)) = positional(&tail[1..]) {
            saw_arguments = true;
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
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(arguments);
    }
    out
}

/// A named argument at the start of `s` (after a `$`), whole: its position
/// and what follows. `$issue` names `issue`; `$issues` does not.
fn named<'a>(s: &'a str, names: &[String]) -> Option<(usize, &'a str)> {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(s.len());
    let word = &s[..end];
    names
        .iter()
        .position(|name| name == word)
        .map(|index| (index, &s[end..]))
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
            apply(body, "#42 \"the bug\"", dir(), &[]),
            "Fix issue #42 \"the bug\" using /lib/pdf/scripts/run.sh\n"
        );
    }

    #[test]
    fn positions_split_like_a_shell() {
        let body = "from $0 to $ARGUMENTS[1], then $2\n";
        assert_eq!(
            apply(body, "'a b' c", dir(), &[]),
            "from a b to c, then $2\n"
        );
        assert_eq!(
            split_words(r#"one "two \"2\"" th\ ree"#),
            ["one", "two \"2\"", "th ree"]
        );
    }

    #[test]
    fn arguments_are_appended_when_the_body_never_asks() {
        assert_eq!(
            apply("Do it.", "now", dir(), &[]),
            "Do it.\n\nARGUMENTS: now"
        );
        // A body that asks for one position has asked for its arguments.
        assert_eq!(apply("Open $0.\n", "a b", dir(), &[]), "Open a.\n");
        assert_eq!(apply("Do it.\n", "", dir(), &[]), "Do it.\n");
    }

    #[test]
    fn the_invocation_names_the_folder_and_fills_the_session() {
        let skill = Skill::from_document(
            dir(),
            crate::document::SkillDocument::parse(
                "---\nname: a\n---\nIn ${CLAUDE_SKILL_DIR} for ${CLAUDE_SESSION_ID}.\n".into(),
            ),
        );
        assert_eq!(
            invocation(&skill, "x", Some("s-1")),
            "Base directory for this skill: /lib/pdf\n\nIn /lib/pdf for s-1.\n\n\nARGUMENTS: x"
        );
        assert!(invocation(&skill, "", None).ends_with("for ${CLAUDE_SESSION_ID}.\n"));
    }

    #[test]
    fn other_dollars_stay() {
        let body = "costs $5.00, $HOME, $1st, $ and $ARGUMENTS[x]\n";
        assert_eq!(
            apply(body, "A", dir(), &[]),
            "costs $5.00, $HOME, $1st, $ and A[x]\n"
        );
    }

    /// Claude Code skills docs, "Pass arguments to skills": named
    /// `arguments` map positional words to `$name`.
    #[test]
    fn named_arguments_are_substituted() {
        let skill = Skill::from_document(
            dir(),
            crate::document::SkillDocument::parse(
                "---\nname: a\narguments: issue branch\n---\nFix $issue on $branch ($issues).\n"
                    .into(),
            ),
        );
        assert_eq!(skill.meta.argument_names(), ["issue", "branch"]);
        let subs = substitutions(&skill, "123 \"feature x\"");
        let get = |p: &str| {
            subs.iter()
                .find(|x| x.placeholder == p)
                .map(|x| x.becomes.as_str())
        };
        assert_eq!(get("$ARGUMENTS"), Some("123 \"feature x\""));
        assert_eq!(get("$issue"), Some("123"));
        assert_eq!(get("$branch"), Some("feature x"));
        assert_eq!(get("$ARGUMENTS[1]"), Some("feature x"));
        assert_eq!(get("$0"), Some("123"));
        assert_eq!(get("${CLAUDE_SKILL_DIR}"), Some("/lib/pdf"));
        assert_eq!(
            render(&skill, "123 \"feature x\""),
            "Fix 123 on feature x ($issues).\n"
        );
    }
}
