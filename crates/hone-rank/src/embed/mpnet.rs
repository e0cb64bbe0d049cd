//! The MPNet encoder (all-mpnet-base-v2), which candle-transformers lacks.
//!
//! MPNet is a BERT-shaped encoder with three differences, each followed here
//! exactly as the reference implementation computes it, so that the
//! sentence vectors match the published model:
//! - no token-type embeddings, and position ids that count only non-padding
//!   tokens, starting after the padding id (RoBERTa's scheme);
//! - a learned relative-position bias added to every attention score: the
//!   distance between two tokens falls into one of 32 buckets (exact up to 8
//!   either way, logarithmic up to 128, then one bucket), one bias per bucket
//!   and head, computed once and shared by all layers;
//! - the attention's output projection sits inside the attention block
//!   (`attention.attn.o`), which only changes the weight names.
//!
//! Pooling, normalisation and part contributions are the caller's
//! ([`super::model`]): they are the same for every encoder.

use candle_core::{DType, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// Bucketed distances beyond this share one bucket.
const MAX_DISTANCE: usize = 128;

/// The part of an MPNet `config.json` the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub struct MpnetConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_buckets")]
    pub relative_attention_num_buckets: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_pad")]
    pub pad_token_id: u32,
    #[serde(default = "default_act")]
    pub hidden_act: String,
}

fn default_buckets() -> usize {
    32
}
fn default_eps() -> f64 {
    1e-5
}
fn default_pad() -> u32 {
    1
}
fn default_act() -> String {
    "gelu".into()
}

impl MpnetConfig {
    /// The longest input the position table allows: positions start after
    /// the padding id.
    pub fn max_tokens(&self) -> usize {
        self.max_position_embeddings
            .saturating_sub(self.pad_token_id as usize + 1)
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
    heads: usize,
    head_dim: usize,
}

impl Layer {
    fn load(vb: VarBuilder, config: &MpnetConfig) -> Result<Self> {
        let hidden = config.hidden_size;
        let attention = vb.pp("attention");
        let attn = attention.pp("attn");
        Ok(Layer {
            query: linear(hidden, hidden, attn.pp("q"))?,
            key: linear(hidden, hidden, attn.pp("k"))?,
            value: linear(hidden, hidden, attn.pp("v"))?,
            attention_out: linear(hidden, hidden, attn.pp("o"))?,
            attention_norm: layer_norm(hidden, config.layer_norm_eps, attention.pp("LayerNorm"))?,
            intermediate: linear(
                hidden,
                config.intermediate_size,
                vb.pp("intermediate").pp("dense"),
            )?,
            output: linear(
                config.intermediate_size,
                hidden,
                vb.pp("output").pp("dense"),
            )?,
            output_norm: layer_norm(
                hidden,
                config.layer_norm_eps,
                vb.pp("output").pp("LayerNorm"),
            )?,
            heads: config.num_attention_heads,
            head_dim: hidden / config.num_attention_heads,
        })
    }

    /// One layer; `bias` is the position bias plus the padding mask,
    /// `[batch or 1, heads, seq, seq]`.
    fn forward(&self, states: &Tensor, bias: &Tensor) -> Result<Tensor> {
        let (batch, seq, hidden) = states.dims3()?;
        let heads = |t: Tensor| {
            t.reshape((batch, seq, self.heads, self.head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let query = heads(self.query.forward(states)?)?;
        let key = heads(self.key.forward(states)?)?;
        let value = heads(self.value.forward(states)?)?;
        let scores = (query.matmul(&key.t()?)? / (self.head_dim as f64).sqrt())?;
        let probs = candle_nn::ops::softmax_last_dim(&scores.broadcast_add(bias)?)?;
        let context = probs
            .matmul(&value)?
            .transpose(1, 2)?
            .reshape((batch, seq, hidden))?;
        let attended = self
            .attention_norm
            .forward(&(self.attention_out.forward(&context)? + states)?)?;
        let inner = self.intermediate.forward(&attended)?.gelu_erf()?;
        self.output_norm
            .forward(&(self.output.forward(&inner)? + &attended)?)
    }
}

/// A loaded MPNet encoder.
pub struct MpnetModel {
    words: Embedding,
    positions: Embedding,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    /// `buckets × heads` learned biases.
    relative_bias: Vec<Vec<f32>>,
    buckets: usize,
    heads: usize,
    pad_id: u32,
}

impl MpnetModel {
    pub fn load(vb: VarBuilder, config: &MpnetConfig) -> Result<Self> {
        if config.hidden_act != "gelu" {
            candle_core::bail!(
                "hidden_act `{}` is not supported (only gelu)",
                config.hidden_act
            );
        }
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            candle_core::bail!("hidden_size is not a multiple of num_attention_heads");
        }
        // Checkpoints saved from the masked-LM head prefix every name.
        let vb = if vb.contains_tensor("mpnet.embeddings.word_embeddings.weight") {
            vb.pp("mpnet")
        } else {
            vb
        };
        let embeddings = vb.pp("embeddings");
        let encoder = vb.pp("encoder");
        let layers = (0..config.num_hidden_layers)
            .map(|i| Layer::load(encoder.pp("layer").pp(i), config))
            .collect::<Result<Vec<_>>>()?;
        let relative_bias = encoder
            .get(
                (
                    config.relative_attention_num_buckets,
                    config.num_attention_heads,
                ),
                "relative_attention_bias.weight",
            )?
            .to_dtype(DType::F32)?
            .to_vec2::<f32>()?;
        Ok(MpnetModel {
            words: embedding(
                config.vocab_size,
                config.hidden_size,
                embeddings.pp("word_embeddings"),
            )?,
            positions: embedding(
                config.max_position_embeddings,
                config.hidden_size,
                embeddings.pp("position_embeddings"),
            )?,
            embedding_norm: layer_norm(
                config.hidden_size,
                config.layer_norm_eps,
                embeddings.pp("LayerNorm"),
            )?,
            layers,
            relative_bias,
            buckets: config.relative_attention_num_buckets,
            heads: config.num_attention_heads,
            pad_id: config.pad_token_id,
        })
    }

    /// Token states `[batch, seq, hidden]` of `ids` (`[batch, seq]`, u32),
    /// where `mask` (same shape, 1 for a real token) marks the padding.
    pub fn forward(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (batch, seq) = ids.dims2()?;
        let device = ids.device();
        let positions: Vec<u32> = ids
            .to_vec2::<u32>()?
            .iter()
            .flat_map(|row| {
                let mut count = 0;
                row.iter()
                    .map(|&id| {
                        if id == self.pad_id {
                            self.pad_id
                        } else {
                            count += 1;
                            count + self.pad_id
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let positions = Tensor::from_vec(positions, (batch, seq), device)?;
        let embedded = (self.words.forward(ids)? + self.positions.forward(&positions)?)?;
        let mut states = self.embedding_norm.forward(&embedded)?;

        let bucket_of: Vec<usize> = (0..2 * seq)
            .map(|d| relative_bucket(d as i64 - seq as i64, self.buckets))
            .collect();
        let mut bias = vec![0f32; self.heads * seq * seq];
        for head in 0..self.heads {
            for q in 0..seq {
                for k in 0..seq {
                    let bucket = bucket_of[k + seq - q];
                    bias[(head * seq + q) * seq + k] = self.relative_bias[bucket][head];
                }
            }
        }
        let bias = Tensor::from_vec(bias, (1, self.heads, seq, seq), device)?;
        let padding = ((mask.ones_like()? - mask)?.to_dtype(DType::F32)? * f64::from(f32::MIN))?
            .reshape((batch, 1, 1, seq))?;
        let bias = bias.broadcast_add(&padding)?;
        for layer in &self.layers {
            states = layer.forward(&states, &bias)?;
        }
        Ok(states)
    }
}

/// The bucket of a relative position (key minus query), as MPNet (after
/// T5) computes it: half the buckets for keys after the query, half for
/// keys before; within each half, exact distances below a quarter of the
/// buckets, then logarithmic up to [`MAX_DISTANCE`].
fn relative_bucket(relative_position: i64, buckets: usize) -> usize {
    let half = (buckets / 2) as i64;
    let n = -relative_position;
    let mut bucket = if n < 0 { half } else { 0 };
    let n = n.abs();
    let max_exact = half / 2;
    bucket += if n < max_exact {
        n
    } else {
        // In f32, as the reference computes it, so bucket edges agree.
        let scale = ((MAX_DISTANCE as f64) / (max_exact as f64)).ln() as f32;
        let large = max_exact
            + ((n as f32 / max_exact as f32).ln() / scale * (half - max_exact) as f32) as i64;
        large.min(half - 1)
    };
    bucket as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_exact_near_and_logarithmic_far() {
        // Keys before the query (positive n) use the first half.
        assert_eq!(relative_bucket(0, 32), 0);
        assert_eq!(relative_bucket(-1, 32), 1);
        assert_eq!(relative_bucket(-7, 32), 7);
        assert_eq!(relative_bucket(-8, 32), 8);
        assert_eq!(relative_bucket(-16, 32), 10);
        assert_eq!(relative_bucket(-127, 32), 15);
        assert_eq!(relative_bucket(-1000, 32), 15);
        // Keys after the query use the second half.
        assert_eq!(relative_bucket(1, 32), 17);
        assert_eq!(relative_bucket(7, 32), 23);
        assert_eq!(relative_bucket(16, 32), 26);
        assert_eq!(relative_bucket(500, 32), 31);
    }
}
