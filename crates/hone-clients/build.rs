//! Writes what `src/tokens/o200k` counts with, so that counting loads nothing:
//!
//! - OpenAI's `o200k_base` vocabulary as a static hash table (token bytes to
//!   rank), for `include_bytes!`. `bpe-openai` decodes its vocabulary into heap
//!   tables on first use, about 75 ms of CPU and 65 MiB for every cold
//!   `hone check`; a table built here is ready the moment the program starts,
//!   and only the pages a check touches are read. It comes from the same
//!   `bpe-openai` release the engine falls back on, so the two cannot drift.
//! - Which two-byte strings are tokens, as a bitmap of 65,536 bits: the
//!   upper bound in `o200k/vocab.rs` reads it for every piece that is no token, so
//!   it must fit the processor's first-level cache.
//! - Every token of 3 to 7 bytes, as its bytes and length in one word, in a
//!   hash table of 2 MiB, and every token of 8 to 15 bytes in two words, in
//!   another of 2 MiB: two thirds of a text's pieces are that long, and these
//!   answer "is it a token?" for them in a multiply or two and mostly one
//!   load.
//! - The Unicode classes the `o200k` pre-tokenizer's pattern turns on, as
//!   sorted ranges, for `include!`. They come from `regex-syntax`, the tables
//!   `bpe-openai`'s own pattern is compiled with.

use std::fmt::Write as _;
use std::path::PathBuf;

include!("src/tokens/o200k/table_layout.rs");

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/tokens/o200k/table_layout.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    write_vocabulary(&out);
    write_classes(&out);
}

fn write_vocabulary(out: &std::path::Path) {
    let bpe = &bpe_openai::o200k_base().bpe;
    let tokens = bpe.num_tokens();
    assert!(tokens < 1 << VOCAB_RANK_BITS, "{tokens} ranks do not fit");
    let mut bytes = Vec::new();
    let mut slots = vec![[0u64; 2]; VOCAB_SLOTS];
    for rank in 0..tokens as u32 {
        let token = bpe.token_bytes(rank);
        let offset = bytes.len() as u64;
        bytes.extend_from_slice(token);
        assert!(!token.is_empty() && token.len() < 1 << VOCAB_LEN_BITS);
        let prefix = vocab_prefix(token);
        let hash = vocab_hash(prefix, token);
        let meta = offset
            | (token.len() as u64) << VOCAB_OFFSET_BITS
            | u64::from(rank) << (VOCAB_OFFSET_BITS + VOCAB_LEN_BITS)
            | (hash & 0xFFFF) << 48;
        insert(&mut slots, vocab_slot_of(hash), [prefix, meta]);
    }
    assert!(
        bytes.len() < 1 << VOCAB_OFFSET_BITS,
        "token bytes do not fit"
    );
    write_words(out, "o200k_slots.bin", slots.iter().flatten().copied());
    std::fs::write(out.join("o200k_bytes.bin"), bytes).expect("OUT_DIR is writable");
    let mut pairs = vec![0u8; 1 << 13];
    for rank in 0..tokens as u32 {
        if let &[first, second] = bpe.token_bytes(rank) {
            let bit = usize::from(first) << 8 | usize::from(second);
            pairs[bit / 8] |= 1 << (bit % 8);
        }
    }
    std::fs::write(out.join("o200k_pairs.bin"), pairs).expect("OUT_DIR is writable");
    let mut short = vec![0u64; SHORT_SLOTS];
    let mut medium = vec![[0u64; 2]; MEDIUM_SLOTS];
    for rank in 0..tokens as u32 {
        let token = bpe.token_bytes(rank);
        match token.len() {
            3..=SHORT_MAX_BYTES => {
                let key = short_key(token);
                insert(&mut short, short_slot_of(key), key);
            }
            len if len > SHORT_MAX_BYTES && len <= MEDIUM_MAX_BYTES => {
                let key = medium_key(token);
                insert(&mut medium, medium_slot_of(key), key);
            }
            _ => {}
        }
    }
    write_words(out, "o200k_short.bin", short);
    write_words(out, "o200k_medium.bin", medium.iter().flatten().copied());
}

/// Puts `key` in the first empty slot from `at` on: open addressing with
/// linear probing, as `o200k/vocab.rs` reads it. An empty slot is
/// `K::default()` (zeros), which no key is.
fn insert<K: Copy + Default + PartialEq>(slots: &mut [K], mut at: usize, key: K) {
    while slots[at] != K::default() {
        at = (at + 1) % slots.len();
    }
    slots[at] = key;
}

/// Writes `words` to `name` in `out`, little-endian, for `include_bytes!`.
fn write_words(out: &std::path::Path, name: &str, words: impl IntoIterator<Item = u64>) {
    let bytes: Vec<u8> = words.into_iter().flat_map(u64::to_le_bytes).collect();
    std::fs::write(out.join(name), bytes).expect("OUT_DIR is writable");
}

/// `NON_ASCII_CLASSES`: (first, last, class) of every non-ASCII range that
/// is whitespace, a letter, a mark or a number; anything else is punctuation
/// to the pattern.
fn write_classes(out: &std::path::Path) {
    let classes = [
        (r"\s", "Space"),
        (r"[\p{Lu}\p{Lt}]", "Upper"),
        (r"\p{Ll}", "Lower"),
        (r"[\p{Lm}\p{Lo}]", "Caseless"),
        (r"\p{M}", "Mark"),
        (r"\p{N}", "Digit"),
    ];
    let mut ranges = Vec::new();
    for (pattern, class) in classes {
        let hir = regex_syntax::Parser::new()
            .parse(pattern)
            .expect("a valid pattern");
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(set)) = hir.kind()
        else {
            panic!("{pattern} is no Unicode class");
        };
        for range in set.ranges() {
            let (first, last) = (u32::from(range.start()).max(0x80), u32::from(range.end()));
            if first <= last {
                ranges.push((first, last, class));
            }
        }
    }
    ranges.sort();
    for pair in ranges.windows(2) {
        assert!(pair[0].1 < pair[1].0, "classes overlap at {:X}", pair[1].0);
    }
    let mut source = format!(
        "/// Generated by build.rs from regex-syntax's Unicode tables.\n\
         static NON_ASCII_CLASSES: [(u32, u32, Class); {}] = [\n",
        ranges.len()
    );
    for (first, last, class) in ranges {
        writeln!(source, "    (0x{first:X}, 0x{last:X}, Class::{class}),").expect("a String");
    }
    source.push_str("];\n");
    std::fs::write(out.join("o200k_classes.rs"), source).expect("OUT_DIR is writable");
}
