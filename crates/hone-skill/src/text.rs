//! Byte offsets to the line and column an editor shows, and numbers as
//! people read them.

use crate::diagnostic::{Position, Span};

/// Where the lines of a text start, to turn byte offsets into positions.
///
/// Kept per block of text rather than per line: the number of line breaks
/// before each block of [`BLOCK`] bytes. A library holds one index per skill
/// for the whole check, and an entry per line (the shared corpus has 420,000
/// lines) cost more to build and hold than the few positions a check asks
/// for, each found by counting breaks within one block.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// The line breaks before each block.
    breaks_before: Vec<u32>,
    /// The line breaks of the whole text.
    breaks: usize,
}

/// The bytes of a block of a [`LineIndex`].
const BLOCK: usize = 4096;

/// Where the line holding byte `offset` of `text` starts: after the last
/// line break before it.
pub fn line_start_at(text: &str, offset: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..offset]).map_or(0, |at| at + 1)
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut breaks_before = Vec::with_capacity(text.len().div_ceil(BLOCK));
        let mut breaks = 0;
        for block in text.as_bytes().chunks(BLOCK) {
            breaks_before.push(u32::try_from(breaks).unwrap_or(u32::MAX));
            breaks += memchr::memchr_iter(b'\n', block).count();
        }
        LineIndex {
            breaks_before,
            breaks,
        }
    }

    /// Number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self, text: &str) -> usize {
        let n = self.breaks + 1;
        if text.ends_with('\n') { n - 1 } else { n }
    }

    /// Byte offset of the start of 1-based `line` of `text`, if it exists.
    pub fn line_start(&self, text: &str, line: u32) -> Option<usize> {
        // The line starts after the text's `breaks`-th line break.
        let breaks = (line as usize).checked_sub(1)?;
        if breaks == 0 {
            return Some(0);
        }
        if breaks > self.breaks {
            return None;
        }
        // The last block with fewer breaks before it holds that break.
        let block = self
            .breaks_before
            .partition_point(|&before| (before as usize) < breaks)
            - 1;
        let from = block * BLOCK;
        let nth = breaks - self.breaks_before[block] as usize;
        memchr::memchr_iter(b'\n', &text.as_bytes()[from..])
            .nth(nth - 1)
            .map(|at| from + at + 1)
    }

    /// The position of byte `offset` of `text` (clamped to the text and moved
    /// back to a character boundary). A leading byte-order mark takes no column.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let (offset, line, start) = self.locate(text, offset);
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

    /// `offset` clamped to the text and moved back to a character boundary,
    /// the 0-based line holding it and where that line starts.
    fn locate(&self, text: &str, offset: usize) -> (usize, usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let block = offset / BLOCK;
        let line = self
            .breaks_before
            .get(block)
            .map_or(self.breaks, |&b| b as usize)
            + memchr::memchr_iter(b'\n', &text.as_bytes()[(block * BLOCK).min(offset)..offset])
                .count();
        // Found backwards, over the line alone rather than its block again.
        (offset, line, line_start_at(text, offset))
    }

    pub fn span(&self, text: &str, range: std::ops::Range<usize>) -> Span {
        Span {
            start: self.position(text, range.start),
            end: self.position(text, range.end),
        }
    }

    /// The text of the 1-based line holding `offset`, without its line ending.
    pub fn line_text<'t>(&self, text: &'t str, offset: usize) -> &'t str {
        let (_, line, start) = self.locate(text, offset);
        let end = self.line_start(text, line as u32 + 2).unwrap_or(text.len());
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

    /// Positions, line starts and counts agree with a plain reading of the
    /// text, across block edges and for texts of any length.
    #[test]
    fn the_block_index_agrees_with_every_line() {
        let mut rng = fastrand::Rng::with_seed(11);
        for len in [
            0,
            1,
            2,
            100,
            BLOCK - 1,
            BLOCK,
            BLOCK + 1,
            3 * BLOCK + 7,
            20_000,
        ] {
            for density in [2, 40, 5_000] {
                let text: String = (0..len)
                    .map(|_| match rng.usize(..density) {
                        0 => '\n',
                        1 => 'é',
                        _ => 'a',
                    })
                    .collect();
                let index = LineIndex::new(&text);
                let starts: Vec<usize> = std::iter::once(0)
                    .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                    .collect();
                for (i, &start) in starts.iter().enumerate() {
                    assert_eq!(index.line_start(&text, i as u32 + 1), Some(start));
                }
                assert_eq!(index.line_start(&text, starts.len() as u32 + 1), None);
                assert_eq!(index.line_start(&text, 0), None);
                for offset in (0..=text.len()).step_by(7).chain([text.len()]) {
                    let position = index.position(&text, offset);
                    let offset = position.offset;
                    let line = starts.partition_point(|&s| s <= offset);
                    let column = text[starts[line - 1]..offset].chars().count() + 1;
                    assert_eq!(
                        (position.line as usize, position.column as usize),
                        (line, column)
                    );
                }
            }
        }
    }

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
