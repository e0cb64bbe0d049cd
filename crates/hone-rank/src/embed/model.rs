//! A sentence-transformers model, run with candle on the CPU.
//!
//! Two encoders are supported: the BERT family (all-MiniLM-L6-v2, the
//! default), with candle-transformers' BERT, and MPNet (all-mpnet-base-v2),
//! with [`super::mpnet`]; `model_type` in `config.json` chooses.
//!
//! The folder layout is the one sentence-transformers saves: `config.json`
//! (the encoder's configuration), `model.safetensors`, `tokenizer.json`, and the
//! pipeline in `modules.json` (transformer, pooling, optional normalisation),
//! with the pooling mode in its own `config.json` and the sequence limit in
//! `sentence_bert_config.json`. Vectors are always L2-normalised: ranking uses
//! cosine similarity, which a dot product of unit vectors computes.
//!
//! Texts are tokenised without the tokenizer file's own padding (some ship a
//! fixed 128-token pad, which would waste most of every forward pass) and
//! batched by length, each batch padded to its longest member; truncation
//! follows the model's `max_seq_length` (256 for all-MiniLM-L6-v2).
//!
//! ## Part contributions
//!
//! With mean pooling, the unit sentence vector is `Σₜ hₜ / (n‖m‖)` over the `n`
//! token states `hₜ` (`m` the mean). Summing that over the tokens of one part of
//! the text gives a vector whose dot product with a query is exactly that
//! part's share of the cosine similarity; the shares of all parts and of the
//! special tokens add up to the similarity. [`EmbeddingModel::embed_segmented`]
//! returns those part vectors with the sentence vector, from the same forward
//! pass.
//!
//! ## Token vectors
//!
//! The same pass also yields each token's contextual state, kept unit-length
//! and quantised to 8 bits ([`TokenVectors`]): hybrid ranking compares the
//! words of a request with the words of a skill through them (late
//! interaction), which catches a close word that the one sentence vector
//! averages away. Quantisation keeps them a quarter of the size at a cost
//! below 1% of a dot product.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::mpnet::{MpnetConfig, MpnetModel};
use super::{EmbedError, EmbedProgress};

/// Sequence limit when the model folder does not state one.
pub const DEFAULT_MAX_TOKENS: usize = 256;
/// Tokens per forward pass: large enough to keep the matrix kernels busy,
/// small enough that a batch's activations stay in cache-friendly sizes.
const BATCH_TOKENS: usize = 2048;
const MAX_BATCH_TEXTS: usize = 64;

/// How token states become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pooling {
    /// Mean of the token states (also used for mean-sqrt-len pooling, which
    /// differs only in length and so gives the same unit vector).
    Mean,
    /// The `[CLS]` token's state.
    Cls,
    /// Element-wise maximum of the token states.
    Max,
}

/// A unit sentence vector, the contributions of the text's parts and its
/// token vectors.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SegmentedEmbedding {
    pub vector: Vec<f32>,
    /// One vector per requested part: `query · parts[i]` is part `i`'s share of
    /// the cosine similarity. Empty unless pooling is [`Pooling::Mean`].
    pub parts: Vec<Vec<f32>>,
    pub tokens: TokenVectors,
}

/// The unit-length contextual vectors of a text's tokens (special tokens
/// excluded), each quantised to 8 bits with its own scale.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TokenVectors {
    /// Vocabulary id of each token.
    pub ids: Vec<u32>,
    /// Per token, the value of one quantisation step.
    pub scales: Vec<f32>,
    /// `ids.len() × dim` components, token after token, each stored as
    /// `round(x / scale) + 128` so that it fits a byte.
    pub values: Vec<u8>,
}

/// The stored byte of a zero component.
pub const QUANTISATION_OFFSET: f32 = 128.0;

impl TokenVectors {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Appends one token's vector, normalised and quantised.
    pub fn push(&mut self, id: u32, vector: &[f32]) {
        let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        let largest = vector.iter().fold(0f32, |m, v| m.max(v.abs())) / norm;
        let scale = (largest / 127.0).max(f32::MIN_POSITIVE);
        self.ids.push(id);
        self.scales.push(scale);
        let quantise =
            |v: &f32| ((v / norm / scale).round().clamp(-127.0, 127.0) + QUANTISATION_OFFSET) as u8;
        self.values.extend(vector.iter().map(quantise));
    }
}

/// A request's unit sentence vector and its tokens' unit vectors (in full
/// precision: a request is embedded once and never stored).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryEmbedding {
    pub vector: Vec<f32>,
    pub token_ids: Vec<u32>,
    /// `token_ids.len() × dim` components.
    pub tokens: Vec<f32>,
}

#[cfg(target_arch = "x86_64")]
type RequestEncoder = super::int16::Int16Bert;

/// No integer pass off x86-64: requests take the float pass.
#[cfg(not(target_arch = "x86_64"))]
enum RequestEncoder {}

#[cfg(not(target_arch = "x86_64"))]
impl RequestEncoder {
    fn new(_: &HashMap<String, Tensor>, _: &Config) -> Option<RequestEncoder> {
        None
    }

    fn forward(&self, _: &[u32]) -> candle_core::Result<Vec<f32>> {
        match *self {}
    }
}

/// The transformer that turns token ids into token states.
enum Encoder {
    Bert(Box<BertModel>),
    Mpnet(Box<MpnetModel>),
}

/// What `config.json` says the encoder is.
#[derive(Deserialize)]
struct ModelType {
    #[serde(default)]
    model_type: String,
}

/// A loaded embedding model.
pub struct EmbeddingModel {
    id: String,
    dir: PathBuf,
    encoder: Encoder,
    /// The integer pass a single request takes, where the processor has it.
    request_encoder: Option<RequestEncoder>,
    tokenizer: Tokenizer,
    pooling: Pooling,
    dim: usize,
    max_tokens: usize,
    pad_id: u32,
}

#[derive(Deserialize)]
struct ModuleEntry {
    #[serde(default)]
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

/// The configuration of either encoder.
enum EncoderConfig {
    Bert(Config),
    Mpnet(MpnetConfig),
}

impl EncoderConfig {
    fn hidden_size(&self) -> usize {
        match self {
            EncoderConfig::Bert(config) => config.hidden_size,
            EncoderConfig::Mpnet(config) => config.hidden_size,
        }
    }

    fn pad_id(&self) -> u32 {
        match self {
            EncoderConfig::Bert(config) => config.pad_token_id as u32,
            EncoderConfig::Mpnet(config) => config.pad_token_id,
        }
    }

    /// The longest input, special tokens included, the positions allow.
    fn max_tokens(&self) -> usize {
        match self {
            EncoderConfig::Bert(config) => config.max_position_embeddings,
            EncoderConfig::Mpnet(config) => config.max_tokens(),
        }
    }
}

/// The files a model folder must hold.
pub const REQUIRED_FILES: &[&str] = &["config.json", "model.safetensors", "tokenizer.json"];

/// Whether `dir` holds the files of a model (without loading it).
pub fn looks_like_model(dir: &Path) -> bool {
    REQUIRED_FILES.iter().all(|file| dir.join(file).is_file())
}

impl EmbeddingModel {
    /// Loads the model folder at `dir`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        if !looks_like_model(dir) {
            return Err(EmbedError::NotInstalled(dir.to_path_buf()));
        }
        let invalid = |file: &str, message: String| EmbedError::InvalidModel {
            path: dir.join(file),
            message,
        };
        let config_text = read_text(&dir.join("config.json"))?;
        let model_type: ModelType = serde_json::from_str(&config_text)
            .map_err(|e| invalid("config.json", format!("not a model configuration: {e}")))?;
        let config =
            if model_type.model_type == "mpnet" {
                EncoderConfig::Mpnet(serde_json::from_str(&config_text).map_err(|e| {
                    invalid("config.json", format!("not an MPNet configuration: {e}"))
                })?)
            } else {
                EncoderConfig::Bert(serde_json::from_str(&config_text).map_err(|e| {
                    invalid("config.json", format!("not a BERT configuration: {e}"))
                })?)
            };
        let pooling = read_pooling(dir)?;
        let max_tokens = read_max_tokens(dir)?.min(config.max_tokens());

        let tokenizer_text = read_text(&dir.join("tokenizer.json"))?;
        let mut tokenizer = Tokenizer::from_bytes(tokenizer_text.as_bytes())
            .map_err(|e| invalid("tokenizer.json", e.to_string()))?;
        tokenizer.with_padding(None);
        let truncation = TruncationParams {
            max_length: max_tokens,
            ..TruncationParams::default()
        };
        tokenizer
            .with_truncation(Some(truncation))
            .map_err(|e| invalid("tokenizer.json", e.to_string()))?;

        let weights_path = dir.join("model.safetensors");
        let weights = std::fs::read(&weights_path).map_err(|e| EmbedError::io(&weights_path, e))?;
        // Pooling and truncation change the vectors too, so they are part of
        // the identity that keys the cache.
        let pipeline = format!("{pooling:?}/{max_tokens}");
        let fingerprint = fingerprint(&[&config_text, &tokenizer_text, &pipeline], &weights);
        let tensors =
            load_weights(&weights).map_err(|e| invalid("model.safetensors", e.to_string()))?;
        drop(weights);
        let request_encoder = request_encoder(&tensors, &config);
        let vars = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let encoder = match &config {
            EncoderConfig::Bert(config) => {
                BertModel::load(vars, config).map(|m| Encoder::Bert(m.into()))
            }
            EncoderConfig::Mpnet(config) => {
                MpnetModel::load(vars, config).map(|m| Encoder::Mpnet(m.into()))
            }
        }
        .map_err(|e| {
            invalid(
                "model.safetensors",
                format!("weights do not fit config.json: {e}"),
            )
        })?;

        let name = dir
            .file_name()
            .map(|n| sanitize(&n.to_string_lossy()))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "model".into());
        Ok(EmbeddingModel {
            id: format!("{name}-{fingerprint}"),
            dir: dir.to_path_buf(),
            encoder,
            request_encoder,
            tokenizer,
            pooling,
            dim: config.hidden_size(),
            max_tokens,
            pad_id: config.pad_id(),
        })
    }

    /// A stable identity of the model's files: the folder name and a
    /// fingerprint of its configuration and weights. Caches are keyed by it.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Length of the vectors.
    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Tokens a text is truncated to, special tokens included.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Unit sentence vectors of `texts`, in order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let inputs: Vec<(&str, &[Range<usize>])> = texts.iter().map(|t| (*t, &[][..])).collect();
        let embedded = self.embed_segmented(&inputs, &mut |_| {})?;
        Ok(embedded.into_iter().map(|e| e.vector).collect())
    }

    /// The vocabulary ids of `text`'s tokens (special tokens excluded) with
    /// their byte ranges in `text`, at most [`max_tokens`] of them.
    ///
    /// [`max_tokens`]: EmbeddingModel::max_tokens
    pub fn tokens(&self, text: &str) -> Result<Vec<(u32, Range<usize>)>, EmbedError> {
        let encoding = self
            .tokenizer
            .encode(text, false)
            .map_err(|e| EmbedError::Inference(e.to_string()))?;
        Ok(encoding
            .get_ids()
            .iter()
            .zip(encoding.get_offsets())
            .map(|(&id, &(start, end))| (id, start..end))
            .collect())
    }

    /// The embedding of a request, with its token vectors.
    pub fn embed_query(&self, text: &str) -> Result<QueryEmbedding, EmbedError> {
        let encoding = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| EmbedError::Inference(e.to_string()))?;
        let states = match &self.request_encoder {
            Some(encoder) => TokenStates {
                values: encoder
                    .forward(encoding.get_ids())
                    .map_err(|e| EmbedError::Inference(e.to_string()))?,
                seq_len: encoding.len(),
                dim: self.dim,
            },
            None => self.forward(&[&encoding])?,
        };
        let pooled = self.pool(&states, 0, &encoding, &[]);
        let mut query = QueryEmbedding {
            vector: pooled.vector,
            ..QueryEmbedding::default()
        };
        for t in content_tokens(&encoding) {
            let state = states.token(0, t);
            let norm = state.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            query.token_ids.push(encoding.get_ids()[t]);
            query.tokens.extend(state.iter().map(|v| v / norm));
        }
        Ok(query)
    }

    /// Unit sentence vectors of `texts` with the contributions of the given
    /// byte ranges of each text (see the module docs). Tokens outside every
    /// range, and the special tokens, contribute to no part.
    pub fn embed_segmented(
        &self,
        texts: &[(&str, &[Range<usize>])],
        progress: &mut dyn FnMut(EmbedProgress),
    ) -> Result<Vec<SegmentedEmbedding>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(
                texts.iter().map(|(text, _)| *text).collect::<Vec<_>>(),
                true,
            )
            .map_err(|e| EmbedError::Inference(e.to_string()))?;
        // Similar lengths share a batch, so little of a batch is padding.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        let mut results = vec![SegmentedEmbedding::default(); texts.len()];
        let total = texts.len();
        let mut done = 0;
        progress(EmbedProgress { done, total });
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len()
                && end - start < MAX_BATCH_TEXTS
                && (end - start + 1) * encodings[order[end]].len() <= BATCH_TOKENS
            {
                end += 1;
            }
            let batch: Vec<&Encoding> = order[start..end].iter().map(|&i| &encodings[i]).collect();
            let states = self.forward(&batch)?;
            for (row, &i) in order[start..end].iter().enumerate() {
                let encoding = &encodings[i];
                results[i] = self.pool(&states, row, encoding, texts[i].1);
                for t in content_tokens(encoding) {
                    results[i]
                        .tokens
                        .push(encoding.get_ids()[t], states.token(row, t));
                }
            }
            done += end - start;
            progress(EmbedProgress { done, total });
            start = end;
        }
        Ok(results)
    }

    /// Runs the encoder on one padded batch; returns the token states.
    fn forward(&self, batch: &[&Encoding]) -> Result<TokenStates, EmbedError> {
        let seq_len = batch.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![self.pad_id; batch.len() * seq_len];
        let mut mask = vec![0u32; batch.len() * seq_len];
        for (row, encoding) in batch.iter().enumerate() {
            let offset = row * seq_len;
            ids[offset..offset + encoding.len()].copy_from_slice(encoding.get_ids());
            mask[offset..offset + encoding.len()].fill(1);
        }
        let inference = |e: candle_core::Error| EmbedError::Inference(e.to_string());
        let shape = (batch.len(), seq_len);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu).map_err(inference)?;
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu).map_err(inference)?;
        let output = match &self.encoder {
            Encoder::Bert(bert) => ids
                .zeros_like()
                .and_then(|type_ids| bert.forward(&ids, &type_ids, Some(&mask))),
            Encoder::Mpnet(mpnet) => mpnet.forward(&ids, &mask),
        }
        .map_err(inference)?;
        let values = output
            .flatten_all()
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(inference)?;
        Ok(TokenStates {
            values,
            seq_len,
            dim: self.dim,
        })
    }

    fn pool(
        &self,
        states: &TokenStates,
        row: usize,
        encoding: &Encoding,
        parts: &[Range<usize>],
    ) -> SegmentedEmbedding {
        let tokens = encoding.len();
        let dim = self.dim;
        let mut pooled = vec![0f32; dim];
        match self.pooling {
            Pooling::Cls => pooled.copy_from_slice(states.token(row, 0)),
            Pooling::Max => {
                pooled.fill(f32::NEG_INFINITY);
                for t in 0..tokens {
                    for (p, &h) in pooled.iter_mut().zip(states.token(row, t)) {
                        *p = p.max(h);
                    }
                }
            }
            Pooling::Mean => {
                for t in 0..tokens {
                    add(&mut pooled, states.token(row, t));
                }
            }
        }
        // For mean pooling the sum's norm is n‖m‖, so dividing by it both
        // averages and normalises.
        let norm = pooled.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        pooled.iter_mut().for_each(|v| *v /= norm);
        let special = encoding.get_special_tokens_mask();
        let mut part_vectors = Vec::new();
        if self.pooling == Pooling::Mean && !parts.is_empty() {
            part_vectors = vec![vec![0f32; dim]; parts.len()];
            for (t, &(start, end)) in encoding.get_offsets().iter().enumerate() {
                if special.get(t) == Some(&1) || start == end {
                    continue;
                }
                if let Some(part) = parts.iter().position(|r| r.start <= start && end <= r.end) {
                    add(&mut part_vectors[part], states.token(row, t));
                }
            }
            for vector in &mut part_vectors {
                vector.iter_mut().for_each(|v| *v /= norm);
            }
        }
        SegmentedEmbedding {
            vector: pooled,
            parts: part_vectors,
            tokens: TokenVectors::default(),
        }
    }
}

/// The integer request encoder for a BERT model, where this processor runs it.
fn request_encoder(
    tensors: &HashMap<String, Tensor>,
    config: &EncoderConfig,
) -> Option<RequestEncoder> {
    match config {
        EncoderConfig::Bert(config) => RequestEncoder::new(tensors, config),
        EncoderConfig::Mpnet(_) => None,
    }
}

/// Positions of the tokens that are not special tokens.
fn content_tokens(encoding: &Encoding) -> impl Iterator<Item = usize> + '_ {
    let special = encoding.get_special_tokens_mask();
    (0..encoding.len()).filter(move |&t| special.get(t) != Some(&1))
}

struct TokenStates {
    values: Vec<f32>,
    seq_len: usize,
    dim: usize,
}

impl TokenStates {
    fn token(&self, row: usize, token: usize) -> &[f32] {
        let start = (row * self.seq_len + token) * self.dim;
        &self.values[start..start + self.dim]
    }
}

fn add(sum: &mut [f32], values: &[f32]) {
    for (s, v) in sum.iter_mut().zip(values) {
        *s += v;
    }
}

/// The tensors of a safetensors file, with every dense layer's weight
/// matrix stored transposed (the same `[out, in]` tensor, column-major).
///
/// A dense layer multiplies by the weight's transpose; stored this way, that
/// transpose is a plain row-major matrix, which the matrix kernel reads as it
/// is. Row-major weights would be repacked on every call, which for a short
/// request costs more than the arithmetic (more than half the time of
/// embedding one request).
fn load_weights(bytes: &[u8]) -> candle_core::Result<HashMap<String, Tensor>> {
    let mut tensors = candle_core::safetensors::load_buffer(bytes, &Device::Cpu)?;
    for (name, tensor) in tensors.iter_mut() {
        let dense = tensor.rank() == 2
            && name.ends_with(".weight")
            && !name.contains("embeddings")
            && !name.contains("relative_attention_bias");
        if dense && tensor.dtype() == DType::F32 {
            *tensor = tensor.t()?.contiguous()?.t()?;
        }
    }
    Ok(tensors)
}

fn read_text(path: &Path) -> Result<String, EmbedError> {
    std::fs::read_to_string(path).map_err(|e| EmbedError::io(path, e))
}

/// The pooling mode from `modules.json` and the pooling module's config; a
/// folder without `modules.json` is taken as mean-pooled, the common case.
fn read_pooling(dir: &Path) -> Result<Pooling, EmbedError> {
    let modules_path = dir.join("modules.json");
    if !modules_path.is_file() {
        return Ok(Pooling::Mean);
    }
    let invalid = |path: &Path, message: String| EmbedError::InvalidModel {
        path: path.to_path_buf(),
        message,
    };
    let modules: Vec<ModuleEntry> = serde_json::from_str(&read_text(&modules_path)?)
        .map_err(|e| invalid(&modules_path, e.to_string()))?;
    let mut pooling = None;
    for module in &modules {
        let kind = module.kind.rsplit('.').next().unwrap_or_default();
        match kind {
            "Transformer" | "Normalize" => {}
            "Pooling" => {
                let path = dir.join(&module.path).join("config.json");
                let config: PoolingConfig = serde_json::from_str(&read_text(&path)?)
                    .map_err(|e| invalid(&path, e.to_string()))?;
                let modes = [
                    (
                        config.pooling_mode_mean_tokens || config.pooling_mode_mean_sqrt_len_tokens,
                        Pooling::Mean,
                    ),
                    (config.pooling_mode_cls_token, Pooling::Cls),
                    (config.pooling_mode_max_tokens, Pooling::Max),
                ];
                let chosen: Vec<Pooling> = modes
                    .iter()
                    .filter(|(on, _)| *on)
                    .map(|(_, p)| *p)
                    .collect();
                match chosen[..] {
                    [one] => pooling = Some(one),
                    _ => {
                        return Err(invalid(
                            &path,
                            "exactly one pooling mode (mean, cls or max) is supported".into(),
                        ));
                    }
                }
            }
            other => {
                return Err(invalid(
                    &modules_path,
                    format!(
                        "module `{other}` is not supported (only Transformer, Pooling and Normalize)"
                    ),
                ));
            }
        }
    }
    Ok(pooling.unwrap_or(Pooling::Mean))
}

fn read_max_tokens(dir: &Path) -> Result<usize, EmbedError> {
    let path = dir.join("sentence_bert_config.json");
    if !path.is_file() {
        return Ok(DEFAULT_MAX_TOKENS);
    }
    let config: SentenceBertConfig =
        serde_json::from_str(&read_text(&path)?).map_err(|e| EmbedError::InvalidModel {
            path: path.clone(),
            message: e.to_string(),
        })?;
    Ok(config.max_seq_length.unwrap_or(DEFAULT_MAX_TOKENS).max(2))
}

/// A short hash of the configuration and of the weights. The weights are
/// sampled (size, the safetensors header with every tensor's name, shape and
/// offset, and evenly spaced slices of the data) rather than hashed whole, so
/// that identifying the model costs nothing next to loading it.
fn fingerprint(texts: &[&str], weights: &[u8]) -> String {
    const SLICES: usize = 64;
    const SLICE: usize = 4096;
    let mut hasher = Sha256::new();
    for text in texts {
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    hasher.update((weights.len() as u64).to_le_bytes());
    let header_len = weights
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()) as usize)
        .unwrap_or(0);
    hasher.update(&weights[..(8 + header_len).min(weights.len())]);
    let step = (weights.len() / SLICES).max(1);
    for start in (0..weights.len()).step_by(step) {
        hasher.update(&weights[start..(start + SLICE).min(weights.len())]);
    }
    let digest = hasher.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_token_vectors_stay_within_a_percent() {
        let vector: Vec<f32> = (0..384)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut tokens = TokenVectors::default();
        tokens.push(1, &vector);
        tokens.push(2, &[0.0; 384]);
        assert_eq!(tokens.len(), 2);
        let restored: Vec<f32> = tokens.values[..384]
            .iter()
            .map(|&v| (f32::from(v) - QUANTISATION_OFFSET) * tokens.scales[0])
            .collect();
        let cosine: f32 = restored
            .iter()
            .zip(&vector)
            .map(|(a, b)| a * b / norm)
            .sum::<f32>()
            / restored.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(cosine > 0.99, "{cosine}");
        assert!(tokens.values[384..].iter().all(|&v| v == 128));
    }

    #[test]
    fn fingerprints_change_with_the_weights() {
        let mut weights = vec![0u8; 100_000];
        weights[..8].copy_from_slice(&2u64.to_le_bytes());
        let before = fingerprint(&["{}"], &weights);
        weights[50_000] = 1;
        assert_ne!(before, fingerprint(&["{}"], &weights));
        assert_ne!(before, fingerprint(&["{ }"], &weights[..99_000]));
    }
}
