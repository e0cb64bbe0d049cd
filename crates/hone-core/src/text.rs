//! Byte offsets to the line and column an editor shows, and numbers as
//! people read them.

use crate::diagnostic::{Position, Span};

/// The starts of every line of a text, to turn byte offsets into positions in
/// `O(log lines)`. Offsets are stored as `u32`: a library holds one index per
/// skill, and texts past 4 GiB are not read.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        // Counted first, so the index takes no more memory than it holds: a
        // library's indexes are kept for the whole check.
        let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count();
        let mut line_starts = Vec::with_capacity(breaks + 1);
        line_starts.push(0);
        line_starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| u32::try_from(i + 1).unwrap_or(u32::MAX)),
        );
        LineIndex { line_starts }
    }

    /// Number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self, text: &str) -> usize {
        let n = self.line_starts.len();
        if text.ends_with('\n') { n - 1 } else { n }
    }

    /// Byte offset of the start of 1-based `line`, if it exists.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts
            .get((line as usize).checked_sub(1)?)
            .map(|&start| start as usize)
    }

    /// The position of byte `offset` of `text` (clamped to the text and moved
    /// back to a character boundary). A leading byte-order mark takes no column.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .line_starts
            .partition_point(|&start| start as usize <= offset)
            - 1;
        let start = self.line_starts[line] as usize;
        let mut column = text[start..offset].chars().count() + 1;
        if line == 0 && text.starts_with('\u{feff}') && offset > 0 {
            column -= 1;
        }
        Position {
            line: line as u32 + 1,
            column: column as u32,
            offset,
        }
    }

    pub fn span(&self, text: &str, range: std::ops::Range<usize>) -> Span {
        Span {
            start: self.position(text, range.start),
            end: self.position(text, range.end),
        }
    }

    /// The text of the 1-based line holding `offset`, without its line ending.
    pub fn line_text<'t>(&self, text: &'t str, offset: usize) -> &'t str {
        let pos = self.position(text, offset);
        let start = self.line_starts[pos.line as usize - 1] as usize;
        let end = self
            .line_starts
            .get(pos.line as usize)
            .map_or(text.len(), |&end| end as usize);
        text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// `12345` as `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size in binary units: `512 B`, `1.5 KiB`, `87.4 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_and_lines() {
        let text = "ab\nçd\r\nef";
        let index = LineIndex::new(text);
        assert_eq!(
            index.position(text, 0),
            Position {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        let e = text.find('e').unwrap();
        assert_eq!(
            index.position(text, e),
            Position {
                line: 3,
                column: 1,
                offset: e
            }
        );
        let d = text.find('d').unwrap();
        assert_eq!(index.position(text, d).column, 2);
        assert_eq!(index.line_text(text, d), "çd");
        assert_eq!(index.line_count(text), 3);
    }

    #[test]
    fn offsets_past_the_end_or_inside_a_character_are_clamped() {
        let text = "é";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 1).offset, 0);
        assert_eq!(index.position(text, 99).offset, 2);
    }

    #[test]
    fn a_bom_takes_no_column() {
        let text = "\u{feff}---";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 3).column, 1);
    }

    #[test]
    fn numbers_as_people_read_them() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(1536), "1,536");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
        assert_eq!(super::human_bytes(512), "512 B");
        assert_eq!(super::human_bytes(1536), "1.5 KiB");
        assert_eq!(super::human_bytes(91_645_132), "87.4 MiB");
    }
}
