//! Gemma 3's forward pass over quantized GGUF weights, with a key-value cache
//! and an attention mask of our own.
//!
//! Built from candle's quantized building blocks rather than
//! `candle_transformers::models::quantized_gemma3`, for three reasons found by
//! running that model: its mask cannot feed more than one token after a cached
//! prefix (a `u32` mask concatenated with an `f32` block: "dtype mismatch in
//! cat"), its cached one-token steps ignore the sliding window, and it keeps
//! one private, mutable cache, so a prefix cannot be shared by requests. Here
//! a forward call takes the cache it extends by reference and returns the new
//! keys and values, and the new tokens may form a *tree* (each names its
//! parent): the candidates of a constrained choice share their common token
//! prefixes and are all scored in one call, every node seeing the cached
//! context, its ancestors and itself.
//!
//! The keys are made contiguous before `q · kᵀ`: with the transposed view,
//! candle 0.11's CPU matmul returned wrong scores for some shapes (a 12-token
//! prompt run as 6 + 6 tokens disagreed with one call by up to 1.7 in the
//! hidden state; contiguous, they agree to 1e-5).
//!
//! The architecture (Gemma 3 as llama.cpp runs it): embeddings scaled by
//! √hidden; per layer RMS-normed attention with RMS-normed queries and keys,
//! RoPE (base 10,000 on the sliding-window layers, the file's base on every
//! sixth, global, layer), grouped-query attention, a post-attention norm, then
//! a GeGLU feed-forward (tanh-approximated GELU) between two norms; a final
//! norm and the tied output projection. Sliding-window layers see the last
//! `sliding_window` positions only.

use candle_core::quantized::{QMatMul, gguf_file};
use candle_core::{D, DType, Device, IndexOp, Module, Tensor};
use candle_transformers::quantized_nn::RmsNorm;

use super::LlmError;

/// Every sixth layer attends globally, the others through the window.
const GLOBAL_LAYER_PERIOD: usize = 6;
const LOCAL_ROPE_BASE: f64 = 10_000.0;

struct Layer {
    q: QMatMul,
    k: QMatMul,
    v: QMatMul,
    o: QMatMul,
    q_norm: RmsNorm,
    k_norm: RmsNorm,
    attention_norm: RmsNorm,
    post_attention_norm: RmsNorm,
    ffn_norm: RmsNorm,
    post_ffn_norm: RmsNorm,
    gate: QMatMul,
    up: QMatMul,
    down: QMatMul,
    /// `Some(window)` on sliding-window layers.
    window: Option<usize>,
    rope_base: f64,
}

/// Keys and values of a token sequence, per layer: `(1, kv_heads, len, head_dim)`.
#[derive(Clone)]
pub struct KvCache {
    layers: Vec<(Tensor, Tensor)>,
    len: usize,
}

impl KvCache {
    /// Tokens held.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first `len` tokens' keys and values (a view, nothing copied).
    pub fn truncated(&self, len: usize) -> Result<KvCache, LlmError> {
        if len > self.len {
            return Err(LlmError::Inference(format!(
                "a cache of {} tokens has no first {len}",
                self.len
            )));
        }
        let layers = self
            .layers
            .iter()
            .map(|(k, v)| Ok((k.narrow(2, 0, len)?, v.narrow(2, 0, len)?)))
            .collect::<candle_core::Result<_>>()?;
        Ok(KvCache { layers, len })
    }
}

pub struct Gemma3 {
    embeddings: Tensor,
    hidden: usize,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    layers: Vec<Layer>,
    norm: RmsNorm,
    output: QMatMul,
    context_length: usize,
    device: Device,
}

impl Gemma3 {
    pub fn from_gguf<R: std::io::Read + std::io::Seek>(
        content: &gguf_file::Content,
        reader: &mut R,
    ) -> Result<Self, LlmError> {
        let device = Device::Cpu;
        let arch = content
            .metadata
            .get("general.architecture")
            .and_then(|v| v.to_string().ok())
            .cloned()
            .unwrap_or_default();
        if arch != "gemma3" {
            return Err(LlmError::InvalidModel(format!(
                "architecture `{arch}` is not supported (only gemma3)"
            )));
        }
        let int = |key: &str| -> Result<usize, LlmError> {
            content
                .metadata
                .get(&format!("gemma3.{key}"))
                .and_then(|v| v.to_u32().ok())
                .map(|v| v as usize)
                .ok_or_else(|| LlmError::InvalidModel(format!("no `gemma3.{key}` in the metadata")))
        };
        let float = |key: &str| -> Option<f64> {
            content
                .metadata
                .get(&format!("gemma3.{key}"))
                .and_then(|v| v.to_f32().ok())
                .map(f64::from)
        };
        let heads = int("attention.head_count")?;
        let kv_heads = int("attention.head_count_kv")?;
        let blocks = int("block_count")?;
        let hidden = int("embedding_length")?;
        let head_dim = int("attention.key_length")?;
        let window = int("attention.sliding_window")?;
        let context_length = int("context_length")?;
        if heads == 0 || kv_heads == 0 || heads % kv_heads != 0 || head_dim % 2 != 0 {
            return Err(LlmError::InvalidModel(format!(
                "inconsistent attention shape: {heads} heads, {kv_heads} key-value heads, head size {head_dim}"
            )));
        }
        let eps = float("attention.layer_norm_rms_epsilon").unwrap_or(1e-6);
        let rope_base = float("rope.freq_base").unwrap_or(1_000_000.0);
        let mut tensor = |name: &str| {
            content
                .tensor(reader, name, &device)
                .map_err(|e| LlmError::InvalidModel(format!("tensor `{name}`: {e}")))
        };
        let embeddings_q = tensor("token_embd.weight")?;
        let embeddings = embeddings_q.dequantize(&device)?;
        let output = match tensor("output.weight") {
            Ok(weight) => weight,
            Err(_) => embeddings_q,
        };
        let norm = RmsNorm::from_qtensor(tensor("output_norm.weight")?, eps)?;
        let mut layers = Vec::with_capacity(blocks);
        for index in 0..blocks {
            let mut weight = |name: &str| tensor(&format!("blk.{index}.{name}.weight"));
            let matmul = |t| QMatMul::from_qtensor(t).map_err(LlmError::from);
            let global = (index + 1) % GLOBAL_LAYER_PERIOD == 0;
            layers.push(Layer {
                q: matmul(weight("attn_q")?)?,
                k: matmul(weight("attn_k")?)?,
                v: matmul(weight("attn_v")?)?,
                o: matmul(weight("attn_output")?)?,
                q_norm: RmsNorm::from_qtensor(weight("attn_q_norm")?, eps)?,
                k_norm: RmsNorm::from_qtensor(weight("attn_k_norm")?, eps)?,
                attention_norm: RmsNorm::from_qtensor(weight("attn_norm")?, eps)?,
                post_attention_norm: RmsNorm::from_qtensor(weight("post_attention_norm")?, eps)?,
                ffn_norm: RmsNorm::from_qtensor(weight("ffn_norm")?, eps)?,
                post_ffn_norm: RmsNorm::from_qtensor(weight("post_ffw_norm")?, eps)?,
                gate: matmul(weight("ffn_gate")?)?,
                up: matmul(weight("ffn_up")?)?,
                down: matmul(weight("ffn_down")?)?,
                window: (!global).then_some(window),
                rope_base: if global { rope_base } else { LOCAL_ROPE_BASE },
            });
        }
        Ok(Self {
            embeddings,
            hidden,
            heads,
            kv_heads,
            head_dim,
            layers,
            norm,
            output: QMatMul::from_qtensor(output)?,
            context_length,
            device,
        })
    }

    pub fn context_length(&self) -> usize {
        self.context_length
    }

    pub fn empty_cache(&self) -> Result<KvCache, LlmError> {
        let empty = Tensor::zeros(
            (1, self.kv_heads, 0, self.head_dim),
            DType::F32,
            &self.device,
        )?;
        Ok(KvCache {
            layers: vec![(empty.clone(), empty); self.layers.len()],
            len: 0,
        })
    }

    /// Runs `tokens` after `past`. `parents[i]` is the index (in `tokens`,
    /// below `i`) of the token that precedes token `i`, or `None` when it
    /// follows the end of `past`; a plain sequence has `parents[i] = i - 1`.
    /// Returns the final-normed hidden states `(n, hidden)` and `past`
    /// followed by the new tokens' keys and values, in token order: a cache
    /// to continue from as far as the new tokens form a sequence (the
    /// attention concatenates them anyway, so this costs no copy of its own).
    pub fn forward(
        &self,
        tokens: &[u32],
        parents: &[Option<usize>],
        past: &KvCache,
    ) -> Result<(Tensor, KvCache), LlmError> {
        let n = tokens.len();
        if parents.len() != n
            || parents
                .iter()
                .enumerate()
                .any(|(i, p)| p.is_some_and(|p| p >= i))
        {
            return Err(LlmError::Inference(
                "each token's parent must come before it".into(),
            ));
        }
        let vocab = self.embeddings.dim(0)?;
        if let Some(bad) = tokens.iter().find(|&&t| t as usize >= vocab) {
            return Err(LlmError::Inference(format!(
                "token {bad} is outside the vocabulary"
            )));
        }
        let mut positions = Vec::with_capacity(n);
        for parent in parents {
            positions.push(parent.map_or(past.len, |p| positions[p] + 1));
        }
        if positions.iter().any(|&p| p >= self.context_length) {
            return Err(LlmError::TooLong {
                tokens: positions.iter().max().map_or(0, |p| p + 1),
                limit: self.context_length,
            });
        }
        // ancestors[i][j]: token j is token i or one of its ancestors.
        let mut ancestors = vec![vec![false; n]; n];
        for (i, row) in ancestors.iter_mut().enumerate() {
            let mut at = Some(i);
            while let Some(j) = at {
                row[j] = true;
                at = parents[j];
            }
        }
        let mask_for = |window: Option<usize>| -> candle_core::Result<Tensor> {
            let total = past.len + n;
            let mut mask = vec![f32::NEG_INFINITY; n * total];
            for i in 0..n {
                let pos = positions[i];
                let visible = |key_pos: usize| window.is_none_or(|w| pos - key_pos < w);
                let row = &mut mask[i * total..(i + 1) * total];
                for (j, cell) in row[..past.len].iter_mut().enumerate() {
                    if visible(j) {
                        *cell = 0.0;
                    }
                }
                for j in 0..n {
                    if ancestors[i][j] && visible(positions[j]) {
                        row[past.len + j] = 0.0;
                    }
                }
            }
            Tensor::from_vec(mask, (n, total), &self.device)
        };
        let global_mask = mask_for(None)?;
        let local_mask = self
            .layers
            .iter()
            .find_map(|l| l.window)
            .map(|w| mask_for(Some(w)))
            .transpose()?;
        let rope_tables = |base: f64| -> candle_core::Result<(Tensor, Tensor)> {
            let half = self.head_dim / 2;
            let mut cos = Vec::with_capacity(n * half);
            let mut sin = Vec::with_capacity(n * half);
            for &pos in &positions {
                for i in 0..half {
                    let angle = pos as f64 / base.powf(2.0 * i as f64 / self.head_dim as f64);
                    cos.push(angle.cos() as f32);
                    sin.push(angle.sin() as f32);
                }
            }
            Ok((
                Tensor::from_vec(cos, (n, half), &self.device)?,
                Tensor::from_vec(sin, (n, half), &self.device)?,
            ))
        };
        let local_rope = rope_tables(LOCAL_ROPE_BASE)?;
        let mut global_rope = None;

        let ids = Tensor::new(tokens, &self.device)?;
        let mut x =
            (self.embeddings.index_select(&ids, 0)? * (self.hidden as f64).sqrt())?.unsqueeze(0)?;
        let mut new_layers = Vec::with_capacity(self.layers.len());
        for (layer, (past_k, past_v)) in self.layers.iter().zip(&past.layers) {
            let (mask, rope) = match layer.window {
                Some(_) => (local_mask.as_ref().unwrap_or(&global_mask), &local_rope),
                None => {
                    if global_rope.is_none() {
                        global_rope = Some(rope_tables(layer.rope_base)?);
                    }
                    (&global_mask, global_rope.as_ref().unwrap_or(&local_rope))
                }
            };
            let residual = &x;
            let h = layer.attention_norm.forward(&x)?;
            let (h, k, v) = self.attention(layer, &h, past_k, past_v, mask, rope)?;
            new_layers.push((k, v));
            let h = layer.post_attention_norm.forward(&h)?;
            let x1 = (h + residual)?;
            let h = layer.ffn_norm.forward(&x1)?;
            let gate = layer.gate.forward(&h)?.gelu()?;
            let h = layer.down.forward(&(gate * layer.up.forward(&h)?)?)?;
            let h = layer.post_ffn_norm.forward(&h)?;
            x = (h + x1)?;
        }
        let hidden = self.norm.forward(&x.squeeze(0)?)?;
        Ok((
            hidden,
            KvCache {
                layers: new_layers,
                len: past.len + n,
            },
        ))
    }

    /// Attention of the new tokens `x` `(1, n, hidden)` over `past` and
    /// themselves; returns the output and the keys and values of `past`
    /// followed by the new tokens.
    fn attention(
        &self,
        layer: &Layer,
        x: &Tensor,
        past_k: &Tensor,
        past_v: &Tensor,
        mask: &Tensor,
        (cos, sin): &(Tensor, Tensor),
    ) -> candle_core::Result<(Tensor, Tensor, Tensor)> {
        let (_, n, _) = x.dims3()?;
        let q = layer
            .q
            .forward(x)?
            .reshape((1, n, self.heads, self.head_dim))?
            .transpose(1, 2)?
            .contiguous()?;
        let k = layer
            .k
            .forward(x)?
            .reshape((1, n, self.kv_heads, self.head_dim))?
            .transpose(1, 2)?
            .contiguous()?;
        let v = layer
            .v
            .forward(x)?
            .reshape((1, n, self.kv_heads, self.head_dim))?
            .transpose(1, 2)?
            .contiguous()?;
        let q = layer.q_norm.forward(&q)?;
        let k = layer.k_norm.forward(&k)?;
        let q = candle_nn::rotary_emb::rope(&q, cos, sin)?;
        let k = candle_nn::rotary_emb::rope(&k, cos, sin)?;
        let all_k = Tensor::cat(&[past_k, &k], 2)?;
        let all_v = Tensor::cat(&[past_v, &v], 2)?;
        let total = all_k.dim(2)?;
        // Grouped-query attention without copying keys: the query heads that
        // share a key-value head are stacked along the sequence axis.
        let groups = self.heads / self.kv_heads;
        let q = q.reshape((1, self.kv_heads, groups * n, self.head_dim))?;
        let scores = (q.matmul(&all_k.t()?.contiguous()?)? / (self.head_dim as f64).sqrt())?;
        let scores = scores
            .reshape((1, self.kv_heads, groups, n, total))?
            .broadcast_add(mask)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?.reshape((
            1,
            self.kv_heads,
            groups * n,
            total,
        ))?;
        let out = weights
            .matmul(&all_v)?
            .reshape((1, self.heads, n, self.head_dim))?
            .transpose(1, 2)?
            .reshape((1, n, self.heads * self.head_dim))?;
        Ok((layer.o.forward(&out)?, all_k, all_v))
    }

    /// For each row of `hidden` `(m, hidden)`, the log-probabilities of the
    /// tokens `wanted[row]` coming next (normalised over the whole vocabulary).
    pub fn next_token_log_probs(
        &self,
        hidden: &Tensor,
        wanted: &[Vec<u32>],
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let logits = self.output.forward(hidden)?;
        let log_probs = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
        wanted
            .iter()
            .enumerate()
            .map(|(row, ids)| {
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let ids = Tensor::new(ids.as_slice(), &self.device)?;
                Ok(log_probs.i(row)?.index_select(&ids, 0)?.to_vec1()?)
            })
            .collect()
    }

    /// Row `i` of `hidden` `(m, hidden)` as `(1, hidden)`.
    pub fn row(hidden: &Tensor, i: usize) -> Result<Tensor, LlmError> {
        Ok(hidden.i(i..i + 1)?)
    }
}
