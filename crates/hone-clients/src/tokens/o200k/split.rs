//! `o200k_base`'s pre-tokenizer as a hand-written scanner: the same pieces as
//! `bpe-openai`'s regular expressions (tiktoken's pattern, with `\s+(?!\S)`
//! emulated by a second pattern whose last character is dropped), without
//! compiling them.
//!
//! The pattern's alternatives, tried in order at each position, are
//! 1. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(contraction)?`
//! 2. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(contraction)?`
//! 3. `\p{N}{1,3}`
//! 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
//! 5. `\s*[\r\n]+`, 6. `\s+$`, 7. `\s+\s` less its last character, 8. `\s+`
//!
//! where a contraction is `'s|'t|'re|'ve|'m|'ll|'d`, case-insensitive. Each
//! method of [`Scanner`] below is one alternative, resolved as a backtracking
//! matcher resolves it (greedy, first success wins). A character's class
//! comes from a table for ASCII and, beyond it, from ranges `build.rs` reads
//! off `regex-syntax`'s Unicode tables, the ones the pattern is compiled with.
//!
//! ASCII text is split 64 bytes at a time by [`window`], from bit masks; the
//! scanner splits what the windows leave (non-ASCII text, a text's last
//! bytes), and is what the windows are tested against.

use super::window;

/// What the pattern needs to know about a character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
    /// `\r` or `\n`.
    LineBreak,
    /// Any other whitespace (`\s`: Unicode `White_Space`).
    Space,
    /// `Lu` or `Lt`.
    Upper,
    /// `Ll`.
    Lower,
    /// `Lm` or `Lo`: a letter in both case sets.
    Caseless,
    /// `M`: in both case sets, yet no letter.
    Mark,
    /// `N`.
    Digit,
    /// Anything else: punctuation, symbols, controls, unassigned.
    Punct,
}

impl Class {
    fn is_whitespace(self) -> bool {
        matches!(self, Class::LineBreak | Class::Space)
    }
    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
    fn in_upper_set(self) -> bool {
        matches!(self, Class::Upper | Class::Caseless | Class::Mark)
    }
    /// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
    fn in_lower_set(self) -> bool {
        matches!(self, Class::Lower | Class::Caseless | Class::Mark)
    }
    /// `[^\r\n\p{L}\p{N}]`
    fn may_lead_a_word(self) -> bool {
        matches!(self, Class::Space | Class::Mark | Class::Punct)
    }
    /// `[^\s\p{L}\p{N}]`
    fn is_punctuation(self) -> bool {
        matches!(self, Class::Mark | Class::Punct)
    }
}

include!(concat!(env!("OUT_DIR"), "/o200k_classes.rs"));

const ASCII: [Class; 128] = {
    let mut table = [Class::Punct; 128];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = match byte as u8 {
            b'\r' | b'\n' => Class::LineBreak,
            b' ' | b'\t' | 0x0b | 0x0c => Class::Space,
            b'A'..=b'Z' => Class::Upper,
            b'a'..=b'z' => Class::Lower,
            b'0'..=b'9' => Class::Digit,
            _ => Class::Punct,
        };
        byte += 1;
    }
    table
};

/// The class of an ASCII byte.
pub(super) fn ascii_class(byte: u8) -> Class {
    ASCII[usize::from(byte & 0x7f)]
}

pub(super) fn class_of(c: char) -> Class {
    if c.is_ascii() {
        return ASCII[c as usize];
    }
    let code = u32::from(c);
    let after = NON_ASCII_CLASSES.partition_point(|&(first, _, _)| first <= code);
    match after.checked_sub(1).map(|i| NON_ASCII_CLASSES[i]) {
        Some((_, last, class)) if code <= last => class,
        _ => Class::Punct,
    }
}

/// The text being split.
struct Scanner<'a> {
    text: &'a str,
}

impl Scanner<'_> {
    /// The class and length of the character at `at`, `None` at the end.
    fn at(&self, at: usize) -> Option<(Class, usize)> {
        let byte = *self.text.as_bytes().get(at)?;
        if byte < 0x80 {
            return Some((ASCII[byte as usize], 1));
        }
        let c = self.text[at..]
            .chars()
            .next()
            .expect("at is a char boundary");
        Some((class_of(c), c.len_utf8()))
    }

    /// The end of the longest run from `at` of characters `belongs` accepts.
    fn run(&self, mut at: usize, belongs: fn(Class) -> bool) -> usize {
        while let Some((class, len)) = self.at(at)
            && belongs(class)
        {
            at += len;
        }
        at
    }

    /// After a contraction at `at`, if one starts there.
    fn contraction(&self, at: usize) -> usize {
        let bytes = self.text.as_bytes();
        if bytes.get(at) != Some(&b'\'') {
            return at;
        }
        // Case-insensitive, `s` also matches U+017F (long s).
        if self.text[at + 1..].starts_with('\u{17F}') {
            return at + 3;
        }
        let lower = |i: usize| bytes.get(at + i).map(u8::to_ascii_lowercase);
        match (lower(1), lower(2)) {
            (Some(b's' | b't' | b'm' | b'd'), _) => at + 2,
            (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => at + 3,
            _ => at,
        }
    }

    /// Alternative 1 from `from`: upper-set letters, then at least one of the
    /// lower set. When the upper run is followed by no lower-set character,
    /// backtracking ends the piece after the run's last character that is in
    /// both sets.
    fn lower_word(&self, from: usize) -> Option<usize> {
        let mut at = from;
        let mut after_last_shared = None;
        while let Some((class, len)) = self.at(at)
            && class.in_upper_set()
        {
            at += len;
            if class.in_lower_set() {
                after_last_shared = Some(at);
            }
        }
        let end = match self.at(at) {
            Some((class, _)) if class.in_lower_set() => self.run(at, Class::in_lower_set),
            _ => after_last_shared?,
        };
        Some(self.contraction(end))
    }

    /// Alternative 2 from `from`: at least one upper-set letter, then any of the lower set.
    fn upper_word(&self, from: usize) -> Option<usize> {
        let (first, _) = self.at(from)?;
        if !first.in_upper_set() {
            return None;
        }
        let upper_end = self.run(from, Class::in_upper_set);
        Some(self.contraction(self.run(upper_end, Class::in_lower_set)))
    }

    /// The end of the piece that starts at `at` when it is a word, a number,
    /// a run of punctuation or of whitespace all of whose deciding characters
    /// are ASCII: most pieces,
    /// found without classifying a character twice. `None` leaves the piece
    /// to [`Scanner::piece_end`]'s general rules.
    fn ascii_piece_end(&self, at: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        // The byte at `i` when it is ASCII or the end (0 there); `None` for
        // non-ASCII, whose class would need decoding.
        let ascii = |i: usize| match bytes.get(i) {
            Some(&b) if b < 0x80 => Some(b),
            Some(_) => None,
            None => Some(0),
        };
        let run = |mut i: usize, accept: fn(u8) -> bool| {
            while i < bytes.len() && accept(bytes[i]) {
                i += 1;
            }
            i
        };
        let first = bytes[at];
        if !first.is_ascii() {
            return None;
        }
        let leads = matches!(ASCII[first as usize], Class::Space | Class::Punct);
        let word_from = if first.is_ascii_alphabetic() {
            Some(at)
        } else if leads && ascii(at + 1)?.is_ascii_alphabetic() {
            Some(at + 1)
        } else {
            None
        };
        if let Some(from) = word_from {
            // Alternative 1 when capitals (perhaps none) are followed by a
            // small letter; else alternative 2, capitals alone. In ASCII no
            // letter is in both case sets, so there is nothing to backtrack.
            let upper_end = letter_run_end(bytes, from, b'A', b'Z');
            let end = if ascii(upper_end)?.is_ascii_lowercase() {
                letter_run_end(bytes, upper_end, b'a', b'z')
            } else {
                upper_end
            };
            // A lower-set character past the end would continue the word.
            ascii(end)?;
            return Some(self.contraction(end));
        }
        if first.is_ascii_digit() {
            // Alternative 3: up to three digits; a non-ASCII digit could be one.
            let end = run(at, |b| b.is_ascii_digit()).min(at + 3);
            if end < at + 3 {
                ascii(end)?;
            }
            return Some(end);
        }
        let punct_from = if first == b' ' { at + 1 } else { at };
        if punct_from < bytes.len() && ASCII[ascii(punct_from)? as usize] == Class::Punct {
            // Alternatives 1 to 3 fail: no letter follows a lead, no digit starts.
            let end = run(punct_from, |b| {
                b < 0x80 && ASCII[b as usize] == Class::Punct
            });
            // A non-ASCII mark or symbol would continue the run.
            ascii(end)?;
            return Some(run(end, |b| matches!(b, b'\r' | b'\n' | b'/')));
        }
        if !ASCII[first as usize].is_whitespace() {
            return None;
        }
        // Alternatives 1 to 4 fail: no letter or punctuation follows a
        // space. Then 5 to 8, over a run of ASCII whitespace that no
        // non-ASCII whitespace continues.
        let end = run(at, |b| b < 0x80 && ASCII[b as usize].is_whitespace());
        ascii(end)?;
        let after_last_break = bytes[at..end]
            .iter()
            .rposition(|&b| matches!(b, b'\r' | b'\n'))
            .map(|i| at + i + 1);
        Some(self.whitespace_piece_end(at, end, end - 1, after_last_break, 1))
    }

    /// The end of the piece that starts at `at`, which is before the end.
    fn piece_end(&self, at: usize) -> usize {
        if let Some(end) = self.ascii_piece_end(at) {
            return end;
        }
        let (first, first_len) = self.at(at).expect("a piece starts before the end");
        let after_lead = first.may_lead_a_word().then_some(at + first_len);
        let starts = [after_lead, Some(at)];
        if let Some(end) = starts.iter().flatten().find_map(|&s| self.lower_word(s)) {
            return end;
        }
        if let Some(end) = starts.iter().flatten().find_map(|&s| self.upper_word(s)) {
            return end;
        }
        if first == Class::Digit {
            let mut end = at + first_len;
            for _ in 0..2 {
                match self.at(end) {
                    Some((Class::Digit, len)) => end += len,
                    _ => break,
                }
            }
            return end;
        }
        let punct_from = if self.text.as_bytes()[at] == b' ' {
            at + 1
        } else {
            at
        };
        if let Some((class, _)) = self.at(punct_from)
            && class.is_punctuation()
        {
            let end = self.run(punct_from, Class::is_punctuation);
            let trail = self.text.as_bytes()[end..]
                .iter()
                .take_while(|&&b| matches!(b, b'\r' | b'\n' | b'/'))
                .count();
            return end + trail;
        }
        // Whitespace, the only class left: alternatives 5 to 8.
        let mut end = at;
        let mut after_last_break = None;
        let mut last_start = at;
        while let Some((class, len)) = self.at(end)
            && class.is_whitespace()
        {
            last_start = end;
            end += len;
            if class == Class::LineBreak {
                after_last_break = Some(end);
            }
        }
        self.whitespace_piece_end(at, end, last_start, after_last_break, first_len)
    }

    /// Alternatives 5 to 8 over the whitespace run `at..end`, whose last
    /// character starts at `last_start` and whose first is `first_len`
    /// bytes: through its last line break (`\s*[\r\n]+`), else to the end of
    /// the text (`\s+$`), else all but its last character (`\s+(?!\S)`).
    fn whitespace_piece_end(
        &self,
        at: usize,
        end: usize,
        last_start: usize,
        after_last_break: Option<usize>,
        first_len: usize,
    ) -> usize {
        match after_last_break {
            Some(after) => after,
            None if end == self.text.len() => end,
            None if last_start > at => last_start,
            // One whitespace character (or, were a class ever unmatched, one
            // character of any kind: the scan always moves on).
            None => at + first_len,
        }
    }
}

/// The end of the run of bytes in `first..=last` (ASCII letters) from `at`.
///
/// Read eight bytes at a time: a word's length is unpredictable, so a loop
/// over its letters one by one mispredicts its exit once a word, where here
/// most words end within the first eight bytes read. Splitting the corpus's
/// long bodies on one thread went from 52 to 45 ms.
fn letter_run_end(bytes: &[u8], mut at: usize, first: u8, last: u8) -> usize {
    const LOW_BITS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        // Per byte, without carries between bytes (each sum stays below
        // 0x100): the high bit of `above` is set past `last`, that of
        // `from_first` from `first` on; a byte with its own high bit set is
        // no ASCII letter.
        let low = word & LOW_BITS;
        let above = low + ONES * u64::from(0x7f - last);
        let from_first = low + ONES * u64::from(0x80 - first);
        let outside = !(from_first & !above & !word) & HIGH_BITS;
        if outside != 0 {
            return at + (outside.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at).is_some_and(|b| (first..=last).contains(b)) {
        at += 1;
    }
    at
}

/// Calls `piece` with each piece of `text`, in order, until it returns `false`.
pub(super) fn for_each_piece<'t>(text: &'t str, mut piece: impl FnMut(&'t [u8]) -> bool) {
    for_each_batch(text, |pieces| pieces.iter().all(|p| piece(p)));
}

/// Calls `batch` with the pieces of `text`, in order, some at a time, until
/// it returns `false`. The pieces of ASCII text come a window of 64 bytes at
/// a time from [`window::starts`]; the scanner finds the rest, one by one.
pub(super) fn for_each_batch<'t>(text: &'t str, mut batch: impl FnMut(&[&'t [u8]]) -> bool) {
    let scanner = Scanner { text };
    let bytes = text.as_bytes();
    let mut pieces: [&[u8]; window::WINDOW] = [&[]; window::WINDOW];
    let mut at = 0;
    while at < bytes.len() {
        if let Some(window) = bytes.get(at..at + window::WINDOW) {
            let found = window::starts(window.try_into().expect("a window's bytes"));
            if found.end > 0 {
                // Each start after the first ends the piece before it.
                let mut ends = found.bits & !1;
                let mut from = at;
                let mut count = 0;
                while ends != 0 {
                    let end = at + ends.trailing_zeros() as usize;
                    pieces[count] = &bytes[from..end];
                    count += 1;
                    from = end;
                    ends &= ends - 1;
                }
                at += found.end;
                pieces[count] = &bytes[from..at];
                if !batch(&pieces[..=count]) {
                    return;
                }
                continue;
            }
        }
        let end = scanner.piece_end(at);
        if !batch(&[&bytes[at..end]]) {
            return;
        }
        at = end;
    }
}

/// The piece that starts at `at`, found by the scanner alone.
#[cfg(test)]
pub(super) fn scanned_piece_end(text: &str, at: usize) -> usize {
    Scanner { text }.piece_end(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight bytes at a time end a run where one byte at a time does, on
    /// every byte value around the ranges' edges and runs of every length.
    #[test]
    fn letter_runs_end_where_a_byte_by_byte_scan_ends_them() {
        let mut rng = fastrand::Rng::with_seed(3);
        let edges = [
            b'@', b'A', b'Z', b'[', b'`', b'a', b'z', b'{', 0, 0x7f, 0x80, 0xc1, 0xff,
        ];
        for _ in 0..20_000 {
            let len = rng.usize(0..40);
            let bytes: Vec<u8> = (0..len)
                .map(|_| match rng.usize(..4) {
                    0 => edges[rng.usize(..edges.len())],
                    1 => rng.u8(..),
                    2 => rng.u8(b'A'..=b'Z'),
                    _ => rng.u8(b'a'..=b'z'),
                })
                .collect();
            let at = rng.usize(0..=len);
            for (first, last) in [(b'a', b'z'), (b'A', b'Z')] {
                let expected = at
                    + bytes[at..]
                        .iter()
                        .take_while(|b| (first..=last).contains(b))
                        .count();
                assert_eq!(
                    letter_run_end(&bytes, at, first, last),
                    expected,
                    "{bytes:?} from {at}"
                );
            }
        }
    }
}
