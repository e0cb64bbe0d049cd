//! A SentencePiece tokenizer rebuilt from a GGUF file's metadata.
//!
//! GGUF files of the `llama` tokenizer family carry the SentencePiece model
//! as three parallel arrays (`tokenizer.ggml.tokens`, `.scores`,
//! `.token_type`) and no `tokenizer.json`, so the `tokenizers` crate cannot
//! load them. Encoding follows SentencePiece's BPE model, which is what
//! these vocabularies were trained with:
//!
//! 1. spaces become `▁` (no dummy prefix unless the file asks for one:
//!    `tokenizer.ggml.add_space_prefix`);
//! 2. user-defined pieces (Gemma's runs of line breaks, `[multimodal]`) are
//!    cut out, longest match first, as SentencePiece's prefix matcher does
//!    (after step 1, so Gemma's pieces of plain spaces never match: runs of
//!    spaces become `▁` pieces, as SentencePiece itself encodes them);
//! 3. starting from single characters, the adjacent pair whose concatenation
//!    is a piece with the highest score is merged, leftmost first on ties,
//!    until no pair is a piece;
//! 4. a symbol that is not a piece falls back to its UTF-8 bytes (`<0xAB>`
//!    pieces), else to the unknown piece.
//!
//! Control pieces (`<bos>`, `<start_of_turn>`) are never produced from text:
//! text that spells them is tokenized as ordinary characters, so a request
//! cannot inject a turn marker.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use candle_core::quantized::gguf_file;

use super::LlmError;

/// SentencePiece piece types, as GGUF stores them.
const TYPE_NORMAL: i32 = 1;
const TYPE_USER_DEFINED: i32 = 4;
const TYPE_BYTE: i32 = 6;

/// The SentencePiece whitespace mark.
const SPACE_MARK: char = '\u{2581}';

pub struct Tokenizer {
    pieces: Vec<String>,
    scores: Vec<f32>,
    /// Normal and user-defined pieces by text: what merges may produce.
    by_text: HashMap<String, u32>,
    /// User-defined pieces, longest first, matched before merging.
    user_defined: Vec<(String, u32)>,
    byte_pieces: [Option<u32>; 256],
    unknown: u32,
    bos: Option<u32>,
    add_space_prefix: bool,
}

impl Tokenizer {
    /// Reads the vocabulary from GGUF metadata.
    pub fn from_gguf(content: &gguf_file::Content) -> Result<Self, LlmError> {
        let meta = |key: &str| {
            content
                .metadata
                .get(key)
                .ok_or_else(|| LlmError::InvalidModel(format!("no `{key}` in the GGUF metadata")))
        };
        let invalid = |key: &str, e: candle_core::Error| {
            LlmError::InvalidModel(format!("`{key}` in the GGUF metadata: {e}"))
        };
        let model = meta("tokenizer.ggml.model")?
            .to_string()
            .map_err(|e| invalid("tokenizer.ggml.model", e))?;
        if model != "llama" {
            return Err(LlmError::InvalidModel(format!(
                "tokenizer `{model}` is not supported (only SentencePiece, `llama`)"
            )));
        }
        let pieces: Vec<String> = meta("tokenizer.ggml.tokens")?
            .to_vec()
            .map_err(|e| invalid("tokenizer.ggml.tokens", e))?
            .iter()
            .map(|v| v.to_string().cloned())
            .collect::<Result<_, _>>()
            .map_err(|e| invalid("tokenizer.ggml.tokens", e))?;
        let scores: Vec<f32> = match content.metadata.get("tokenizer.ggml.scores") {
            Some(v) => v
                .to_vec()
                .map_err(|e| invalid("tokenizer.ggml.scores", e))?
                .iter()
                .map(|v| v.to_f32())
                .collect::<Result<_, _>>()
                .map_err(|e| invalid("tokenizer.ggml.scores", e))?,
            None => vec![0.0; pieces.len()],
        };
        let types: Vec<i32> = match content.metadata.get("tokenizer.ggml.token_type") {
            Some(v) => v
                .to_vec()
                .map_err(|e| invalid("tokenizer.ggml.token_type", e))?
                .iter()
                .map(|v| v.to_i32())
                .collect::<Result<_, _>>()
                .map_err(|e| invalid("tokenizer.ggml.token_type", e))?,
            None => vec![TYPE_NORMAL; pieces.len()],
        };
        if scores.len() != pieces.len() || types.len() != pieces.len() {
            return Err(LlmError::InvalidModel(format!(
                "tokenizer arrays differ in length ({} pieces, {} scores, {} types)",
                pieces.len(),
                scores.len(),
                types.len()
            )));
        }
        let id_of = |key: &str| -> Option<u32> {
            content
                .metadata
                .get(key)
                .and_then(|v| v.to_u32().ok())
                .filter(|&id| (id as usize) < pieces.len())
        };
        let unknown = id_of("tokenizer.ggml.unknown_token_id").unwrap_or(0);
        let bos = id_of("tokenizer.ggml.bos_token_id");
        let add_space_prefix = content
            .metadata
            .get("tokenizer.ggml.add_space_prefix")
            .and_then(|v| v.to_bool().ok())
            .unwrap_or(true);
        Ok(Self::new(
            pieces,
            scores,
            types,
            unknown,
            bos,
            add_space_prefix,
        ))
    }

    fn new(
        pieces: Vec<String>,
        scores: Vec<f32>,
        types: Vec<i32>,
        unknown: u32,
        bos: Option<u32>,
        add_space_prefix: bool,
    ) -> Self {
        let mut by_text = HashMap::with_capacity(pieces.len());
        let mut user_defined = Vec::new();
        let mut byte_pieces = [None; 256];
        for (id, (piece, &kind)) in pieces.iter().zip(&types).enumerate() {
            let id = id as u32;
            match kind {
                TYPE_NORMAL => {
                    by_text.entry(piece.clone()).or_insert(id);
                }
                TYPE_USER_DEFINED => {
                    by_text.entry(piece.clone()).or_insert(id);
                    if !piece.is_empty() {
                        user_defined.push((piece.clone(), id));
                    }
                }
                TYPE_BYTE => {
                    if let Some(byte) = parse_byte_piece(piece) {
                        byte_pieces[byte as usize] = Some(id);
                    }
                }
                _ => {}
            }
        }
        user_defined.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        Self {
            pieces,
            scores,
            by_text,
            user_defined,
            byte_pieces,
            unknown,
            bos,
            add_space_prefix,
        }
    }

    /// Number of pieces.
    pub fn vocab_size(&self) -> usize {
        self.pieces.len()
    }

    /// The beginning-of-sequence piece, when the vocabulary has one.
    pub fn bos(&self) -> Option<u32> {
        self.bos
    }

    /// The text of piece `id` (`▁` for spaces, `<0x0A>` for byte pieces).
    pub fn piece(&self, id: u32) -> Option<&str> {
        self.pieces.get(id as usize).map(String::as_str)
    }

    /// Decodes ids back to text (byte pieces reassembled, `▁` as spaces).
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            let Some(piece) = self.piece(id) else {
                continue;
            };
            match parse_byte_piece(piece) {
                Some(byte) if self.byte_pieces[byte as usize] == Some(id) => bytes.push(byte),
                _ => bytes.extend_from_slice(piece.replace(SPACE_MARK, " ").as_bytes()),
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Encodes `text` (no BOS; see [`Tokenizer::bos`]).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut normalized = String::with_capacity(text.len() + 3);
        if self.add_space_prefix && !text.is_empty() {
            normalized.push(SPACE_MARK);
        }
        normalized.extend(text.chars().map(|c| if c == ' ' { SPACE_MARK } else { c }));
        let mut ids = Vec::with_capacity(text.len() / 3 + 1);
        let mut plain_start = 0;
        let mut at = 0;
        while at < normalized.len() {
            let rest = &normalized[at..];
            match self
                .user_defined
                .iter()
                .find(|(piece, _)| rest.starts_with(piece.as_str()))
            {
                Some((piece, id)) => {
                    self.merge(&normalized[plain_start..at], &mut ids);
                    ids.push(*id);
                    at += piece.len();
                    plain_start = at;
                }
                None => at += rest.chars().next().map_or(1, char::len_utf8),
            }
        }
        self.merge(&normalized[plain_start..], &mut ids);
        ids
    }

    /// BPE over a run of normalized text holding no user-defined piece.
    fn merge(&self, normalized: &str, ids: &mut Vec<u32>) {
        if normalized.is_empty() {
            return;
        }
        // Symbols as byte ranges of `normalized`, in a doubly linked list.
        let mut symbols: Vec<Symbol> = Vec::new();
        for (start, c) in normalized.char_indices() {
            let index = symbols.len();
            symbols.push(Symbol {
                start,
                end: start + c.len_utf8(),
                prev: index.checked_sub(1),
                next: Some(index + 1),
            });
        }
        if let Some(last) = symbols.last_mut() {
            last.next = None;
        }
        let mut queue = BinaryHeap::new();
        for left in 0..symbols.len().saturating_sub(1) {
            self.push_pair(normalized, &symbols, left, left + 1, &mut queue);
        }
        while let Some(pair) = queue.pop() {
            let (left, right) = (pair.left, pair.right);
            // Stale: one side was merged away or changed since the push.
            if symbols[left].end == symbols[left].start
                || symbols[right].end == symbols[right].start
                || symbols[left].next != Some(right)
                || symbols[right].end - symbols[left].start != pair.len
            {
                continue;
            }
            symbols[left].end = symbols[right].end;
            symbols[left].next = symbols[right].next;
            symbols[right].end = symbols[right].start;
            if let Some(next) = symbols[left].next {
                symbols[next].prev = Some(left);
            }
            if let Some(prev) = symbols[left].prev {
                self.push_pair(normalized, &symbols, prev, left, &mut queue);
            }
            if let Some(next) = symbols[left].next {
                self.push_pair(normalized, &symbols, left, next, &mut queue);
            }
        }
        let mut index = Some(0);
        while let Some(i) = index {
            let symbol = &symbols[i];
            let text = &normalized[symbol.start..symbol.end];
            match self.by_text.get(text) {
                Some(&id) => ids.push(id),
                None => {
                    for byte in text.bytes() {
                        ids.push(self.byte_pieces[byte as usize].unwrap_or(self.unknown));
                    }
                }
            }
            index = symbol.next;
        }
    }

    fn push_pair(
        &self,
        text: &str,
        symbols: &[Symbol],
        left: usize,
        right: usize,
        queue: &mut BinaryHeap<Pair>,
    ) {
        let merged = &text[symbols[left].start..symbols[right].end];
        if let Some(&id) = self.by_text.get(merged) {
            queue.push(Pair {
                score: self.scores[id as usize],
                left,
                right,
                len: merged.len(),
            });
        }
    }
}

struct Symbol {
    start: usize,
    end: usize,
    prev: Option<usize>,
    next: Option<usize>,
}

/// A candidate merge: highest score first, then leftmost.
struct Pair {
    score: f32,
    left: usize,
    right: usize,
    len: usize,
}

impl PartialEq for Pair {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Pair {}
impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pair {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.left.cmp(&self.left))
    }
}

/// `<0xAB>` → 0xAB.
fn parse_byte_piece(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    (hex.len() == 2).then(|| u8::from_str_radix(hex, 16).ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> Tokenizer {
        let mut pieces: Vec<(&str, f32, i32)> = vec![
            ("<unk>", 0.0, 2),
            ("<bos>", 0.0, 3),
            ("\n", 0.0, TYPE_USER_DEFINED),
            ("\n\n", 0.0, TYPE_USER_DEFINED),
            ("a", -1.0, 1),
            ("b", -1.0, 1),
            ("c", -1.0, 1),
            ("▁", -1.0, 1),
            ("ab", -2.0, 1),
            ("bc", -1.5, 1),
            ("abc", -3.0, 1),
            ("▁a", -2.5, 1),
        ];
        let bytes: Vec<String> = (0..=255u8).map(|b| format!("<0x{b:02X}>")).collect();
        for b in &bytes {
            pieces.push((b.as_str(), 0.0, TYPE_BYTE));
        }
        Tokenizer::new(
            pieces.iter().map(|p| p.0.to_owned()).collect(),
            pieces.iter().map(|p| p.1).collect(),
            pieces.iter().map(|p| p.2).collect(),
            0,
            Some(1),
            false,
        )
    }

    #[test]
    fn merges_follow_scores_and_bytes_fall_back() {
        let t = toy();
        // "bc" (-1.5) merges before "ab" (-2.0); then "a"+"bc" is "abc".
        assert_eq!(t.encode("abc"), vec![10]);
        // "ab" (-2.0) beats "▁a" (-2.5), and "▁ab" is no piece.
        let ids = t.encode(" ab");
        assert_eq!(ids, vec![7, 8]);
        assert_eq!(t.decode(&ids), " ab");
        // Unknown characters become their UTF-8 bytes.
        let ids = t.encode("é");
        assert_eq!(ids.len(), 2);
        assert_eq!(t.decode(&ids), "é");
        assert_eq!(t.encode(""), Vec::<u32>::new());
    }

    #[test]
    fn user_defined_pieces_are_cut_out_longest_first() {
        let t = toy();
        assert_eq!(t.encode("a\n\nb\nc"), vec![4, 3, 5, 2, 6]);
        // Control pieces are never produced from text.
        assert!(!t.encode("<bos>").contains(&1));
    }

    #[test]
    fn byte_pieces_parse() {
        assert_eq!(parse_byte_piece("<0x0A>"), Some(10));
        assert_eq!(parse_byte_piece("<0xZZ>"), None);
        assert_eq!(parse_byte_piece("<0x0AB>"), None);
    }
}
