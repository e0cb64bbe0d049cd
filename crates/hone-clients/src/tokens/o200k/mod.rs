//! Exact `o200k_base` counts without loading `bpe-openai`'s encoder.
//!
//! The body-size rule (`HS402`) counts every long body, and `hone check` on a
//! library with no cache counts hundreds. `bpe-openai` counts exactly, but the
//! first count of a process pays for decoding its vocabulary into heap tables
//! (about 75 ms of CPU and 65 MiB) and for compiling its pre-tokenizer's
//! Unicode patterns: more than checking every other rule of a 1,800-skill
//! library. Here the same count is made by a hand-written pre-tokenizer
//! ([`split`]) and byte-pair encoding over a vocabulary table compiled into the
//! binary ([`vocab`]), so nothing is loaded. `bpe-openai` stays the reference
//! the tests compare with on random text, the bundled skills and the shared
//! corpus, and counts the rare pieces too long to merge here. Whether a text
//! exceeds a limit, the question `hone check` asks, is mostly answered by
//! bounds without merging anything ([`exceeds`]).

mod split;
mod vocab;
mod window;

use std::cell::RefCell;

use super::PieceCounts;

thread_local! {
    /// Per thread, so that parallel counting never waits on a lock.
    static RANKS: RefCell<vocab::RankCache> = RefCell::default();
}

/// The count of `text` when it is at most `limit`, else `None`, stopping as
/// soon as the limit is passed. Pieces that are one token are looked up; the
/// others' counts are remembered in `counts`, since merging costs more.
pub(super) fn count_up_to(text: &str, limit: usize, counts: &mut PieceCounts) -> Option<usize> {
    RANKS.with_borrow_mut(|ranks| {
        let mut parts = Vec::new();
        let mut total = 0usize;
        split::for_each_piece(text, |piece| {
            total += if ranks.is_token(piece) {
                1
            } else {
                counts.count(piece, || {
                    vocab::merged_piece_tokens(piece, ranks, &mut parts)
                })
            };
            total <= limit
        });
        (total <= limit).then_some(total)
    })
}

/// Whether `text` has more than `limit` tokens, from bounds where they
/// decide. Every piece is at least one token, and a piece that is no token
/// at least two, which bounds the count from below; a piece that is no
/// token and was never merged is bounded from above by its byte pairs
/// ([`vocab::unmerged_upper_bound`]), and the text not yet read by its
/// length. Merging such a piece costs some 200 ns, more than finding and
/// looking up all the others of a typical text; the bounds leave it to the
/// few texts they cannot decide (of the corpus's 1,224 bodies over 5,000
/// bytes, 53 against 5,000 tokens). Reading stops as soon as the bounds
/// decide: on those bodies, after 71% of their bytes. Where they do not,
/// the pieces are merged widest bounds first, until the bounds decide: a
/// first check of the corpus merges 7,137 of the 18,283 pieces it left
/// unmerged.
pub(super) fn exceeds(text: &str, limit: usize, counts: &mut PieceCounts) -> bool {
    // Over five bytes a token of the limit, a text likely holds more pieces
    // than the limit (the pieces of the corpus's long `SKILL.md` files
    // average 4.7 bytes), and pieces are counted without a lookup: of its 89
    // files over 5,000 tokens, 50 are this long, and all 50 are decided here.
    if text.len() > 5 * limit && more_pieces_than(text, limit) {
        return true;
    }
    RANKS.with_borrow_mut(|ranks| {
        let (mut lower, mut upper) = (0usize, 0usize);
        let mut unmerged = Vec::new();
        // The bytes not yet read, each at most a token.
        let mut unread = text.len();
        split::for_each_batch(text, |pieces| {
            for &piece in pieces {
                if ranks.is_token(piece) {
                    lower += 1;
                    upper += 1;
                } else if let Some(count) = counts.get(piece) {
                    lower += count;
                    upper += count;
                } else {
                    let bound = vocab::unmerged_upper_bound(piece);
                    lower += 2;
                    upper += bound;
                    unmerged.push((piece, bound));
                }
                unread -= piece.len();
            }
            lower <= limit && upper + unread > limit
        });
        if lower > limit {
            return true;
        }
        if upper + unread <= limit {
            return false;
        }
        // The whole text is read: merge the unmerged pieces, each narrowing
        // the bounds to its count, until they decide. The pieces whose
        // bounds lie widest apart go first: they move the bounds most.
        unmerged.sort_unstable_by_key(|&(_, bound)| std::cmp::Reverse(bound));
        let mut parts = Vec::new();
        for (piece, bound) in unmerged {
            let count = counts.count(piece, || {
                vocab::merged_piece_tokens(piece, ranks, &mut parts)
            });
            // Each bound holds this piece's own share: neither can wrap.
            lower = lower + count - 2;
            upper = upper + count - bound;
            if lower > limit {
                return true;
            }
            if upper <= limit {
                return false;
            }
        }
        lower > limit
    })
}

/// Whether `text` splits into more than `limit` pieces, each at least a token.
fn more_pieces_than(text: &str, limit: usize) -> bool {
    let mut pieces = 0;
    split::for_each_batch(text, |batch| {
        pieces += batch.len();
        pieces <= limit
    });
    pieces > limit
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count here equals `bpe-openai`'s.
    fn assert_exact(text: &str) {
        let mut counts = PieceCounts::default();
        let exact = bpe_openai::o200k_base().count(text);
        // Twice: the second time, merged pieces come from the memo.
        for _ in 0..2 {
            assert_eq!(
                count_up_to(text, usize::MAX, &mut counts),
                Some(exact),
                "{text:?}"
            );
        }
        if exact > 0 {
            assert_eq!(count_up_to(text, exact - 1, &mut counts), None, "{text:?}");
        }
        assert_bounds_hold(text, exact);
    }

    /// The bounds `exceeds` decides by hold on every piece of `text`, and it
    /// decides as the exact count does, with a fresh memo and a full one.
    fn assert_bounds_hold(text: &str, exact: usize) {
        let bpe = &bpe_openai::o200k_base().bpe;
        split::for_each_piece(text, |piece| {
            let count = bpe.count(piece);
            if count > 1 {
                assert!(vocab::unmerged_upper_bound(piece) >= count, "{piece:?}");
            }
            true
        });
        let limits = [
            0,
            exact / 2,
            exact.saturating_sub(1),
            exact,
            exact + 1,
            exact * 2,
        ];
        for memo in [PieceCounts::default(), {
            let mut full = PieceCounts::default();
            count_up_to(text, usize::MAX, &mut full);
            full
        }] {
            let mut memo = memo;
            for limit in limits {
                assert_eq!(
                    exceeds(text, limit, &mut memo),
                    exact > limit,
                    "{text:?} at {limit}"
                );
            }
        }
    }

    /// Long texts are first asked whether their pieces alone pass the
    /// limit; where they do not, the bounds and the count still decide.
    #[test]
    fn long_texts_are_decided_by_their_pieces_or_else_counted() {
        let mut rng = fastrand::Rng::with_seed(5);
        // 1,000 pieces of 21 bytes, each a space and 20 random letters: many
        // tokens a piece.
        let text: String = (0..1000)
            .map(|_| {
                let word: String = (0..20).map(|_| rng.lowercase()).collect();
                format!(" {word}")
            })
            .collect();
        let exact = bpe_openai::o200k_base().count(&text);
        assert!(exact > 3000, "{exact}");
        // Every limit but the last two is under a fifth of the text's length.
        for limit in [500, 999, 1000, 2000, 3000, exact - 1, exact] {
            assert_eq!(more_pieces_than(&text, limit), limit < 1000, "{limit}");
            let mut counts = PieceCounts::default();
            assert_eq!(exceeds(&text, limit, &mut counts), exact > limit, "{limit}");
        }
    }

    #[test]
    fn counts_match_the_encoder_on_tricky_text() {
        for text in [
            "",
            "hello world",
            "Hello World, it's 2024! We'll see: they've I'M you'RE he'D",
            "CamelCaseWORDSHere and HTTPServer XMLHttpRequest",
            "12345678 1,000.5 v2.0.1",
            "  \n\n  x\t\ty \r\n\r\n   ",
            "a   b    c\n   \n",
            "--\n//\n/x\n\n//comment",
            "path/to/file.rs:12:3 -> (ok) [x] {y} `code` **bold**",
            "|---|---|\n| a | b |\n",
            "caf\u{e9} na\u{ef}ve \u{c9}COLE \u{df}",
            "e\u{301}t\u{e9} \u{301}x \u{301}\u{301}",
            "\u{3b1}\u{3b2}\u{3b3} \u{394}\u{3b5}\u{3bb}\u{3c4}\u{3b1} \u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}",
            "\u{4e2d}\u{6587}\u{6587}\u{672c}\u{3002}\u{65e5}\u{672c}\u{8a9e}\u{306e}\u{30c6}\u{30ad}\u{30b9}\u{30c8}",
            "\u{2014}dash\u{2014} \u{201c}quoted\u{201d} \u{2192} \u{2713} \u{2022} item \u{2026}",
            "\u{1F600}\u{1F680} \u{2705}\u{FE0F} \u{1F468}\u{200D}\u{1F4BB} \u{1F1FA}\u{1F1F8}",
            "\u{a0}x\u{a0}\u{a0}y\u{2003}z\u{3000}",
            "x\u{FE0F}y A\u{FE0F}b \u{FE0F}\u{FE0F}",
            "\u{ff01}\u{ff10}\u{ff21}\u{ff41} \u{b2}\u{b3} \u{aa}\u{ba}\u{b5} H\u{2082}O x\u{2074}",
            "'s 'S 'll 'LL 're 've 'm 'd 't 'x it'\u{17f} IT'\u{17f}T",
            "don't\nwon't\n'tis",
            "\u{1c5}ungla \u{2160}\u{2161} \u{10d0}\u{10d1} \u{645}\u{631}\u{62d}\u{628}\u{627}",
            &"=".repeat(600),
            &format!("a\n{}\nb", "=".repeat(600)),
        ] {
            assert_exact(text);
        }
    }

    /// Random text from the characters the pattern turns on.
    #[test]
    fn counts_match_the_encoder_on_random_text() {
        const ALPHABET: &[&str] = &[
            "a",
            "e",
            "s",
            "t",
            "Z",
            "K",
            "'",
            "1",
            "7",
            " ",
            " ",
            " ",
            "\n",
            "\r",
            "\t",
            "/",
            "-",
            ".",
            "(",
            "#",
            "`",
            "_",
            "word",
            " the",
            "ll",
            "re",
            "\u{e9}",
            "\u{c9}",
            "\u{301}",
            "\u{aa}",
            "\u{b2}",
            "\u{a0}",
            "\u{85}",
            "\u{2028}",
            "\u{2014}",
            "\u{2192}",
            "\u{2713}",
            "\u{FE0F}",
            "\u{200D}",
            "\u{1F600}",
            "\u{4E2D}",
            "\u{30C6}",
            "\u{3b1}",
            "\u{41f}",
            "\u{ff10}",
            "\u{3000}",
            "\u{17f}",
            "\u{1c5}",
            "\u{2160}",
            "\u{2082}",
        ];
        for text in crate::tokens::random_texts(ALPHABET, 200, 6000, 48) {
            assert_exact(&text);
        }
    }

    /// Any characters at all: never a panic, always the encoder's count.
    #[test]
    fn counts_match_the_encoder_on_arbitrary_characters() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..3000 {
            let len = rng.usize(1..24);
            let text: String = (0..len)
                .map(|_| match rng.usize(..3) {
                    0 => char::from(rng.u8(..0x80)),
                    1 => char::from_u32(rng.u32(0x80..0x3000)).unwrap_or('?'),
                    _ => char::from_u32(rng.u32(0x3000..0x11_0000)).unwrap_or('?'),
                })
                .collect();
            assert_exact(&text);
        }
    }

    /// Every character's class is the one the encoder's pattern gives it, and
    /// a contraction's letters match case-insensitively as the pattern's do.
    #[test]
    fn classes_agree_with_the_pattern() {
        use split::Class;
        let pattern = |class: Class| {
            let set = match class {
                Class::LineBreak => r"[\r\n]",
                Class::Space => r"[\s&&[^\r\n]]",
                Class::Upper => r"[\p{Lu}\p{Lt}]",
                Class::Lower => r"\p{Ll}",
                Class::Caseless => r"[\p{Lm}\p{Lo}]",
                Class::Mark => r"\p{M}",
                Class::Digit => r"\p{N}",
                Class::Punct => r"[^\s\p{L}\p{N}\p{M}]",
            };
            regex::Regex::new(&format!("^{set}$")).unwrap()
        };
        let classes = [
            Class::LineBreak,
            Class::Space,
            Class::Upper,
            Class::Lower,
            Class::Caseless,
            Class::Mark,
            Class::Digit,
            Class::Punct,
        ]
        .map(|class| (class, pattern(class)));
        let contraction = regex::Regex::new(r"^(?i:'s|'t|'re|'ve|'m|'ll|'d)").unwrap();
        let mut buffer = [0; 4];
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let class = split::class_of(c);
            let (_, expected) = classes.iter().find(|(k, _)| *k == class).unwrap();
            assert!(
                expected.is_match(c.encode_utf8(&mut buffer)),
                "U+{:04X} is not {class:?}",
                u32::from(c)
            );
            if !c.is_ascii() {
                // Only ASCII letters and U+017F may continue a contraction.
                let text = format!("'{c}e");
                assert_eq!(
                    contraction.is_match(&text),
                    c == '\u{17F}',
                    "U+{:04X}",
                    u32::from(c)
                );
            }
        }
    }

    #[test]
    fn the_bundled_skills_count_exactly() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
        let mut checked = 0;
        for entry in walkdir::WalkDir::new(&root) {
            let entry = entry.unwrap();
            if entry.path().extension().is_some_and(|e| e == "md") {
                assert_exact(&std::fs::read_to_string(entry.path()).unwrap());
                checked += 1;
            }
        }
        assert!(checked > 10, "only {checked} bundled markdown files found");
    }

    /// With the corpus present: every `SKILL.md` counts as `bpe-openai` counts it.
    #[test]
    #[ignore = "needs the shared corpus: HONE_CORPUS=../shared/corpus cargo test -- --ignored"]
    fn corpus_counts_match_the_encoder() {
        let mut checked = 0;
        for (_, bytes) in crate::corpus_files::skill_files() {
            assert_exact(&String::from_utf8_lossy(&bytes));
            checked += 1;
        }
        assert!(checked > 1000, "only {checked} skills in the corpus");
    }
}
