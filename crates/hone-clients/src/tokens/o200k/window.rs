//! The pieces of 64 bytes of ASCII text at once, from bit masks.
//!
//! [`super::split`]'s scanner finds one piece at a time, branching on each
//! piece's kind and length, which the processor cannot predict: about 16 ns a
//! piece in the tokens bench. Here a window of 64 bytes is classified with
//! SSE2 (a mask per class, bit `i` for byte `i`) and the pattern's rules
//! become bit arithmetic on the masks, so the places where pieces start come
//! out together, without a branch per piece (splitting fell from 10% to 4% of
//! a first check's CPU).
//!
//! The window starts where a piece starts, so the pattern's alternatives are
//! tried from its first byte as from the text's, and the bytes before it
//! matter to nothing. Its rules, for ASCII (the module doc of `split.rs`
//! gives the pattern):
//!
//! - A run of letters starts a piece, and so does a capital after a small
//!   letter (`camelCase`; a run of capitals followed by small letters is one
//!   word). A letter run takes the byte before it as its lead when that is
//!   whitespace other than a line break, or a punctuation byte that is
//!   neither preceded by punctuation nor by a space (those join the
//!   punctuation piece ` ?[^\s\p{L}\p{N}]+`).
//! - A contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`) after a
//!   letter run ends its piece; letters after it start a new one.
//! - Digits come in pieces of up to three, counted from the run's start.
//! - A punctuation run that leads no word is a piece, with the space before
//!   it, and the line breaks right after it.
//! - A run of whitespace (after the line breaks a punctuation piece took)
//!   is a piece through its last line break; then, before something that is
//!   no whitespace, its last byte starts a piece of its own.
//!
//! What the window cannot see decides nothing: a piece is given only when
//! the bytes after its end that its rules read (at most four, and the end of
//! a run of whitespace) are ASCII inside the window. Anything else (non-ASCII
//! text, the text's last bytes, a `/` after a line break, which a
//! punctuation piece may take, long runs) is left to the scanner. The tests
//! compare the two on random text and on the bundled skills.

/// The bytes a window classifies.
pub(super) const WINDOW: usize = 64;

/// How many bytes past a place the rules read to decide whether a piece
/// starts there (a contraction: `'`, two letters, and what follows).
const LOOKAHEAD: usize = 4;

/// One bit per byte of the window, for each class the rules read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Classes {
    lower: u64,
    upper: u64,
    digit: u64,
    /// `\s`: space, `\t`, `\n`, `\v`, `\f`, `\r`.
    whitespace: u64,
    /// `\r` or `\n`.
    line_break: u64,
    space: u64,
    slash: u64,
    apostrophe: u64,
    /// Bytes below 0x80.
    ascii: u64,
}

#[cfg(target_arch = "x86_64")]
fn classify(window: &[u8; WINDOW]) -> Classes {
    // SAFETY: SSE2 is part of the x86_64 baseline, so every x86_64 processor has it.
    unsafe { classify_sse2(window) }
}

#[cfg(not(target_arch = "x86_64"))]
fn classify(window: &[u8; WINDOW]) -> Classes {
    classify_bytes(window)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn classify_sse2(window: &[u8; WINDOW]) -> Classes {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut classes = Classes::default();
    for (i, chunk) in window.chunks_exact(16).enumerate() {
        // SAFETY: the chunk holds the 16 bytes read; the load has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        // Signed compares: bytes from 0x80 on are negative and in no range.
        let between = |low: u8, high: u8| {
            _mm_and_si128(
                _mm_cmpgt_epi8(v, _mm_set1_epi8(low as i8 - 1)),
                _mm_cmplt_epi8(v, _mm_set1_epi8(high as i8 + 1)),
            )
        };
        let equal = |byte: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8));
        let shift = 16 * i;
        let bits = |mask: __m128i| u64::from(_mm_movemask_epi8(mask) as u16) << shift;
        let space = equal(b' ');
        classes.lower |= bits(between(b'a', b'z'));
        classes.upper |= bits(between(b'A', b'Z'));
        classes.digit |= bits(between(b'0', b'9'));
        classes.whitespace |= bits(_mm_or_si128(between(b'\t', b'\r'), space));
        classes.line_break |= bits(_mm_or_si128(equal(b'\n'), equal(b'\r')));
        classes.space |= bits(space);
        classes.slash |= bits(equal(b'/'));
        classes.apostrophe |= bits(equal(b'\''));
        classes.ascii |= !bits(v) & (0xFFFF << shift);
    }
    classes
}

/// [`classify`] a byte at a time, from the scanner's table of ASCII classes.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn classify_bytes(window: &[u8; WINDOW]) -> Classes {
    use super::split::{Class, ascii_class};
    let mut classes = Classes::default();
    for (i, &byte) in window.iter().enumerate() {
        let bit = 1u64 << i;
        if !byte.is_ascii() {
            continue;
        }
        classes.ascii |= bit;
        match ascii_class(byte) {
            Class::Lower => classes.lower |= bit,
            Class::Upper => classes.upper |= bit,
            Class::Digit => classes.digit |= bit,
            Class::LineBreak => classes.whitespace |= bit,
            Class::Space => classes.whitespace |= bit,
            _ => {}
        }
        match byte {
            b'\r' | b'\n' => classes.line_break |= bit,
            b' ' => classes.space |= bit,
            b'/' => classes.slash |= bit,
            b'\'' => classes.apostrophe |= bit,
            _ => {}
        }
    }
    classes
}

/// Where pieces start in `window`, which starts a piece: bit `i` set for
/// byte `i`, and `end`, the start of the first piece not given (0 when the
/// window gives none). Every piece given lies wholly before `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Starts {
    pub bits: u64,
    pub end: usize,
}

/// The pieces `window` decides; see the module doc.
pub(super) fn starts(window: &[u8; WINDOW]) -> Starts {
    const NONE: Starts = Starts { bits: 0, end: 0 };
    let c = classify(window);
    // The bytes the rules may read: ASCII up to the first byte that is not,
    // and before a `/` that follows a line break (the line break may belong
    // to a punctuation piece, which would take the `/` as well).
    let mut known_len = (!c.ascii).trailing_zeros() as usize;
    let slash_after_break = c.slash & (c.line_break << 1);
    known_len = known_len.min(slash_after_break.trailing_zeros() as usize);
    if known_len <= LOOKAHEAD {
        return NONE;
    }
    let known = below(known_len);
    let lower = c.lower & known;
    let upper = c.upper & known;
    let digit = c.digit & known;
    let whitespace = c.whitespace & known;
    let line_break = c.line_break & known;
    let space = c.space & known;
    let letter = lower | upper;
    let punct = known & !(letter | digit | whitespace);
    let inline_space = whitespace & !line_break;

    // Words: where a letter run starts, and whether it takes a lead.
    let letter_run = letter & !(letter << 1);
    let camel = upper & (lower << 1);
    let lone_punct = punct & !(punct << 1) & !(space << 1);
    let led = letter_run & ((inline_space | lone_punct) << 1);
    let mut bits = (letter_run & !led) | (led >> 1) | camel;

    // Punctuation runs that lead no word, with the space before them.
    let punct_run = punct & !(punct << 1) & !(led >> 1);
    bits |= (punct_run & !(space << 1)) | ((punct_run & (space << 1)) >> 1);

    // Numbers, three digits a piece.
    let digit_run = digit & !(digit << 1);
    bits |= digit_run;
    let mut long_numbers = digit_run & (digit >> 1) & (digit >> 2) & (digit >> 3);
    while long_numbers != 0 {
        let start = long_numbers.trailing_zeros() as usize;
        let run_end = start + (digit >> start).trailing_ones() as usize;
        for at in (start + 3..run_end).step_by(3) {
            bits |= 1 << at;
        }
        long_numbers &= long_numbers - 1;
    }

    // Whitespace. Line breaks right after punctuation belong to its piece.
    let taken = line_break & !line_break.wrapping_add(line_break & (punct << 1));
    let spaced = whitespace & !taken;
    bits |= spaced & (!(whitespace << 1) | (taken << 1));
    // After the run's last line break, when the run goes on without another.
    let mut after_break = inline_space & (line_break << 1);
    while after_break != 0 {
        let at = after_break.trailing_zeros() as usize;
        let run_end = at + (!(inline_space >> at)).trailing_zeros() as usize;
        if run_end < known_len && line_break & (1 << run_end) == 0 {
            bits |= 1 << at;
        }
        after_break &= after_break - 1;
    }
    // The run's last byte, before something that is no whitespace.
    bits |= inline_space & !(whitespace >> 1) & (known >> 1);

    // Contractions end the word before them.
    let mut apostrophes = c.apostrophe & (letter << 1) & (letter >> 1) & known;
    let mut contraction_end = usize::MAX;
    while apostrophes != 0 {
        let at = apostrophes.trailing_zeros() as usize;
        apostrophes &= apostrophes - 1;
        // A word takes one contraction: `'s` after `it's` leads a word of its own.
        if at == contraction_end || at + 3 > WINDOW {
            continue;
        }
        let len = contraction_len(window[at + 1], window[at + 2]);
        if len == 0 {
            continue;
        }
        bits &= !(below(at + len) & !below(at));
        // Past the window, `letter` has no bit: nothing is set there.
        bits |= letter & 1u64.checked_shl((at + len) as u32).unwrap_or(0);
        contraction_end = at + len;
    }

    bits &= !taken;
    bits |= 1;
    // Nothing after a run of whitespace that reaches past the known bytes
    // is decided: where its pieces end depends on how it ends.
    let mut limit = known_len - LOOKAHEAD;
    if whitespace & (1 << (known_len - 1)) != 0 {
        let before_run = !whitespace & known;
        let run_start = WINDOW - before_run.leading_zeros() as usize;
        limit = limit.min(run_start);
    }
    let candidates = bits & below(limit + 1);
    let end = WINDOW - 1 - candidates.leading_zeros() as usize;
    if end == 0 {
        return NONE;
    }
    Starts {
        bits: bits & below(end),
        end,
    }
}

/// Bits `0..n`.
fn below(n: usize) -> u64 {
    if n >= WINDOW { u64::MAX } else { (1 << n) - 1 }
}

/// The length of the contraction `'` + `first` + `second` starts (2 or 3), or 0.
fn contraction_len(first: u8, second: u8) -> usize {
    match (first.to_ascii_lowercase(), second.to_ascii_lowercase()) {
        (b's' | b't' | b'm' | b'd', _) => 2,
        (b'r' | b'v', b'e') | (b'l', b'l') => 3,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_window(rng: &mut fastrand::Rng) -> [u8; WINDOW] {
        let alphabet: &[u8] = b"aAzZbQ09 \t\n\r\x0b\x0c'/.-_#,sStTrReEvVlLmMdD\x7f\x00\xc3";
        std::array::from_fn(|_| alphabet[rng.usize(..alphabet.len())])
    }

    /// The pieces of `text`, one at a time by the scanner alone.
    fn scanned(text: &str) -> Vec<&str> {
        let mut pieces = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = super::super::split::scanned_piece_end(text, at);
            pieces.push(&text[at..end]);
            at = end;
        }
        pieces
    }

    fn windowed(text: &str) -> Vec<&str> {
        let mut pieces = Vec::new();
        super::super::split::for_each_piece(text, |piece| {
            pieces.push(std::str::from_utf8(piece).expect("pieces end on char boundaries"));
            true
        });
        pieces
    }

    /// Random text from the bytes the rules turn on, some of it not ASCII.
    fn random_text(rng: &mut fastrand::Rng) -> String {
        const PARTS: &[&str] = &[
            "a", "b", "z", "A", "Q", "Z", "0", "7", "9", " ", " ", "  ", "\t", "\n", "\r", "\r\n",
            "\x0b", "\x0c", "'", "'s", "'T", "'re", "'VE", "'ll", "'m", "'d", "/", ".", "-", "#",
            "_", ",", "\x7f", "\x00", "é", "—", "\u{a0}", "日本", "the", " the", "It", "don't",
            "1234567", "\n\n", "  \n  ", ".\n/", "x's's", "\u{17f}",
        ];
        // Half the texts are ASCII, so that most of their windows decide pieces.
        let ascii = rng.bool();
        let len = rng.usize(0..160);
        (0..len)
            .map(|_| PARTS[rng.usize(..PARTS.len())])
            .filter(|part| !ascii || part.is_ascii())
            .collect()
    }

    /// Fails with the first piece where the two differ, and the pieces before it.
    fn assert_same(text: &str, what: &str) {
        let (ours, theirs) = (windowed(text), scanned(text));
        if let Some(i) = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i)) {
            let from = i.saturating_sub(4);
            panic!(
                "{what}: piece {i}: windowed {:?}, scanned {:?}",
                &ours[from..(i + 2).min(ours.len())],
                &theirs[from..(i + 2).min(theirs.len())]
            );
        }
    }

    #[test]
    fn windows_split_as_the_scanner_does() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..50_000 {
            let text = random_text(&mut rng);
            assert_same(&text, &format!("{text:?}"));
        }
    }

    #[test]
    fn windows_split_the_bundled_skills_as_the_scanner_does() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../skills");
        let mut checked = 0;
        for entry in walkdir::WalkDir::new(root) {
            let entry = entry.expect("the bundled skills are readable");
            if entry.file_name() == "SKILL.md" {
                let text = std::fs::read_to_string(entry.path()).expect("UTF-8");
                assert_same(&text, &entry.path().display().to_string());
                checked += 1;
            }
        }
        assert!(checked > 10, "only {checked} bundled skills found");
    }

    /// With the corpus present: every `SKILL.md` splits as the scanner splits it.
    #[test]
    #[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
    fn windows_split_the_corpus_as_the_scanner_does() {
        let mut checked = 0;
        for (path, bytes) in crate::corpus_files::skill_files() {
            assert_same(
                &String::from_utf8_lossy(&bytes),
                &path.display().to_string(),
            );
            checked += 1;
        }
        assert!(checked > 1000, "only {checked} skills in the corpus");
    }

    #[test]
    fn sse2_and_byte_by_byte_classes_agree() {
        let mut rng = fastrand::Rng::with_seed(11);
        for _ in 0..20_000 {
            let window: [u8; WINDOW] = if rng.bool() {
                random_window(&mut rng)
            } else {
                std::array::from_fn(|_| rng.u8(..))
            };
            assert_eq!(classify(&window), classify_bytes(&window), "{window:?}");
        }
    }
}
