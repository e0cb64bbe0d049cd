//! Token counts, exact where an exact count exists.
//!
//! An agent pays for a skill in three stages: its *metadata* sits in every
//! request's catalog, its *instructions* (the body) load when it is chosen,
//! and its *resources* load only when the body sends the agent to them.
//! `catalog::skill_costs` measures all three with a tokenizer from here, so
//! an author sees what a word in the description costs compared with a page
//! of reference. This module is the tokenizer alone: it sits below the
//! client profiles and the catalog and imports neither.
//!
//! Tokenizers:
//! - `o200k` and `cl100k`: OpenAI's public encodings, exact and offline. The
//!   ranks are compiled into the binary by `bpe-openai`; `o200k`, the one
//!   `hone check` counts with, is counted without decoding them (see
//!   `o200k/mod.rs`), from a table `build.rs` writes. Measured against
//!   `tiktoken-rs` on the corpus's 16.9 MB of `SKILL.md`, it loads its ranks
//!   2 to 4 times faster and counts about 1.5 times faster, so it was kept;
//!   a per-thread memo of piece counts (below) makes it 2.5 times faster again.
//! - a Hugging Face `tokenizer.json` by path: exact for the model it belongs to.
//! - `claude`: an *estimate*. No exact offline tokenizer exists for current
//!   Claude models, so the count is an exact `o200k` count scaled by a factor
//!   measured once; see [`CLAUDE_FACTOR`] for the method. Everything that
//!   shows it says "estimate" (the CLI prints `~`).
//!
//! Text that looks like a special token (`<|endoftext|>`) is counted as the
//! ordinary text it is: a skill cannot inject control tokens.

mod bounds;
pub mod memo;
mod o200k;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

/// The built-in tokenizer names, as `--tokenizer` accepts them.
pub const BUILTIN_NAMES: &[&str] = &["o200k", "cl100k", "claude"];

/// Claude tokens per `o200k` token, for the `claude` estimate.
///
/// Method: Anthropic publishes no tokenizer for current Claude models; the
/// only one it published is the legacy Claude tokenizer (npm package
/// `@anthropic-ai/tokenizer` 0.0.4). That tokenizer was run once over every
/// `SKILL.md` of a 1,821-skill corpus (16.9 MB) and its total, 4,382,516
/// tokens, divided by the exact `o200k` total of the same texts, 3,953,995:
/// 1.108. The estimate is an exact `o200k` count times this factor, rounded
/// up. Against the legacy tokenizer, the per-file error has a median of 2.1%
/// and a 90th percentile of 5.5%; current models' tokenizers are unpublished
/// and may differ more, which is why the count is only ever shown as an
/// estimate.
pub const CLAUDE_FACTOR: f64 = 1.108;

/// One of the two OpenAI encodings compiled into the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    O200k,
    Cl100k,
}

/// Texts of more bytes than this times a limit are tried against the lower
/// bound on their count before they are counted.
const BOUND_MIN_BYTES_PER_LIMIT: usize = 3;

/// Pieces up to this many bytes have their counts remembered.
const CACHED_PIECE_BYTES: usize = 23;
/// Pieces up to this many bytes, most of them, are keyed by one integer.
const SHORT_PIECE_BYTES: usize = 7;
/// Remembered pieces per map (short or long), encoding and thread before the
/// map is cleared. The whole 1,821-skill corpus has about 86,000 distinct
/// pieces of up to 23 bytes.
const PIECE_CACHE_ENTRIES: usize = 1 << 17;

/// A piece of up to 23 bytes, zero-padded, its length in the last byte.
type LongKey = [u8; CACHED_PIECE_BYTES + 1];

/// Token counts of pieces, by piece. A lookup misses the processor's caches
/// more often than not, so short pieces have a map of their own whose
/// entries are 16 bytes instead of 28: counting the corpus cold spent about
/// half of this memo's time waiting on that one load.
#[derive(Default)]
struct PieceCounts {
    /// Pieces of up to 7 bytes: the bytes, zero-padded, the length in the top byte.
    short: HashMap<u64, u32, rustc_hash::FxBuildHasher>,
    long: HashMap<LongKey, u32, rustc_hash::FxBuildHasher>,
}

thread_local! {
    /// Token counts of pre-token pieces, one memo per encoding. Text splits
    /// into pieces (words with their leading space, numbers, punctuation
    /// runs) that repeat endlessly, and a lookup is several times cheaper
    /// than encoding a piece again: this memo makes counting about 2.5 times
    /// faster. It is per thread so that parallel counting never waits on a lock.
    /// `o200k` keeps only the pieces that are not one token: the others cost
    /// one lookup in its vocabulary table anyway.
    static PIECE_COUNTS: RefCell<[PieceCounts; 2]> = RefCell::new(Default::default());
}

impl Encoding {
    /// The shared encoder; its ranks are decoded once per process, on first use.
    fn bpe(self) -> &'static bpe_openai::Tokenizer {
        match self {
            Encoding::O200k => bpe_openai::o200k_base(),
            Encoding::Cl100k => bpe_openai::cl100k_base(),
        }
    }

    fn count(self, text: &str) -> usize {
        self.count_up_to(text, usize::MAX).unwrap_or(usize::MAX)
    }

    /// The count when it is at most `limit`, else `None`, stopping as soon as
    /// the limit is passed. Exact: a text's count is the sum of its pieces'.
    /// `o200k` is counted without loading the encoder (see `o200k/mod.rs`).
    fn count_up_to(self, text: &str, limit: usize) -> Option<usize> {
        PIECE_COUNTS.with(|maps| {
            let mut maps = maps.borrow_mut();
            let counts = &mut maps[self as usize];
            if self == Encoding::O200k {
                return o200k::count_up_to(text, limit, counts);
            }
            let bpe = self.bpe();
            let mut total = 0usize;
            for piece in bpe.split(text) {
                let piece = piece.as_bytes();
                total += counts.count(piece, || bpe.bpe.count(piece));
                if total > limit {
                    return None;
                }
            }
            Some(total)
        })
    }
}

/// The key a piece is remembered under in one of [`PieceCounts`]' maps.
enum PieceKey {
    Short(u64),
    Long(LongKey),
    /// Too long to remember.
    Uncached,
}

impl PieceCounts {
    fn key(piece: &[u8]) -> PieceKey {
        if piece.len() <= SHORT_PIECE_BYTES {
            let mut key = [0; 8];
            key[..piece.len()].copy_from_slice(piece);
            key[7] = piece.len() as u8;
            return PieceKey::Short(u64::from_le_bytes(key));
        }
        if piece.len() > CACHED_PIECE_BYTES {
            return PieceKey::Uncached;
        }
        let mut key: LongKey = [0; CACHED_PIECE_BYTES + 1];
        key[..piece.len()].copy_from_slice(piece);
        key[CACHED_PIECE_BYTES] = piece.len() as u8;
        PieceKey::Long(key)
    }

    /// The count of `piece`, when remembered.
    fn get(&self, piece: &[u8]) -> Option<usize> {
        let count = match PieceCounts::key(piece) {
            PieceKey::Short(key) => self.short.get(&key),
            PieceKey::Long(key) => self.long.get(&key),
            PieceKey::Uncached => None,
        };
        count.map(|&c| c as usize)
    }

    /// The count of `piece` remembered, else `encode`'s, remembered.
    fn count(&mut self, piece: &[u8], encode: impl FnOnce() -> usize) -> usize {
        match PieceCounts::key(piece) {
            PieceKey::Short(key) => remembered(&mut self.short, key, encode),
            PieceKey::Long(key) => remembered(&mut self.long, key, encode),
            PieceKey::Uncached => encode(),
        }
    }
}

/// The count remembered under `key`, else `encode`'s, remembered.
fn remembered<K: std::hash::Hash + Eq>(
    counts: &mut HashMap<K, u32, rustc_hash::FxBuildHasher>,
    key: K,
    encode: impl FnOnce() -> usize,
) -> usize {
    if let Some(&count) = counts.get(&key) {
        return count as usize;
    }
    let count = encode();
    if counts.len() >= PIECE_CACHE_ENTRIES {
        counts.clear();
    }
    counts.insert(key, count as u32);
    count
}

#[derive(Clone)]
enum Kind {
    Exact(Encoding),
    ClaudeEstimate,
    HuggingFace {
        model: Arc<tokenizers::Tokenizer>,
        path: PathBuf,
    },
}

/// A way of counting tokens. Cheap to clone.
#[derive(Clone)]
pub struct Tokenizer {
    kind: Kind,
    name: String,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("name", &self.name)
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error(
        "unknown tokenizer `{0}` (expected o200k, cl100k, claude or a path to a tokenizer.json)"
    )]
    UnknownName(String),
    #[error("cannot read tokenizer {}: {message}", path.display())]
    BadFile { path: PathBuf, message: String },
}

/// What a tokenizer is, for reports: `{"name": "o200k", "exact": true, "method": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TokenizerInfo {
    pub name: String,
    pub exact: bool,
    /// One sentence on how counts are made.
    pub method: String,
}

impl Tokenizer {
    /// OpenAI's `o200k_base` (GPT-4o and later), exact.
    pub fn o200k() -> Tokenizer {
        Tokenizer {
            kind: Kind::Exact(Encoding::O200k),
            name: "o200k".into(),
        }
    }

    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5), exact.
    pub fn cl100k() -> Tokenizer {
        Tokenizer {
            kind: Kind::Exact(Encoding::Cl100k),
            name: "cl100k".into(),
        }
    }

    /// The Claude estimate; see [`CLAUDE_FACTOR`].
    pub fn claude() -> Tokenizer {
        Tokenizer {
            kind: Kind::ClaudeEstimate,
            name: "claude".into(),
        }
    }

    /// A built-in tokenizer: `o200k`, `cl100k` or `claude` (case-insensitive;
    /// `o200k_base` and `cl100k_base` are accepted too).
    pub fn by_name(name: &str) -> Result<Tokenizer, TokenizerError> {
        match name.to_ascii_lowercase().as_str() {
            "o200k" | "o200k_base" => Ok(Tokenizer::o200k()),
            "cl100k" | "cl100k_base" => Ok(Tokenizer::cl100k()),
            "claude" => Ok(Tokenizer::claude()),
            _ => Err(TokenizerError::UnknownName(name.to_owned())),
        }
    }

    /// A Hugging Face `tokenizer.json`. Its truncation and padding settings are
    /// switched off and special tokens (`[CLS]`, `<s>`) are neither added nor
    /// recognised in the text, so a count is the length of the whole text.
    pub fn from_file(path: &Path) -> Result<Tokenizer, TokenizerError> {
        let bad = |message: String| TokenizerError::BadFile {
            path: path.to_path_buf(),
            message,
        };
        let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
        let mut model =
            tokenizers::Tokenizer::from_bytes(&bytes).map_err(|e| bad(e.to_string()))?;
        model
            .with_truncation(None)
            .map_err(|e| bad(e.to_string()))?;
        model.with_padding(None);
        // Special-token text in a skill is ordinary text, not a control token.
        model.set_encode_special_tokens(true);
        // Some files parse yet cannot encode (a model without a vocabulary);
        // finding out now keeps `count` infallible.
        model
            .encode("probe", false)
            .map_err(|e| bad(e.to_string()))?;
        let name = format!("hf:{}", path.display());
        Ok(Tokenizer {
            kind: Kind::HuggingFace {
                model: Arc::new(model),
                path: path.to_path_buf(),
            },
            name,
        })
    }

    /// A built-in name, or else a path to a `tokenizer.json`.
    pub fn from_spec(spec: &str) -> Result<Tokenizer, TokenizerError> {
        match Tokenizer::by_name(spec) {
            Ok(tokenizer) => Ok(tokenizer),
            Err(err) => {
                let path = Path::new(spec);
                if path.exists() {
                    Tokenizer::from_file(path)
                } else {
                    Err(err)
                }
            }
        }
    }

    /// `o200k`, `cl100k`, `claude` or `hf:<path>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether counts are exact for the model the tokenizer belongs to.
    pub fn is_exact(&self) -> bool {
        !matches!(self.kind, Kind::ClaudeEstimate)
    }

    /// The name as shown to people: estimates say so.
    pub fn label(&self) -> String {
        if self.is_exact() {
            self.name.clone()
        } else {
            format!("{} (estimate)", self.name)
        }
    }

    pub fn info(&self) -> TokenizerInfo {
        let method = match &self.kind {
            Kind::Exact(_) => format!("exact {} byte-pair encoding", self.name),
            Kind::ClaudeEstimate => format!(
                "estimate: exact o200k count x {CLAUDE_FACTOR}, rounded up (calibrated against Anthropic's published legacy Claude tokenizer)"
            ),
            Kind::HuggingFace { path, .. } => {
                format!(
                    "exact for the model of {}, without special tokens",
                    path.display()
                )
            }
        };
        TokenizerInfo {
            name: self.name.clone(),
            exact: self.is_exact(),
            method,
        }
    }

    /// The number of tokens of `text`.
    pub fn count(&self, text: &str) -> usize {
        match &self.kind {
            Kind::Exact(encoding) => encoding.count(text),
            Kind::ClaudeEstimate => claude_estimate(Encoding::O200k.count(text)),
            Kind::HuggingFace { model, .. } => {
                // Encoding was probed when the file was loaded; a later failure
                // has no token count to give, so the text counts as empty.
                model.encode(text, false).map(|e| e.len()).unwrap_or(0)
            }
        }
    }

    /// The count when it is at most `limit`, else `None`. For the OpenAI
    /// encodings this stops once the limit is passed, so checking a long text
    /// against a small limit costs about `limit` tokens of work.
    pub fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        match &self.kind {
            Kind::Exact(encoding) => encoding.count_up_to(text, limit),
            _ => Some(self.count(text)).filter(|&n| n <= limit),
        }
    }

    /// Whether `text` has more than `limit` tokens; the cheapest check there is.
    /// For the OpenAI encodings a short text is decided by its length; then
    /// `o200k` decides by bounds on its pieces where they can (see
    /// `o200k::exceeds`) and `cl100k` by a bound read off the text (see
    /// `bounds.rs`), and merging runs only where they cannot.
    pub fn exceeds(&self, text: &str, limit: usize) -> bool {
        match &self.kind {
            // Every token covers at least one byte, so a short text cannot exceed.
            Kind::Exact(_) if text.len() <= limit => false,
            Kind::Exact(Encoding::O200k) => PIECE_COUNTS.with(|maps| {
                o200k::exceeds(
                    text,
                    limit,
                    &mut maps.borrow_mut()[Encoding::O200k as usize],
                )
            }),
            // The bound below counts pieces, and real text has more than three
            // bytes a piece: on a shorter text it seldom decides, and reading
            // every long body for it cost as much as it saved (measured).
            Kind::Exact(Encoding::Cl100k)
                if text.len() > BOUND_MIN_BYTES_PER_LIMIT * limit
                    && bounds::pieces_lower_bound(text) > limit =>
            {
                true
            }
            _ => self.count_up_to(text, limit).is_none(),
        }
    }
}

fn claude_estimate(o200k_tokens: usize) -> usize {
    (o200k_tokens as f64 * CLAUDE_FACTOR).ceil() as usize
}

/// A whole file counted as plain text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileCount {
    pub path: PathBuf,
    pub bytes: u64,
    pub chars: usize,
    pub tokens: usize,
}

/// Counts whole files as plain text, in parallel, in the given order.
/// Invalid UTF-8 is replaced (U+FFFD) rather than refused, so any file counts.
pub fn count_files(
    paths: &[PathBuf],
    tokenizer: &Tokenizer,
) -> Vec<Result<FileCount, (PathBuf, std::io::Error)>> {
    use rayon::prelude::*;
    paths
        .par_iter()
        .map(|path| {
            let bytes = std::fs::read(path).map_err(|e| (path.clone(), e))?;
            let text = String::from_utf8_lossy(&bytes);
            Ok(FileCount {
                path: path.clone(),
                bytes: bytes.len() as u64,
                chars: text.chars().count(),
                tokens: tokenizer.count(&text),
            })
        })
        .collect()
}

/// `count` texts of 1 to `longest - 1` strings drawn from `alphabet`, the
/// same for the same `seed`: the random inputs the counting tests compare on.
#[cfg(test)]
pub(crate) fn random_texts(
    alphabet: &'static [&'static str],
    seed: u64,
    count: usize,
    longest: usize,
) -> impl Iterator<Item = String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..count).map(move |_| {
        let len = rng.usize(1..longest);
        (0..len)
            .map(|_| alphabet[rng.usize(..alphabet.len())])
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces that differ only in trailing NUL bytes or length, short and
    /// long, counted twice (the second time from the memo), agree with the
    /// encoder run without it.
    #[test]
    fn remembered_counts_match_the_encoder() {
        let texts = [
            "a",
            "a\0",
            "a\0\0",
            "\0",
            "\0\0\0\0\0\0\0",
            "abcdefg",
            "abcdefgh",
            " the",
            " there",
            " therefore",
            " thereforeabcdefghijklmn",
            "\u{e9}t\u{e9}",
            "\u{1F600}",
            "1234567",
            "x\0y",
            " configuration",
        ];
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            let bpe = encoding.bpe();
            for _ in 0..2 {
                for text in texts {
                    let direct: usize = bpe.split(text).map(|p| bpe.bpe.count(p.as_bytes())).sum();
                    assert_eq!(encoding.count(text), direct, "{text:?}");
                }
            }
        }
    }
}
