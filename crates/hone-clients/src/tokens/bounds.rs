//! A lower bound on the `o200k` and `cl100k` token counts of a text, read off
//! its characters in one pass, without the encoder.
//!
//! Deciding "does this text exceed N tokens?" exactly costs a run of the
//! encoder over up to ~4N bytes of text, and with `cl100k` the first such
//! question of a process also pays for decoding the encoder's ranks (about
//! 80 ms and 70 MB; `o200k` is counted without them, see `o200k/mod.rs`, and
//! faster than this bound reads, so only `cl100k` uses it). Two bounds settle most questions without it: a token covers at
//! least one byte, so a text of at most `limit` bytes cannot exceed (see
//! [`super::Tokenizer::exceeds`]); and a text whose bound below is over the
//! limit must exceed. Only the texts between the two are counted.
//!
//! # Why the bound holds
//!
//! Both encodings first split a text into *pieces* with a regular
//! expression, then encode each piece on its own, and every piece is at least
//! one token; so the number of pieces bounds the count from below. This
//! module counts pieces that provably exist, and never one twice, from what
//! both patterns (tiktoken's, as `bpe-openai` spells them) share:
//!
//! - A piece holding a letter is a *letter piece*: at most one leading
//!   character that is no letter, digit, `\r` or `\n`; then a run of letters
//!   (and, for `o200k`, combining marks); then perhaps a contraction, `'`
//!   with one or two letters. So two runs of letters (counting every
//!   non-ASCII character as a possible letter) that each hold an ASCII
//!   letter lie in two pieces, unless the second follows `'`; such runs are
//!   not counted.
//! - Digits form pieces of their own, of one to three digits (`\p{N}{1,3}`):
//!   a run of `n` ASCII digits between two characters that are certainly no
//!   digit is `ceil(n / 3)` pieces.
//! - No piece holds non-whitespace on both sides of whitespace, except that
//!   `o200k`'s punctuation piece (` ?[^\s\p{L}\p{N}]+[\r\n/]*`) may run on
//!   over line breaks into `/`: so every word (a run of non-whitespace) is
//!   at least one piece of its own, unless it starts with `/` after nothing
//!   but line breaks.
//! - A line break is covered by a piece of whitespace alone (a letter piece
//!   never starts with one, a punctuation piece starts with at most a space)
//!   unless it ends a punctuation piece; so a gap between words that holds a
//!   line break is a piece of its own when it follows a letter or digit,
//!   starts the text, or starts with another kind of whitespace.
//!
//! The tests hold the bound below the exact counts of both encodings on the
//! bundled skills and on random text built from the characters these rules
//! turn on; the corpus test does so on every body of the shared corpus.

/// What the bound needs to know about one character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `\r` or `\n`.
    LineBreak,
    /// Any other whitespace (`\s`: Unicode `White_Space`).
    Space,
    /// `a`–`z`, `A`–`Z`.
    Letter,
    /// `0`–`9`.
    Digit,
    /// `'`, which may start a contraction.
    Apostrophe,
    /// Any other ASCII character: no letter, digit or whitespace.
    Punct,
    /// A non-ASCII character that is no whitespace: perhaps a letter, a
    /// digit, a mark or punctuation.
    Other,
}

impl Class {
    fn of(text: &str, at: usize) -> (Class, usize) {
        let byte = text.as_bytes()[at];
        let class = match byte {
            b'\r' | b'\n' => Class::LineBreak,
            b' ' | b'\t' | 0x0b | 0x0c => Class::Space,
            b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
            b'0'..=b'9' => Class::Digit,
            b'\'' => Class::Apostrophe,
            0..0x80 => Class::Punct,
            _ => {
                let c = text[at..]
                    .chars()
                    .next()
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                let class = if c.is_whitespace() {
                    Class::Space
                } else {
                    Class::Other
                };
                return (class, c.len_utf8());
            }
        };
        (class, 1)
    }

    fn is_whitespace(self) -> bool {
        matches!(self, Class::LineBreak | Class::Space)
    }

    /// Part of a run of (possible) letters.
    fn may_be_letter(self) -> bool {
        matches!(self, Class::Letter | Class::Other)
    }
}

/// At most the number of `o200k` or `cl100k` tokens of `text`; see the module
/// doc for why.
pub(crate) fn pieces_lower_bound(text: &str) -> usize {
    let mut total = 0;
    // The class of the character before the current one (`None` at the start).
    let mut previous: Option<Class> = None;
    // The gap of whitespace being read: what came before it, how it starts,
    // whether it holds a line break and whether it holds nothing else.
    let mut gap: Option<(Option<Class>, Class, bool, bool)> = None;
    let mut last_gap_only_breaks = false;
    // The word being read: its pieces so far, and whether it may share its
    // first piece with the word before (`/` after line breaks).
    let mut word_pieces = 0;
    let mut word_may_share = false;
    // The run of letters being read: whether it holds an ASCII letter and
    // whether it follows `'`; the run of digits: its length and whether it
    // follows a character that is certainly no digit.
    let mut letters: Option<(bool, bool)> = None;
    let mut digits: Option<(usize, bool)> = None;
    let mut at = 0;
    loop {
        let (class, len) = if at < text.len() {
            Class::of(text, at)
        } else {
            // The end of the text closes every run.
            (Class::Space, 0)
        };
        let end = len == 0;
        if (!class.may_be_letter() || end)
            && let Some((has_ascii, after_apostrophe)) = letters.take()
        {
            word_pieces += usize::from(has_ascii && !after_apostrophe);
        }
        if (class != Class::Digit || end)
            && let Some((run, clean_before)) = digits.take()
            && clean_before
            && class != Class::Other
        {
            word_pieces += run.div_ceil(3);
        }
        if class.is_whitespace() || end {
            if previous.is_some_and(|p| !p.is_whitespace()) {
                // A word ends.
                total += if word_may_share {
                    word_pieces
                } else {
                    word_pieces.max(1)
                };
                word_pieces = 0;
            }
            if end {
                if let Some(gap) = gap.take() {
                    total += gap_pieces(gap);
                }
                break;
            }
            let breaks = class == Class::LineBreak;
            match &mut gap {
                Some((_, _, has_break, only_breaks)) => {
                    *has_break |= breaks;
                    *only_breaks &= breaks;
                }
                None => gap = Some((previous, class, breaks, breaks)),
            }
        } else {
            if let Some(closed) = gap.take() {
                total += gap_pieces(closed);
                last_gap_only_breaks = closed.3;
            }
            if previous.is_none_or(Class::is_whitespace) {
                // A word starts.
                word_may_share = previous.is_some()
                    && last_gap_only_breaks
                    && class == Class::Punct
                    && text.as_bytes()[at] == b'/';
            }
            if class.may_be_letter() {
                let (has_ascii, _) =
                    letters.get_or_insert((false, previous == Some(Class::Apostrophe)));
                *has_ascii |= class == Class::Letter;
            }
            if class == Class::Digit {
                let (run, _) = digits.get_or_insert((0, previous != Some(Class::Other)));
                *run += 1;
            }
        }
        previous = Some(class);
        at += len;
    }
    total
}

/// The pieces of whitespace alone a gap is sure to hold: one when it holds a
/// line break that no punctuation piece can have taken.
fn gap_pieces((before, first, has_break, _): (Option<Class>, Class, bool, bool)) -> usize {
    let alone =
        matches!(before, None | Some(Class::Letter | Class::Digit)) || first == Class::Space;
    usize::from(has_break && alone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Tokenizer;

    fn assert_below_both(text: &str) {
        let bound = pieces_lower_bound(text);
        for tokenizer in [Tokenizer::o200k(), Tokenizer::cl100k()] {
            let exact = tokenizer.count(text);
            assert!(
                bound <= exact,
                "bound {bound} over the {} count {exact} of {text:?}",
                tokenizer.name()
            );
        }
    }

    #[test]
    fn the_bound_counts_pieces_that_surely_exist() {
        assert_eq!(pieces_lower_bound(""), 0);
        assert_eq!(pieces_lower_bound("hello world"), 2);
        // Two words and the line break between them.
        assert_eq!(pieces_lower_bound("hello\nworld"), 3);
        // A contraction is one piece with its word.
        assert_eq!(pieces_lower_bound("don't"), 1);
        // 1234567: 123, 456, 7; `v` is a piece of its own.
        assert_eq!(pieces_lower_bound("v1234567"), 4);
        // `/` after a line break may join the punctuation piece before it.
        assert_eq!(pieces_lower_bound("--\n//"), 1);
    }

    #[test]
    fn the_bound_stays_below_both_exact_counts_on_tricky_text() {
        for text in [
            "x.\n/y",
            "a\u{a0}\n\u{a0}\nb",
            "x\n\u{a0}\ny",
            "1\u{663}1\u{663}1",
            "caf\u{e9}teria",
            "e\u{301}t\u{e9}",
            "it's we're I'LL",
            "a'b'c'd",
            "foo.bar-baz_qux",
            "--\n/\n/\n/x",
            "...\r\n\r\n",
            "  \n  \n",
            "\u{85}x\u{2028}y",
            "\u{1F600}\u{1F600} \u{4E2D}\u{6587}",
            "CamelCaseWordsHERE",
            "12345 678\n9",
            "'s 't",
            "\t\x0b\x0c\n",
            "a\x00b\x7fc",
        ] {
            assert_below_both(text);
        }
    }

    /// Random text from the characters the rules turn on, each text checked
    /// against both exact counts.
    #[test]
    fn the_bound_stays_below_both_exact_counts_on_random_text() {
        const ALPHABET: &[&str] = &[
            "a",
            "Z",
            "s",
            "t",
            "'",
            "1",
            "7",
            "\u{663}",
            "\u{e9}",
            "\u{301}",
            " ",
            " ",
            "\n",
            "\r",
            "/",
            "-",
            ".",
            "\u{a0}",
            "\u{85}",
            "\t",
            "\u{1F600}",
            "\u{4E2D}",
            "word ",
            " the",
            "ll",
            "\u{2028}",
            "#",
            "`",
        ];
        for text in crate::tokens::random_texts(ALPHABET, 14, 3000, 40) {
            assert_below_both(&text);
        }
    }

    #[test]
    fn the_bound_stays_below_both_exact_counts_on_the_bundled_skills() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
        let mut checked = 0;
        for entry in walkdir::WalkDir::new(&root) {
            let entry = entry.unwrap();
            if entry.file_name() == "SKILL.md" {
                let text = std::fs::read_to_string(entry.path()).unwrap();
                assert_below_both(&text);
                checked += 1;
            }
        }
        assert!(checked > 10, "only {checked} bundled skills found");
    }
}
