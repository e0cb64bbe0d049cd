//! A BERT encoder's forward pass over one request, in 16-bit integers.
//!
//! Ranking a long request costs one forward pass over its reduced 128 tokens,
//! and in 32-bit floats that pass is nearly all of the request's time: about
//! 46 ms on two cores, its matrix products already close to the processor's
//! float multiply-add peak. Integer products are cheaper: AVX-512 VNNI's
//! `vpdpwssd` does 32 multiply-adds of 16-bit integers per instruction where
//! a float FMA does 16. So the dense layers' weights are quantised once, at
//! load, with one scale per output column, and each token's activations are
//! quantised with their own scale as they enter a dense layer. Attention,
//! softmax, GELU and the layer norms stay in floats, vectorised for the same
//! processor.
//!
//! Why 16 bits and not 8 (`vpdpbusd`, twice as fast again): BERT's hidden
//! states have a few outlying dimensions, so one 8-bit scale per token
//! leaves the others a handful of steps. Measured on the long held-out
//! suites, 8 bits lost 2 of 30 requests on one of them (hybrid P@1 0.767 →
//! 0.700). The levels are chosen so that no sum can overflow its 32-bit
//! accumulator (see [`Dense::activation_levels`]).
//!
//! Only requests take this pass. A skill's vectors are computed once and
//! cached, and they keep the float pass, so a cache never mixes the two. The
//! pass runs only where the processor has AVX-512 VNNI, checked when the
//! model loads; elsewhere, or with `HONE_FLOAT_REQUESTS=1`, requests take
//! the float pass too.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};
use candle_transformers::models::bert::{Config, HiddenAct};
use rayon::prelude::*;
use std::arch::x86_64::*;

/// Columns the kernel computes together: two 16-lane registers.
const COLUMN_BLOCK: usize = 32;
/// Rows the kernel computes together.
const ROW_BLOCK: usize = 4;
/// The largest quantised weight: 10 bits, which leaves room for 11-bit
/// activations in sums of up to 2,048 products.
const WEIGHT_LEVELS: f32 = 511.0;
/// The largest quantised activation, where the sum's length allows.
const MAX_ACTIVATION_LEVELS: f32 = 1023.0;

/// The encoder, ready for the integer pass.
pub(super) struct Int16Bert {
    hidden: usize,
    heads: usize,
    eps: f32,
    /// `vocab × hidden`: the float model's own tensor, shared, not copied
    /// (a request reads a few of its 30,000 rows).
    word: Tensor,
    /// `positions × hidden`, shared as `word` is.
    position: Tensor,
    /// The embedding of token type 0, the only type a request has.
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

struct Layer {
    /// Query, key and value in one product: `hidden → 3 × hidden`.
    qkv: Dense,
    attention_output: Dense,
    attention_norm: Norm,
    intermediate: Dense,
    output: Dense,
    output_norm: Norm,
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// A dense layer with 16-bit integer weights.
struct Dense {
    inputs: usize,
    outputs: usize,
    /// Per block of 16 output columns, per 2 inputs: 16 lanes of 2 weights,
    /// the layout `vpdpwssd` reads.
    packed: Vec<i16>,
    /// Per output column: the value of one weight step.
    scales: Vec<f32>,
    bias: Vec<f32>,
}

impl Int16Bert {
    /// The integer encoder for `config`'s weights among `tensors`, or `None`
    /// when the processor lacks AVX-512 VNNI, a weight is missing or the
    /// shapes do not suit the kernel (a float pass serves those).
    pub(super) fn new(tensors: &HashMap<String, Tensor>, config: &Config) -> Option<Int16Bert> {
        if std::env::var_os("HONE_FLOAT_REQUESTS").is_some_and(|v| v == "1") || !supported() {
            return None;
        }
        let hidden = config.hidden_size;
        let fits = hidden > 0
            && hidden.is_multiple_of(COLUMN_BLOCK)
            && config.intermediate_size.is_multiple_of(COLUMN_BLOCK)
            && config.num_attention_heads > 0
            && hidden.is_multiple_of(config.num_attention_heads)
            && (hidden / config.num_attention_heads).is_multiple_of(LANES)
            && config.hidden_act == HiddenAct::Gelu;
        if !fits {
            return None;
        }
        let prefix = if tensors.contains_key("embeddings.word_embeddings.weight") {
            ""
        } else {
            "bert."
        };
        let values = |name: &str| -> Option<Vec<f32>> {
            let tensor = tensors.get(&format!("{prefix}{name}"))?;
            tensor.flatten_all().ok()?.to_vec1::<f32>().ok()
        };
        let norm = |name: &str| -> Option<Norm> {
            let norm = Norm {
                weight: values(&format!("{name}.weight"))?,
                bias: values(&format!("{name}.bias"))?,
            };
            (norm.weight.len() == hidden && norm.bias.len() == hidden).then_some(norm)
        };
        // A table of one or more rows of `hidden` floats.
        let table = |name: &str| -> Option<Tensor> {
            let tensor = tensors.get(&format!("{prefix}{name}"))?;
            let (rows, columns) = tensor.dims2().ok()?;
            (rows > 0 && columns == hidden && tensor.dtype() == DType::F32).then(|| tensor.clone())
        };
        // Dense weights are `[outputs, inputs]`; their transpose, `[inputs,
        // outputs]`, is how the model stores them (see `load_weights`), so
        // reading it is one copy.
        let weight = |name: &str| -> Option<(Vec<f32>, Vec<f32>)> {
            let tensor = tensors.get(&format!("{prefix}{name}.weight"))?.t().ok()?;
            let rows = tensor.flatten_all().ok()?.to_vec1::<f32>().ok()?;
            Some((rows, values(&format!("{name}.bias"))?))
        };
        let dense = |name: &str, inputs: usize, outputs: usize| -> Option<Dense> {
            let (w, b) = weight(name)?;
            (w.len() == inputs * outputs && b.len() == outputs)
                .then(|| Dense::quantise(&w, b, inputs, outputs))
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let at = |part: &str| format!("encoder.layer.{i}.{part}");
            let mut parts = Vec::with_capacity(3);
            let mut qkv_bias = Vec::with_capacity(3 * hidden);
            for part in ["query", "key", "value"] {
                let (w, b) = weight(&at(&format!("attention.self.{part}")))?;
                if w.len() != hidden * hidden || b.len() != hidden {
                    return None;
                }
                parts.push(w);
                qkv_bias.extend(b);
            }
            // Side by side: each input's row is its query, key and value rows.
            let qkv_weights: Vec<f32> = (0..hidden)
                .flat_map(|k| parts.iter().flat_map(move |w| &w[k * hidden..][..hidden]))
                .copied()
                .collect();
            layers.push(Layer {
                qkv: Dense::quantise(&qkv_weights, qkv_bias, hidden, 3 * hidden),
                attention_output: dense(&at("attention.output.dense"), hidden, hidden)?,
                attention_norm: norm(&at("attention.output.LayerNorm"))?,
                intermediate: dense(&at("intermediate.dense"), hidden, config.intermediate_size)?,
                output: dense(&at("output.dense"), config.intermediate_size, hidden)?,
                output_norm: norm(&at("output.LayerNorm"))?,
            });
        }
        let token_type = table("embeddings.token_type_embeddings.weight")?
            .get(0)
            .and_then(|row| row.to_vec1::<f32>())
            .ok()?;
        Some(Int16Bert {
            hidden,
            heads: config.num_attention_heads,
            eps: config.layer_norm_eps as f32,
            word: table("embeddings.word_embeddings.weight")?,
            position: table("embeddings.position_embeddings.weight")?,
            token_type,
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// The final token states of `ids` (one unpadded text), `ids.len() × hidden`.
    /// An id past the vocabulary or a text past the positions (which the
    /// tokenizer never gives) is an error, as in the float pass.
    pub(super) fn forward(&self, ids: &[u32]) -> candle_core::Result<Vec<f32>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let index = Tensor::from_slice(ids, ids.len(), &Device::Cpu)?;
        let words = self.word.index_select(&index, 0)?;
        let positions = self.position.narrow(0, 0, ids.len())?;
        let inputs = (words + positions)?.flatten_all()?.to_vec1::<f32>()?;
        // SAFETY: an `Int16Bert` exists only where `supported()` held.
        Ok(unsafe { self.forward_vnni(inputs, ids.len()) })
    }

    /// `inputs`: each token's word and position embeddings, summed.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
    fn forward_vnni(&self, inputs: Vec<f32>, tokens: usize) -> Vec<f32> {
        let mut states = inputs;
        for row in states.chunks_exact_mut(self.hidden) {
            add_into(row, &self.token_type);
            layer_norm(row, &self.embedding_norm, self.eps);
        }
        for layer in &self.layers {
            states = self.layer(layer, &states, tokens);
        }
        states
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
    fn layer(&self, layer: &Layer, input: &[f32], tokens: usize) -> Vec<f32> {
        let qkv = layer.qkv.forward(input, tokens);
        let context = self.attention(&qkv, tokens);
        let mut attended = layer.attention_output.forward(&context, tokens);
        self.add_and_normalise(&mut attended, input, &layer.attention_norm);
        let mut intermediate = layer.intermediate.forward(&attended, tokens);
        for chunk in intermediate.chunks_exact_mut(LANES) {
            store(chunk, gelu16(load(chunk)));
        }
        let mut output = layer.output.forward(&intermediate, tokens);
        self.add_and_normalise(&mut output, &attended, &layer.output_norm);
        output
    }

    /// Adds the residual `input` to each row of `rows`, then normalises it.
    #[target_feature(enable = "avx512f,fma")]
    fn add_and_normalise(&self, rows: &mut [f32], input: &[f32], norm: &Norm) {
        for (row, residual) in rows
            .chunks_exact_mut(self.hidden)
            .zip(input.chunks_exact(self.hidden))
        {
            add_into(row, residual);
            layer_norm(row, norm, self.eps);
        }
    }

    /// Self-attention over every token (a request has no padding), one head
    /// per task; returns the heads' contexts side by side, `tokens × hidden`.
    fn attention(&self, qkv: &[f32], tokens: usize) -> Vec<f32> {
        let hidden = self.hidden;
        let width = hidden / self.heads;
        let scale = 1.0 / (width as f32).sqrt();
        let per_head: Vec<Vec<f32>> = (0..self.heads)
            .into_par_iter()
            // SAFETY: as in `forward`.
            .map(|head| unsafe { head_attention(qkv, tokens, hidden, head * width, width, scale) })
            .collect();
        let mut context = vec![0f32; tokens * hidden];
        for (head, values) in per_head.iter().enumerate() {
            for (t, row) in values.chunks_exact(width).enumerate() {
                context[t * hidden + head * width..][..width].copy_from_slice(row);
            }
        }
        context
    }
}

/// One head's context, `tokens × width`: its query, key and value columns
/// start at `start` of each third of a `qkv` row.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
fn head_attention(
    qkv: &[f32],
    tokens: usize,
    hidden: usize,
    start: usize,
    width: usize,
    scale: f32,
) -> Vec<f32> {
    let row = |t: usize, third: usize| &qkv[t * 3 * hidden + third * hidden + start..][..width];
    // Keys transposed, `width × padded`, so that scores are sums of whole
    // rows, 16 tokens to a register; values gathered, `tokens × width`.
    let padded = tokens.div_ceil(LANES) * LANES;
    let mut keys = vec![0f32; width * padded];
    let mut values = Vec::with_capacity(tokens * width);
    for t in 0..tokens {
        for (d, &k) in row(t, 1).iter().enumerate() {
            keys[d * padded + t] = k;
        }
        values.extend_from_slice(row(t, 2));
    }
    let mut context = vec![0f32; tokens.div_ceil(QUERY_BLOCK) * QUERY_BLOCK * width];
    let mut queries = vec![0f32; QUERY_BLOCK * width];
    let mut scores = vec![0f32; QUERY_BLOCK * padded];
    for (block, out) in context.chunks_exact_mut(QUERY_BLOCK * width).enumerate() {
        // The block's queries, scaled; a last, short block repeats its last
        // query, whose extra results are dropped.
        for (r, query) in queries.chunks_exact_mut(width).enumerate() {
            let t = (block * QUERY_BLOCK + r).min(tokens - 1);
            for (q, &v) in query.iter_mut().zip(row(t, 0)) {
                *q = v * scale;
            }
        }
        for c in 0..padded / LANES {
            let mut sums = [_mm512_setzero_ps(); QUERY_BLOCK];
            for d in 0..width {
                let k = load(&keys[d * padded + c * LANES..]);
                for (r, sum) in sums.iter_mut().enumerate() {
                    *sum = _mm512_fmadd_ps(_mm512_set1_ps(queries[r * width + d]), k, *sum);
                }
            }
            for (r, sum) in sums.iter().enumerate() {
                store(&mut scores[r * padded + c * LANES..], *sum);
            }
        }
        for row_scores in scores.chunks_exact_mut(padded) {
            softmax(row_scores, tokens);
        }
        match width / LANES {
            2 => weighted_sums::<2>(&scores, padded, &values, tokens, out),
            4 => weighted_sums::<4>(&scores, padded, &values, tokens, out),
            _ => weighted_sums::<1>(&scores, padded, &values, tokens, out),
        }
    }
    context.truncate(tokens * width);
    context
}

/// Query rows computed together in attention.
const QUERY_BLOCK: usize = 4;

/// For each of [`QUERY_BLOCK`] rows of `weights` (`padded` apart), the sum
/// of the value rows (`tokens × width`) so weighted, into that row of `out`
/// (`QUERY_BLOCK × width`), 16 × N columns at a time, in registers.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
fn weighted_sums<const N: usize>(
    weights: &[f32],
    padded: usize,
    values: &[f32],
    tokens: usize,
    out: &mut [f32],
) {
    let width = values.len() / tokens;
    for first in (0..width).step_by(N * LANES) {
        let mut sums = [[_mm512_setzero_ps(); N]; QUERY_BLOCK];
        for (j, value) in values.chunks_exact(width).enumerate() {
            let value = &value[first..];
            let columns: [__m512; N] = std::array::from_fn(|n| load(&value[n * LANES..]));
            for (r, row) in sums.iter_mut().enumerate() {
                let w = _mm512_set1_ps(weights[r * padded + j]);
                for (sum, &column) in row.iter_mut().zip(&columns) {
                    *sum = _mm512_fmadd_ps(w, column, *sum);
                }
            }
        }
        for (r, row) in sums.iter().enumerate() {
            for (n, sum) in row.iter().enumerate() {
                store(&mut out[r * width + first + n * LANES..], *sum);
            }
        }
    }
}

/// Softmax of the first `len` scores in place; the padding after them
/// becomes zero.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
fn softmax(scores: &mut [f32], len: usize) {
    scores[len..].fill(f32::NEG_INFINITY);
    let mut max = _mm512_set1_ps(f32::NEG_INFINITY);
    for chunk in scores.chunks_exact(LANES) {
        max = _mm512_max_ps(max, load(chunk));
    }
    let max = _mm512_set1_ps(_mm512_reduce_max_ps(max));
    let mut sum = _mm512_setzero_ps();
    for chunk in scores.chunks_exact_mut(LANES) {
        let e = exp16(_mm512_sub_ps(load(chunk), max));
        sum = _mm512_add_ps(sum, e);
        store(chunk, e);
    }
    // The padding's exponential (of −∞, clamped) is below 10⁻³⁷, lost in
    // the sum; it is zeroed so that it weighs no value.
    scores[len..].fill(0.0);
    let inverse = _mm512_set1_ps(1.0 / _mm512_reduce_add_ps(sum));
    for chunk in scores.chunks_exact_mut(LANES) {
        let scaled = _mm512_mul_ps(load(chunk), inverse);
        store(chunk, scaled);
    }
}

/// Floats to a register.
const LANES: usize = 16;

/// The first 16 values of `values`.
#[inline]
#[target_feature(enable = "avx512f")]
fn load(values: &[f32]) -> __m512 {
    let values = &values[..LANES];
    // SAFETY: `values` holds 16 floats.
    unsafe { _mm512_loadu_ps(values.as_ptr()) }
}

/// Stores 16 values at the start of `out`.
#[inline]
#[target_feature(enable = "avx512f")]
fn store(out: &mut [f32], values: __m512) {
    let out = &mut out[..LANES];
    // SAFETY: `out` holds 16 floats.
    unsafe { _mm512_storeu_ps(out.as_mut_ptr(), values) }
}

impl Dense {
    /// Quantises `weights` (`inputs × outputs`, row-major: the transpose of
    /// the layer's matrix) per output column.
    fn quantise(weights: &[f32], bias: Vec<f32>, inputs: usize, outputs: usize) -> Dense {
        let mut largest = vec![0f32; outputs];
        for row in weights.chunks_exact(outputs) {
            for (l, w) in largest.iter_mut().zip(row) {
                *l = l.max(w.abs());
            }
        }
        let scales: Vec<f32> = largest
            .iter()
            .map(|&l| if l > 0.0 { l / WEIGHT_LEVELS } else { 1.0 })
            .collect();
        let inverses: Vec<f32> = scales.iter().map(|s| 1.0 / s).collect();
        let pairs = inputs.div_ceil(2);
        let mut packed = vec![0i16; outputs * pairs * 2];
        for (k, row) in weights.chunks_exact(outputs).enumerate() {
            for (n, (&w, inverse)) in row.iter().zip(&inverses).enumerate() {
                // Rounds half away from zero by truncation: `round` is a
                // library call per weight on baseline x86-64.
                let x = (w * inverse).clamp(-WEIGHT_LEVELS, WEIGHT_LEVELS);
                let q = (x + 0.5f32.copysign(x)) as i16;
                packed[((n / 16 * pairs + k / 2) * 16 + n % 16) * 2 + k % 2] = q;
            }
        }
        Dense {
            inputs,
            outputs,
            packed,
            scales,
            bias,
        }
    }

    /// The largest quantised activation: 11 bits, fewer if the inputs are so
    /// many that a sum of products could pass `i32::MAX`.
    fn activation_levels(&self) -> f32 {
        let products = self.inputs.div_ceil(2) * 2;
        let room = i32::MAX as f32 / (products as f32 * WEIGHT_LEVELS);
        room.floor().min(MAX_ACTIVATION_LEVELS)
    }

    /// `input` (`tokens × inputs`) times the weights, plus the bias.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
    fn forward(&self, input: &[f32], tokens: usize) -> Vec<f32> {
        let stride = self.inputs.div_ceil(2) * 2;
        let rows = tokens.div_ceil(ROW_BLOCK) * ROW_BLOCK;
        // Each token's activations as integers, with their scale. Padding
        // (rows up to a whole block, an odd last input) is zero; padding
        // rows are computed but not returned.
        let mut integers = vec![0i16; rows * stride];
        let mut row_scales = vec![0f32; rows];
        let levels = self.activation_levels();
        for ((values, out), scale) in input
            .chunks_exact(self.inputs)
            .zip(integers.chunks_exact_mut(stride))
            .zip(row_scales.iter_mut())
        {
            *scale = quantise_row(values, levels, out);
        }
        let mut output = vec![0f32; rows * self.outputs];
        let threads = rayon::current_num_threads().max(1);
        let rows_per_task = rows.div_ceil(threads).div_ceil(ROW_BLOCK) * ROW_BLOCK;
        output
            .par_chunks_mut(rows_per_task * self.outputs)
            .zip(integers.par_chunks(rows_per_task * stride))
            .zip(row_scales.par_chunks(rows_per_task))
            .for_each(|((out, activations), scales)| self.kernel(activations, scales, out));
        output.truncate(tokens * self.outputs);
        output
    }

    /// The products of whole row blocks of `activations` with every column.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
    fn kernel(&self, activations: &[i16], row_scales: &[f32], output: &mut [f32]) {
        // 16 lanes of 2 weights: one group per block of 16 columns and pair of inputs.
        const GROUP: usize = 32;
        let pairs = self.inputs.div_ceil(2);
        let stride = pairs * 2;
        let rows = row_scales.len();
        assert_eq!(rows % ROW_BLOCK, 0);
        assert_eq!(activations.len(), rows * stride);
        assert_eq!(output.len(), rows * self.outputs);
        for column in (0..self.outputs).step_by(COLUMN_BLOCK) {
            let strip = &self.packed[column / 16 * pairs * GROUP..][..2 * pairs * GROUP];
            let (first, second) = strip.split_at(pairs * GROUP);
            let load = |values: &[f32]| {
                let values = &values[column..][..COLUMN_BLOCK];
                // SAFETY: `values` holds 32 floats.
                unsafe {
                    [
                        _mm512_loadu_ps(values.as_ptr()),
                        _mm512_loadu_ps(values.as_ptr().add(16)),
                    ]
                }
            };
            let (column_scales, bias) = (load(&self.scales), load(&self.bias));
            for block in (0..rows).step_by(ROW_BLOCK) {
                let mut sums = [[_mm512_setzero_si512(); 2]; ROW_BLOCK];
                let base = &activations[block * stride..][..ROW_BLOCK * stride];
                for p in 0..pairs {
                    // SAFETY: `p < pairs`, and each half of the strip holds
                    // `pairs` groups.
                    let (w0, w1) = unsafe {
                        (
                            _mm512_loadu_si512(first.as_ptr().add(p * GROUP).cast()),
                            _mm512_loadu_si512(second.as_ptr().add(p * GROUP).cast()),
                        )
                    };
                    for (r, sum) in sums.iter_mut().enumerate() {
                        // SAFETY: row `r` of the block holds `stride = 2 × pairs` integers.
                        let two = unsafe {
                            base.as_ptr()
                                .add(r * stride + p * 2)
                                .cast::<i32>()
                                .read_unaligned()
                        };
                        let x = _mm512_set1_epi32(two);
                        sum[0] = _mm512_dpwssd_epi32(sum[0], x, w0);
                        sum[1] = _mm512_dpwssd_epi32(sum[1], x, w1);
                    }
                }
                for (r, sum) in sums.iter().enumerate() {
                    let row_scale = _mm512_set1_ps(row_scales[block + r]);
                    let out = &mut output[(block + r) * self.outputs + column..][..COLUMN_BLOCK];
                    for half in 0..2 {
                        let scale = _mm512_mul_ps(row_scale, column_scales[half]);
                        let value =
                            _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum[half]), scale, bias[half]);
                        // SAFETY: `out` holds 32 values.
                        unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(half * 16), value) };
                    }
                }
            }
        }
    }
}

/// Whether this processor runs the integer pass.
fn supported() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512vnni")
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
}

/// Writes `values` (a multiple of 16 of them) into `out` as integers of at
/// most `levels`; returns the value of one step.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn quantise_row(values: &[f32], levels: f32, out: &mut [i16]) -> f32 {
    let mut largest = _mm512_setzero_ps();
    for chunk in values.chunks_exact(LANES) {
        largest = _mm512_max_ps(largest, _mm512_abs_ps(load(chunk)));
    }
    let largest = _mm512_reduce_max_ps(largest);
    let scale = if largest > 0.0 { largest / levels } else { 1.0 };
    let inverse = _mm512_set1_ps(1.0 / scale);
    for (chunk, out) in values.chunks_exact(LANES).zip(out.chunks_exact_mut(LANES)) {
        // |value| ≤ largest, so the rounded steps lie within ±levels.
        let steps = _mm512_cvtps_epi32(_mm512_mul_ps(load(chunk), inverse));
        let integers = _mm512_cvtepi32_epi16(steps);
        // SAFETY: `out` holds 16 integers.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), integers) };
    }
    scale
}

#[inline]
#[target_feature(enable = "avx512f")]
fn add_into(row: &mut [f32], other: &[f32]) {
    for (r, o) in row.chunks_exact_mut(LANES).zip(other.chunks_exact(LANES)) {
        store(r, _mm512_add_ps(load(r), load(o)));
    }
}

#[inline]
#[target_feature(enable = "avx512f,fma")]
fn layer_norm(row: &mut [f32], norm: &Norm, eps: f32) {
    let n = row.len() as f32;
    let mut sum = _mm512_setzero_ps();
    for chunk in row.chunks_exact(LANES) {
        sum = _mm512_add_ps(sum, load(chunk));
    }
    let mean = _mm512_set1_ps(_mm512_reduce_add_ps(sum) / n);
    let mut squares = _mm512_setzero_ps();
    for chunk in row.chunks_exact(LANES) {
        let centred = _mm512_sub_ps(load(chunk), mean);
        squares = _mm512_fmadd_ps(centred, centred, squares);
    }
    let inverse = _mm512_set1_ps(1.0 / (_mm512_reduce_add_ps(squares) / n + eps).sqrt());
    let chunks = row.chunks_exact_mut(LANES);
    for ((chunk, w), b) in chunks
        .zip(norm.weight.chunks_exact(LANES))
        .zip(norm.bias.chunks_exact(LANES))
    {
        let normalised = _mm512_mul_ps(_mm512_sub_ps(load(chunk), mean), inverse);
        store(chunk, _mm512_fmadd_ps(normalised, load(w), load(b)));
    }
}

/// `eˣ` of 16 values, within a few units in the last place: Cody–Waite
/// reduction `x = n ln 2 + r`, Cephes' polynomial for `eʳ`, then `2ⁿ` through
/// the exponent bits.
#[inline]
#[target_feature(enable = "avx512f,fma")]
fn exp16(x: __m512) -> __m512 {
    let x = _mm512_min_ps(
        _mm512_max_ps(x, _mm512_set1_ps(-87.0)),
        _mm512_set1_ps(88.0),
    );
    let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
        _mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::LOG2_E)),
    );
    let r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693_359_4), x);
    let r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.121_944_4e-4), r);
    let mut p = _mm512_set1_ps(EXP_POLYNOMIAL[0]);
    for &c in &EXP_POLYNOMIAL[1..] {
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
    }
    let e = _mm512_add_ps(
        _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r),
        _mm512_set1_ps(1.0),
    );
    let exponent = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    _mm512_mul_ps(e, _mm512_castsi512_ps(_mm512_slli_epi32::<23>(exponent)))
}

/// GELU of 16 values, with the error function as BERT's `gelu` has it: by
/// Abramowitz and Stegun 7.1.26 (absolute error below 1.5 × 10⁻⁷).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,fma")]
fn gelu16(x: __m512) -> __m512 {
    let z = _mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::FRAC_1_SQRT_2));
    let a = _mm512_abs_ps(z);
    let one = _mm512_set1_ps(1.0);
    let t = _mm512_div_ps(one, _mm512_fmadd_ps(_mm512_set1_ps(ERF_P), a, one));
    let mut p = _mm512_set1_ps(ERF_POLYNOMIAL[0]);
    for &c in &ERF_POLYNOMIAL[1..] {
        p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(c));
    }
    let decay = exp16(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_mul_ps(a, a)));
    let erf_abs = _mm512_sub_ps(one, _mm512_mul_ps(_mm512_mul_ps(p, t), decay));
    // erf is odd: give the result the sign of z.
    let sign = _mm512_and_ps(z, _mm512_set1_ps(-0.0));
    let erf = _mm512_or_ps(erf_abs, sign);
    _mm512_mul_ps(
        _mm512_mul_ps(_mm512_set1_ps(0.5), x),
        _mm512_add_ps(one, erf),
    )
}

/// Cephes' polynomial for `eʳ` on `|r| ≤ ln 2 / 2`, highest power first.
const EXP_POLYNOMIAL: [f32; 6] = [
    1.987_569_1e-4,
    1.398_2e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    0.166_666_65,
    0.5,
];
/// Abramowitz and Stegun 7.1.26: `erf(a) ≈ 1 − t·P(t)·e^(−a²)`, `t = 1 / (1 + p·a)`.
const ERF_P: f32 = 0.327_591_1;
const ERF_POLYNOMIAL: [f32; 5] = [
    1.061_405_4,
    -1.453_152_1,
    1.421_413_7,
    -0.284_496_74,
    0.254_829_6,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// These tests exercise the processor's AVX-512 VNNI; on a processor
    /// without it they fail rather than pass having tested nothing (the
    /// pass is never built there, see `supported`).
    fn require_the_processor() {
        assert!(
            supported(),
            "this processor lacks AVX-512 VNNI: the integer pass cannot run here \
             (skip these tests with `--skip embed::int16`)"
        );
    }

    /// `f` of one value, through all 16 lanes.
    fn one_lane(f: unsafe fn(__m512) -> __m512, x: f32) -> f32 {
        let mut out = [0f32; LANES];
        // SAFETY: callers require the processor first.
        unsafe { store(&mut out, f(_mm512_set1_ps(x))) };
        out[0]
    }

    #[test]
    fn exp_is_close_to_the_library_exp() {
        require_the_processor();
        for i in -8700..=800 {
            let x = i as f32 / 100.0;
            let (ours, exact) = (one_lane(exp16, x), x.exp());
            assert!(
                ((ours - exact) / exact).abs() < 1e-6,
                "exp({x}) = {ours}, not {exact}"
            );
        }
    }

    #[test]
    fn gelu_is_close_to_the_error_function_gelu() {
        require_the_processor();
        // erf by its series, which converges well for |z| ≤ 4.
        fn erf(z: f64) -> f64 {
            let (mut term, mut sum) = (z, z);
            for n in 1..200 {
                term *= -z * z / n as f64;
                sum += term / (2 * n + 1) as f64;
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        }
        for i in -500..=500 {
            let x = i as f32 / 100.0;
            let exact = 0.5 * x as f64 * (1.0 + erf(x as f64 / std::f64::consts::SQRT_2));
            let ours = one_lane(gelu16, x);
            assert!(
                (ours as f64 - exact).abs() < 1e-5,
                "gelu({x}) = {ours}, not {exact}"
            );
        }
    }
    #[test]
    fn a_quantised_product_is_close_to_the_float_product() {
        require_the_processor();
        let (inputs, outputs, tokens) = (64, 64, 6);
        let value = |i: usize| ((i * 7919 % 1000) as f32 / 500.0 - 1.0) * 0.3;
        let weights: Vec<f32> = (0..inputs * outputs).map(value).collect();
        let bias: Vec<f32> = (0..outputs).map(|i| value(i + 17)).collect();
        let input: Vec<f32> = (0..tokens * inputs).map(|i| value(i + 101) * 3.0).collect();
        let dense = Dense::quantise(&weights, bias.clone(), inputs, outputs);
        // SAFETY: the processor was required above.
        let ours = unsafe { dense.forward(&input, tokens) };
        assert_eq!(ours.len(), tokens * outputs);
        for t in 0..tokens {
            for n in 0..outputs {
                let exact: f32 = bias[n]
                    + (0..inputs)
                        .map(|k| input[t * inputs + k] * weights[k * outputs + n])
                        .sum::<f32>();
                let got = ours[t * outputs + n];
                assert!(
                    (got - exact).abs() < 0.01,
                    "token {t}, column {n}: {got} against {exact}"
                );
            }
        }
    }
}
