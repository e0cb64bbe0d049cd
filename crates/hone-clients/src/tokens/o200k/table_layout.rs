// The layout of the static o200k vocabulary table, shared by `build.rs` (which
// writes it) and `vocab.rs` (which reads it): `include!`d by both, so the two
// can never disagree on a hash or a bit position.
//
// The table is open addressing with linear probing over `VOCAB_SLOTS` slots of
// two little-endian `u64`s each. The first holds the token's first 8 bytes,
// zero-padded, so a short token is compared without reading its bytes
// elsewhere. The second is 0 for an empty slot, else: bits 0..22 the token's
// offset in the bytes file, 22..30 its length, 30..48 its rank, 48..64 a
// fingerprint of its hash.

/// log2 of the slots: 2^19 slots hold o200k's 199,998 tokens at a load of 0.38.
const VOCAB_SLOT_BITS: u32 = 19;
const VOCAB_SLOTS: usize = 1 << VOCAB_SLOT_BITS;
const VOCAB_OFFSET_BITS: u32 = 22;
const VOCAB_LEN_BITS: u32 = 8;
const VOCAB_RANK_BITS: u32 = 18;

/// The first 8 bytes of `bytes`, zero-padded, as a little-endian integer.
/// Read as two overlapping loads rather than copied into a buffer: a copy
/// read back at once stalls the processor, which measured as a seventh of a
/// lookup's time.
fn vocab_prefix(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if let Some(first) = bytes.first_chunk::<8>() {
        return u64::from_le_bytes(*first);
    }
    let (low, high) = if n >= 4 {
        let low = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
        let high = u32::from_le_bytes(bytes[n - 4..].try_into().expect("4 bytes"));
        (u64::from(low), u64::from(high) << (8 * (n - 4)))
    } else if n >= 2 {
        let low = u16::from_le_bytes(bytes[..2].try_into().expect("2 bytes"));
        let high = u16::from_le_bytes(bytes[n - 2..].try_into().expect("2 bytes"));
        (u64::from(low), u64::from(high) << (8 * (n - 2)))
    } else {
        (bytes.first().map_or(0, |&b| u64::from(b)), 0)
    };
    // The loads overlap where they share bytes, which are the same bytes.
    low | high
}

/// A 64-bit hash of a byte string whose first 8 bytes are `prefix`: the slot
/// is its top bits, the fingerprint its low 16.
fn vocab_hash(prefix: u64, bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut hash = ((bytes.len() as u64).wrapping_mul(K) ^ prefix)
        .wrapping_mul(K)
        .rotate_left(27);
    if bytes.len() > 8 {
        for chunk in bytes[8..].chunks(8) {
            hash = (hash ^ vocab_prefix(chunk)).wrapping_mul(K).rotate_left(27);
        }
    }
    // MurmurHash3's finaliser: every input bit reaches the top bits.
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    hash ^ (hash >> 33)
}

fn vocab_slot_of(hash: u64) -> usize {
    (hash >> (64 - VOCAB_SLOT_BITS)) as usize
}

/// log2 of the slots of the table of short tokens (3 to 7 bytes): 2^18 slots
/// of one `u64` hold o200k's 127,451 such tokens at a load of 0.49, in 2 MiB.
const SHORT_SLOT_BITS: u32 = 18;
const SHORT_SLOTS: usize = 1 << SHORT_SLOT_BITS;
/// The longest tokens the short table holds: their bytes and length fit one word.
const SHORT_MAX_BYTES: usize = 7;

/// A string of 3 to 7 bytes as one word: its bytes, zero-padded, little-endian,
/// with its length in the top byte, so no two strings share a key and no key is 0.
fn short_key(bytes: &[u8]) -> u64 {
    vocab_prefix(bytes) | (bytes.len() as u64) << 56
}

fn short_slot_of(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SHORT_SLOT_BITS)) as usize
}

/// log2 of the slots of the table of medium tokens (8 to 15 bytes): 2^17
/// slots of two `u64`s hold o200k's 60,180 such tokens at a load of 0.46, in
/// 2 MiB.
const MEDIUM_SLOT_BITS: u32 = 17;
const MEDIUM_SLOTS: usize = 1 << MEDIUM_SLOT_BITS;
/// The longest tokens the medium table holds: their bytes and length fit two words.
const MEDIUM_MAX_BYTES: usize = 15;

/// A string of 8 to 15 bytes as two words: its first 8 bytes, and the rest,
/// zero-padded, with the length in the top byte (so the second is never 0).
fn medium_key(bytes: &[u8]) -> [u64; 2] {
    [
        vocab_prefix(bytes),
        vocab_prefix(&bytes[8..]) | (bytes.len() as u64) << 56,
    ]
}

fn medium_slot_of([first, second]: [u64; 2]) -> usize {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mixed = (first.wrapping_mul(K) ^ second).wrapping_mul(K);
    (mixed >> (64 - MEDIUM_SLOT_BITS)) as usize
}
