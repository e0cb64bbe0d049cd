//! Reading and rewriting frontmatter *text*, for rules that must work where
//! the YAML tree is missing (the YAML did not parse) and for fixes, which
//! change as few characters as possible.

use std::ops::Range;

/// A top-level `key: value` line of the frontmatter (the key at column 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopLevelEntry<'t> {
    pub key: &'t str,
    /// The whole line, without its line ending, as file offsets.
    pub line: Range<usize>,
    /// The value as written on the key's line and its plain continuation
    /// lines, trimmed; empty when the value starts on the next line.
    pub value: Range<usize>,
    /// Whether the value runs over more than one line.
    pub multiline: bool,
}

/// The top-level entries of a frontmatter text that starts at file offset `base`.
pub fn top_level_entries(yaml: &str, base: usize) -> Vec<TopLevelEntry<'_>> {
    let lines: Vec<(usize, &str)> = line_ranges(yaml).collect();
    let mut entries = Vec::new();
    for (index, &(start, line)) in lines.iter().enumerate() {
        let Some((key, rest)) = split_key(line) else {
            continue;
        };
        let value_start = start + line.len() - rest.len() + (rest.len() - rest.trim_start().len());
        let mut value_end = start + line.trim_end().len();
        let mut multiline = false;
        // Indented lines after a plain value continue it.
        if !rest.trim().is_empty() {
            for &(next_start, next) in &lines[index + 1..] {
                if next.trim().is_empty() || !next.starts_with([' ', '\t']) {
                    break;
                }
                value_end = next_start + next.trim_end().len();
                multiline = true;
            }
        }
        let value_start = value_start.min(value_end);
        entries.push(TopLevelEntry {
            key,
            line: base + start..base + start + line.len(),
            value: base + value_start..base + value_end,
            multiline,
        });
    }
    entries
}

/// `(offset, line)` for each line of `text`, without line endings.
pub fn line_ranges(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').map(move |raw| {
        let start = offset;
        offset += raw.len();
        (start, raw.trim_end_matches(['\n', '\r']))
    })
}

/// `key` and what follows `key:` on a line like `key: value` or `key:`.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let first = line.chars().next()?;
    if !(first.is_alphanumeric() || first == '_') {
        return None;
    }
    let colon = line.find(':')?;
    let key = &line[..colon];
    let rest = &line[colon + 1..];
    let key_ok = key
        .chars()
        .all(|c| c.is_alphanumeric() || "-_.".contains(c));
    (key_ok && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some((key, rest))
}

/// Whether a value as written is a plain scalar (not quoted, not a block
/// scalar, not a collection, alias, tag or anchor).
pub fn is_plain(value: &str) -> bool {
    value
        .chars()
        .next()
        .is_some_and(|c| !"\"'|>[{&*!%@`#".contains(c))
}

/// A YAML double-quoted scalar holding `value`. JSON strings are valid YAML
/// double-quoted scalars, so serde_json's escaping is exactly right.
pub fn double_quoted(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| format!("\"{value}\""))
}

/// The value of a plain scalar written over several lines, folded as YAML
/// folds it (line breaks become single spaces).
pub fn fold_plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines().map(str::trim) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

/// The byte range of the first case-insensitive occurrence of the ASCII
/// `needle` in `haystack`.
pub fn find_ascii_ci(haystack: &str, needle: &str) -> Option<Range<usize>> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    let last_start = h.len() - n.len();
    let (lower, upper) = (n[0].to_ascii_lowercase(), n[0].to_ascii_uppercase());
    let mut from = 0;
    // Jump between candidate first bytes; most positions are not one.
    while from <= last_start {
        let at = from + memchr::memchr2(lower, upper, &h[from..=last_start])?;
        if h[at..at + n.len()].eq_ignore_ascii_case(n) {
            return Some(at..at + n.len());
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_entries_and_continuations() {
        let yaml = "name: a\ndescription: one\n  two\nmetadata:\n  k: v\n";
        let entries = top_level_entries(yaml, 4);
        let keys: Vec<_> = entries.iter().map(|e| e.key).collect();
        assert_eq!(keys, ["name", "description", "metadata"]);
        let d = &entries[1];
        assert!(d.multiline);
        assert_eq!(&yaml[d.value.start - 4..d.value.end - 4], "one\n  two");
        assert_eq!(entries[2].value.len(), 0);
    }

    #[test]
    fn quoting_and_folding() {
        assert_eq!(double_quoted("a: \"b\" \\"), r#""a: \"b\" \\""#);
        assert_eq!(fold_plain("one\n  two\n three"), "one two three");
        assert!(is_plain("Use when: x") && !is_plain("'x'") && !is_plain("[a]"));
        assert_eq!(find_ascii_ci("Say Help Me now", "help me"), Some(4..11));
    }
}
