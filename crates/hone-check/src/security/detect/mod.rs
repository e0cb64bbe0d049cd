//! The detectors of the `HS901`–`HS910` security rules: each module reads
//! a skill's prose, frontmatter or code and reports [`Hit`]s. Their
//! documentation is the rules' (`rules/security/`, what `hone rule CODE`
//! prints), so the registry names them without importing this module; the
//! engine that runs the detectors and turns hits into findings and a
//! verdict is [`super`].
//!
//! [`Hit`]: super::Hit

pub(crate) mod agent_instruction;
pub(crate) mod broad_tool_approval;
pub(crate) mod destructive_command;
pub(crate) mod download_and_execute;
pub(crate) mod hidden_text;
pub(crate) mod load_time_command;
pub(crate) mod name_impersonation;
pub(crate) mod obfuscated_code;
pub(crate) mod persistence;
pub(crate) mod secret_exfiltration;

use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use regex::{Regex, RegexBuilder};

/// Declares a detector's case-insensitive [`Pattern`]. Word boundaries are
/// ASCII ones (see [`ascii_boundaries`]).
macro_rules! pattern {
    ($vis:vis $name:ident, $re:expr) => {
        $vis static $name: $crate::security::detect::Pattern =
            $crate::security::detect::Pattern::new(|| ($re).to_string());
    };
}
pub(crate) use pattern;

/// A detector's pattern, compiled when a scan first uses it and dropped by
/// [`release_patterns`].
///
/// Compiled, the detectors' patterns hold some 6 MB of automata, and once a
/// scan has run them the regex engine's caches hold as much again (22 MB
/// after the shared corpus). The app scans its library once as it opens and
/// then only what an edit changed, so it hands them back between scans
/// rather than keep them for the life of the process; the next scan
/// compiles what it uses again.
pub(crate) struct Pattern {
    source: fn() -> String,
    compiled: RwLock<Option<Arc<Regex>>>,
}

/// The patterns compiled since the last [`release_patterns`].
static COMPILED: Mutex<Vec<&'static Pattern>> = Mutex::new(Vec::new());

impl Pattern {
    pub(crate) const fn new(source: fn() -> String) -> Self {
        Pattern {
            source,
            compiled: RwLock::new(None),
        }
    }

    /// The compiled pattern; a scan that holds it keeps it past a release.
    pub(crate) fn get(&'static self) -> Arc<Regex> {
        if let Some(regex) = &*self.compiled.read().unwrap_or_else(PoisonError::into_inner) {
            return Arc::clone(regex);
        }
        let mut slot = self
            .compiled
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(regex) = &*slot {
            return Arc::clone(regex);
        }
        let regex = Arc::new(
            RegexBuilder::new(&ascii_boundaries(&(self.source)()))
                .case_insensitive(true)
                .build()
                .expect("a constant pattern"),
        );
        *slot = Some(Arc::clone(&regex));
        drop(slot);
        COMPILED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(self);
        regex
    }
}

/// Drops the compiled patterns and the caches their matches filled, once no
/// scan holds them; the next scan compiles the ones it uses again (some
/// 40 ms for a small skill's).
pub fn release_patterns() {
    let compiled = std::mem::take(&mut *COMPILED.lock().unwrap_or_else(PoisonError::into_inner));
    for pattern in compiled {
        pattern
            .compiled
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

/// `pattern` with each `\b` an ASCII word boundary. The regex engine's fast
/// automata cannot answer a Unicode word boundary on text that holds
/// non-ASCII characters and fall back to a far slower one: with Unicode
/// boundaries, the instruction patterns alone took 0.66 s over a 1.3 MB
/// skill of mostly English text with a few such characters. The keywords
/// the rules look for are ASCII, so an ASCII boundary finds the same words.
pub(crate) fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

/// The logical lines of `code` (a line ending in `\` goes on), with their
/// ranges in `code`.
pub(crate) fn statements(code: &str) -> Vec<(Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        at += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.ends_with('\\') && at < code.len() {
            continue;
        }
        out.push((start..at, &code[start..at]));
        start = at;
    }
    out
}

/// The sentence around `offset` in prose: from the previous `.`, `!`, `?`
/// or line break to the next.
pub(crate) fn sentence_at(text: &str, offset: usize) -> Range<usize> {
    let offset = offset.min(text.len());
    let is_end = |c: char| matches!(c, '.' | '!' | '?' | '\n');
    let start = text[..offset]
        .char_indices()
        .rev()
        .find(|&(i, c)| {
            is_end(c) && !text[i + c.len_utf8()..].starts_with(|n: char| n.is_alphanumeric())
        })
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[offset..]
        .char_indices()
        .find(|&(i, c)| {
            is_end(c)
                && !text[offset + i + c.len_utf8()..].starts_with(|n: char| n.is_alphanumeric())
        })
        .map_or(text.len(), |(i, _)| offset + i);
    start..end
}

pattern!(
    TEACHING,
    r"\b(e\.g\.|for example|examples?|such as|detect\w*|flag\w*|attack\w*|injections?|malicious|phishing|adversar\w*|red[- ]team\w*|jailbreak\w*|beware|watch (out )?for|warn\w*|suspicious|refuse|reject|block\w*|patterns? like|signs? of|look(s|ing)? for|scan\w*|audit\w*|vulnerab\w*|threats?|exploit\w*|defen[cs]\w*|classif\w*|sanitiz\w*|untrusted)\b"
);
pattern!(
    NEGATION,
    r"\b(never|do not|don't|must not|should not|shouldn't|avoid|no)\b"
);

/// Whether the sentence at `range` of `text` shows the words rather than
/// says them: quoted, negated, or about detecting, refusing or teaching
/// attacks (in the sentence, or the heading or `…:` line it sits under).
pub(crate) fn is_teaching(text: &str, range: Range<usize>) -> bool {
    let end = range.end.min(text.len());
    let sentence = sentence_at(text, range.start);
    // A list of examples under "Attacks look like:" or a heading, close above.
    let mut window = sentence.start.saturating_sub(600);
    while !text.is_char_boundary(window) {
        window += 1;
    }
    let lead = text[window..sentence.start]
        .lines()
        .rev()
        .find(|line| line.trim_end().ends_with(':') || line.trim_start().starts_with('#'))
        .unwrap_or("");
    let before = &text[sentence.start..range.start];
    let after = &text[end..sentence.end.max(end)];
    let quoted_before = before
        .chars()
        .rev()
        .take(80)
        .any(|c| matches!(c, '"' | '“' | '‘' | '«' | '`'));
    quoted_before
        || NEGATION.get().is_match(before)
        || TEACHING.get().is_match(before)
        || TEACHING.get().is_match(after)
        || TEACHING.get().is_match(lead)
}

pattern!(
    WARNING_INTRO,
    r"\b(bad|insecure|unsafe|dangerous|vulnerable|malicious|attack\w*|anti-?patterns?|never|don't|do not|avoid|wrong|exploit\w*|payloads?|red flags?|detect\w*|flag\w*|suspicious|phishing|injection|what not to)\b"
);

/// Whether the prose just before a code block at `offset` presents it as
/// an example of what not to do: the last non-empty line before the block.
pub(crate) fn introduces_example(text: &str, offset: usize) -> bool {
    let offset = offset.min(text.len());
    let mut start = offset;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("```") && !line.starts_with("~~~"))
        .take(1)
        .any(|line| WARNING_INTRO.get().is_match(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_join_continued_lines() {
        let parts: Vec<&str> = statements("a \\\n b\nc\n")
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(parts, ["a \\\n b\n", "c\n"]);
        assert!(statements("").is_empty());
    }

    #[test]
    fn a_released_pattern_is_compiled_again_and_a_held_one_kept() {
        let held = TEACHING.get();
        release_patterns();
        let again = TEACHING.get();
        assert!(!Arc::ptr_eq(&held, &again));
        assert!(held.is_match("for example") && again.is_match("for example"));
    }

    #[test]
    fn sentences() {
        let text = "One. Two is v1.2 here! Three";
        let at = text.find("is").unwrap();
        assert_eq!(&text[sentence_at(text, at)], " Two is v1.2 here");
        assert_eq!(&text[sentence_at(text, 0)], "One");
        assert_eq!(sentence_at("", 0), 0..0);
    }
}
