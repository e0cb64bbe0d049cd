//! `o200k_base`'s vocabulary as a static table written by `build.rs`, and
//! byte-pair encoding over it, as tiktoken defines the encoding: in a piece,
//! merge the adjacent pair of parts whose joined bytes have the lowest rank
//! (the leftmost of equals) until no joined pair is a token.
//!
//! Nothing is decoded at start: the table is read in place from the binary,
//! so the operating system pages in only the slots a check touches.

include!("table_layout.rs");

static SLOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_slots.bin"));
static TOKEN_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_bytes.bin"));
/// Every token of 3 to 7 bytes as its [`short_key`], by open addressing.
static SHORT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_short.bin"));
/// Every token of 8 to 15 bytes as its [`medium_key`], by open addressing.
static MEDIUM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_medium.bin"));
/// Bit `first << 8 | second` is set when the two bytes are one token.
static PAIRS: &[u8; 8192] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_pairs.bin"));

/// Pieces longer than this are counted by `bpe-openai` instead: merging here
/// is quadratic in the piece's length, like tiktoken's, and such pieces (a
/// long rule of `=`, a base64 blob) are rare.
const MAX_MERGED_BYTES: usize = 256;

/// The little-endian word at byte `at` of `table`.
fn word(table: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(table[at..at + 8].try_into().expect("8 bytes"))
}

/// log2 of the entries of a [`RankCache`].
const CACHE_BITS: u32 = 14;
/// The longest strings a [`RankCache`] keeps.
const CACHED_BYTES: usize = 16;
/// What a cache entry holds for a string that is no token.
const NO_TOKEN: u32 = (1 << 28) - 1;

/// Recent lookups of strings of up to 16 bytes, direct-mapped: `(the bytes
/// as two zero-padded little-endian words, length << 28 | rank)`, length 0
/// for an empty entry.
///
/// The vocabulary table is 8 MiB, so nearly every lookup in it misses the
/// processor's private caches: measured on the corpus, that one load was
/// most of the lookup's time. Merging looks up every join of a piece's parts
/// ([`merged_piece_tokens`]), and those repeat endlessly, so 384 KiB of
/// recent answers, kept per thread, serve most. ("Is this piece a token?"
/// asks the cache only for pieces of 16 bytes: shorter ones have tables of
/// their own, see [`RankCache::is_token`].)
pub(super) struct RankCache {
    entries: Box<[(u64, u64, u32)]>,
}

impl Default for RankCache {
    fn default() -> Self {
        RankCache {
            entries: vec![(0, 0, 0); 1 << CACHE_BITS].into_boxed_slice(),
        }
    }
}

impl RankCache {
    /// Whether `bytes` are one token. Every single byte is one, and whether
    /// two bytes are is a bit of [`PAIRS`]: a third of a text's pieces are
    /// that short, and neither hashing nor a cache line is spent on them.
    /// Pieces of three to seven bytes, nearly half, are looked up in
    /// [`SHORT`] by their bytes as one word, and pieces of eight to fifteen,
    /// a fifth, in [`MEDIUM`] by two: a multiply or two, and tables a
    /// quarter the vocabulary's size each, so more of them stays in the
    /// processor's caches (each table took 6 to 13 ms of CPU off the
    /// corpus's first check). Only longer pieces go through the cache and
    /// the vocabulary.
    pub(super) fn is_token(&mut self, bytes: &[u8]) -> bool {
        match *bytes {
            // No piece is empty, but no answer is wrong.
            [] => false,
            [_] => true,
            [first, second] => pair_is_token(first, second),
            _ if bytes.len() <= SHORT_MAX_BYTES => short_is_token(bytes),
            _ if bytes.len() <= MEDIUM_MAX_BYTES => medium_is_token(bytes),
            _ => self.rank(bytes).is_some(),
        }
    }

    /// The rank of the token whose bytes are `bytes`, if there is one.
    pub(super) fn rank(&mut self, bytes: &[u8]) -> Option<u32> {
        let prefix = vocab_prefix(bytes);
        let hash = vocab_hash(prefix, bytes);
        // Length 0 marks an empty entry; no piece is empty, but no answer is wrong.
        if bytes.len() > CACHED_BYTES || bytes.is_empty() {
            return rank_hashed(bytes, prefix, hash);
        }
        let rest = bytes.get(8..).map_or(0, vocab_prefix);
        let entry = &mut self.entries[(hash >> 16) as usize & ((1 << CACHE_BITS) - 1)];
        if entry.0 == prefix && entry.1 == rest && (entry.2 >> 28) as usize == bytes.len() {
            let rank = entry.2 & NO_TOKEN;
            return (rank != NO_TOKEN).then_some(rank);
        }
        let rank = rank_hashed(bytes, prefix, hash);
        *entry = (
            prefix,
            rest,
            (bytes.len() as u32) << 28 | rank.unwrap_or(NO_TOKEN),
        );
        rank
    }
}

/// The rank of the token whose bytes are `bytes`, if there is one.
#[cfg(test)]
fn rank(bytes: &[u8]) -> Option<u32> {
    let prefix = vocab_prefix(bytes);
    rank_hashed(bytes, prefix, vocab_hash(prefix, bytes))
}

fn rank_hashed(bytes: &[u8], prefix: u64, hash: u64) -> Option<u32> {
    let fingerprint = hash & 0xFFFF;
    let mut at = vocab_slot_of(hash);
    loop {
        let meta = word(SLOTS, at * 16 + 8);
        if meta == 0 {
            return None;
        }
        let len = ((meta >> VOCAB_OFFSET_BITS) & ((1 << VOCAB_LEN_BITS) - 1)) as usize;
        if meta >> 48 == fingerprint && len == bytes.len() && word(SLOTS, at * 16) == prefix {
            let offset = (meta & ((1 << VOCAB_OFFSET_BITS) - 1)) as usize;
            if len <= 8 || TOKEN_BYTES[offset + 8..offset + len] == bytes[8..] {
                let rank =
                    (meta >> (VOCAB_OFFSET_BITS + VOCAB_LEN_BITS)) & ((1 << VOCAB_RANK_BITS) - 1);
                return Some(rank as u32);
            }
        }
        at = (at + 1) % VOCAB_SLOTS;
    }
}

/// The number of tokens of a pre-token piece that is not itself a token (so
/// of at least two bytes);
/// `parts` is scratch space, reused between calls.
pub(super) fn merged_piece_tokens(
    piece: &[u8],
    ranks: &mut RankCache,
    parts: &mut Vec<(usize, u32)>,
) -> usize {
    if piece.len() > MAX_MERGED_BYTES {
        return bpe_openai::o200k_base().bpe.count(piece);
    }
    // `parts[i]` = (where part i starts, the rank of part i joined with part
    // i + 1, `u32::MAX` when that is no token); the last entry marks the end.
    parts.clear();
    for start in 0..piece.len() - 1 {
        let pair = ranks.rank(&piece[start..start + 2]);
        parts.push((start, pair.unwrap_or(u32::MAX)));
    }
    parts.push((piece.len() - 1, u32::MAX));
    parts.push((piece.len(), u32::MAX));
    let mut joined_rank = |parts: &[(usize, u32)], i: usize| match parts.get(i + 2) {
        Some(&(end, _)) => ranks.rank(&piece[parts[i].0..end]).unwrap_or(u32::MAX),
        None => u32::MAX,
    };
    loop {
        let mut lowest = (u32::MAX, 0);
        for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
            if rank < lowest.0 {
                lowest = (rank, i);
            }
        }
        if lowest.0 == u32::MAX {
            return parts.len() - 1;
        }
        // Part `i` absorbs part `i + 1`; the joins on either side change.
        let i = lowest.1;
        parts.remove(i + 1);
        parts[i].1 = joined_rank(parts, i);
        if i > 0 {
            parts[i - 1].1 = joined_rank(parts, i - 1);
        }
    }
}

/// Whether `bytes`, 3 to 7 of them, are one token.
fn short_is_token(bytes: &[u8]) -> bool {
    let key = short_key(bytes);
    holds(short_slot_of(key), SHORT_SLOTS, key, |at| {
        word(SHORT, at * 8)
    })
}

/// Whether `bytes`, 8 to 15 of them, are one token.
fn medium_is_token(bytes: &[u8]) -> bool {
    let key = medium_key(bytes);
    holds(medium_slot_of(key), MEDIUM_SLOTS, key, |at| {
        [word(MEDIUM, at * 16), word(MEDIUM, at * 16 + 8)]
    })
}

/// Whether the open-addressed table of `slots` slots, read by `slot`, holds
/// `key`, probing from `at` as `build.rs`'s `insert` filled it: up to the
/// first empty slot (`K::default()`).
fn holds<K: Default + PartialEq>(
    mut at: usize,
    slots: usize,
    key: K,
    slot: impl Fn(usize) -> K,
) -> bool {
    loop {
        let found = slot(at);
        if found == key {
            return true;
        }
        if found == K::default() {
            return false;
        }
        at = (at + 1) % slots;
    }
}

/// Whether the two bytes are one token.
fn pair_is_token(first: u8, second: u8) -> bool {
    let bit = usize::from(first) << 8 | usize::from(second);
    PAIRS[bit / 8] & (1 << (bit % 8)) != 0
}

/// At most how many tokens `piece`, which is no token, merges into.
///
/// Merging ends when no two adjacent parts join into a token, so two
/// adjacent parts of one byte each can only remain where those two bytes
/// are no token. Say the piece has `n` bytes, `k` adjacent byte pairs that
/// are no token, and merges into `m ≥ 2` parts of lengths `l_1 … l_m`. Of
/// the `m - 1` pairs of adjacent parts, at most `k` are two single bytes
/// (each sits on its own unjoinable byte pair), and every other pair spans
/// at least three bytes, so `Σ (l_j + l_{j+1}) ≥ 3(m - 1) - k`. The same sum
/// counts every part twice except the first and the last, once each, so it
/// is `2n - l_1 - l_m ≤ 2n - 2`. Hence `m ≤ (2n + k + 1) / 3`. And a piece
/// that is no token is at least two.
pub(super) fn unmerged_upper_bound(piece: &[u8]) -> usize {
    let unjoinable = piece
        .windows(2)
        .filter(|pair| !pair_is_token(pair[0], pair[1]))
        .count();
    ((2 * piece.len() + unjoinable + 1) / 3).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_found_with_its_rank() {
        let bpe = &bpe_openai::o200k_base().bpe;
        for token in 0..bpe.num_tokens() as u32 {
            assert_eq!(rank(bpe.token_bytes(token)), Some(token));
        }
        assert_eq!(rank(b"no such token in o200k \x00\x01"), None);
        assert_eq!(rank(b""), None);
        // Merging starts from single bytes, each of them a token.
        for byte in 0..=u8::MAX {
            assert!(rank(&[byte]).is_some(), "byte {byte} is no token");
        }
    }

    #[test]
    fn the_pair_bitmap_agrees_with_the_table() {
        for first in 0..=u8::MAX {
            for second in 0..=u8::MAX {
                let pair = [first, second];
                assert_eq!(pair_is_token(first, second), rank(&pair).is_some());
                assert_eq!(RankCache::default().is_token(&pair), rank(&pair).is_some());
            }
        }
    }

    #[test]
    fn the_short_and_medium_tables_agree_with_the_table() {
        let bpe = &bpe_openai::o200k_base().bpe;
        let mut cache = RankCache::default();
        for token in 0..bpe.num_tokens() as u32 {
            let bytes = bpe.token_bytes(token);
            match bytes.len() {
                3..=SHORT_MAX_BYTES => assert!(short_is_token(bytes), "{bytes:?}"),
                8..=MEDIUM_MAX_BYTES => assert!(medium_is_token(bytes), "{bytes:?}"),
                _ => {}
            }
            assert!(cache.is_token(bytes), "{bytes:?}");
        }
        assert!(!cache.is_token(b""));
        // Strings that are mostly no token, from letters, spaces and bytes
        // around the zero padding and the length byte; short ones are often
        // tokens.
        let mut rng = fastrand::Rng::with_seed(11);
        let alphabet = b" aeinrstABC\x00\x01\x03\x07\xff";
        for _ in 0..400_000 {
            let len = rng.usize(3..=MEDIUM_MAX_BYTES);
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect();
            let expected = rank(&bytes).is_some();
            if len <= SHORT_MAX_BYTES {
                assert_eq!(short_is_token(&bytes), expected, "{bytes:?}");
            } else {
                assert_eq!(medium_is_token(&bytes), expected, "{bytes:?}");
            }
            assert_eq!(cache.is_token(&bytes), expected, "{bytes:?}");
        }
        // Tokens with a byte changed: near misses that share a slot's prefix.
        for token in (0..bpe.num_tokens() as u32).step_by(7) {
            let mut bytes = bpe.token_bytes(token).to_vec();
            if (3..=MEDIUM_MAX_BYTES).contains(&bytes.len()) {
                let at = rng.usize(..bytes.len());
                bytes[at] ^= 1 << rng.u32(..8);
                assert_eq!(cache.is_token(&bytes), rank(&bytes).is_some(), "{bytes:?}");
            }
        }
    }

    #[test]
    fn cached_lookups_agree_with_the_table() {
        let mut cache = RankCache::default();
        let strings: Vec<Vec<u8>> = (0..40_000u32)
            .map(|i| match i % 4 {
                0 => vec![i as u8],
                1 => (i as u16).to_le_bytes().to_vec(),
                2 => format!(" w{}", i % 5000).into_bytes(),
                3 if i % 8 == 3 => format!(" configurations{}", i % 50).into_bytes(),
                _ => vec![0; (i % 18) as usize],
            })
            .collect();
        for _ in 0..2 {
            for bytes in &strings {
                assert_eq!(cache.rank(bytes), rank(bytes), "{bytes:?}");
            }
        }
    }

    #[test]
    fn merging_matches_the_encoder() {
        let bpe = &bpe_openai::o200k_base().bpe;
        let (mut ranks, mut parts) = (RankCache::default(), Vec::new());
        for piece in [
            &b"unbelievablenessly"[..],
            b" Xylophonequartzification",
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"==========================================",
            &[b'='; 300],
            "\u{4e2d}\u{6587}\u{6587}\u{672c}".as_bytes(),
        ] {
            assert_eq!(
                merged_piece_tokens(piece, &mut ranks, &mut parts),
                bpe.count(piece)
            );
        }
    }
}
