//! The MPNet forward pass (all-mpnet-base-v2) against reference values.
//!
//! The reference numbers were computed once, outside this project, by an
//! independent float64 NumPy port of transformers' `MPNetModel` with
//! sentence-transformers' mean pooling and normalisation, over the same
//! model files and tokenizer (PyTorch itself is not installable here). They
//! are kept as numbers only. The model is 420 MB, so these tests are ignored
//! unless asked for (`make test` asks, and its set-up installs the model);
//! asked for without the model, they fail and say how to install it.

use std::path::PathBuf;

use hone_core::embed::{EmbeddingModel, resolve_model_dir};

const TEXTS: [&str; 4] = [
    "Fill in a PDF form and merge two PDF files.",
    "How do I merge several PDFs into one document?",
    "Write a haiku about autumn leaves.",
    "Deploy the web service to Kubernetes with a rolling update, keeping the old pods until the \
     new ones pass their health checks, and roll back automatically when the error rate rises \
     above one percent during the first ten minutes after the release.",
];

/// Tokens of each text, special tokens included.
const TOKENS: [usize; 4] = [13, 13, 10, 50];

/// The first eight components of each reference unit vector.
const FIRST_COMPONENTS: [[f32; 8]; 4] = [
    [
        -0.039021, -0.04824, -0.001246, -0.042907, -0.035999, 0.038114, 0.009738, 0.001852,
    ],
    [
        -0.045436, -0.048625, 0.01912, -0.05408, 0.008529, 0.056751, 0.048779, 0.012666,
    ],
    [
        0.03319, 0.009858, -0.002736, 0.000132, 0.015446, -0.013273, 0.001056, 0.008598,
    ],
    [
        -0.002809, 0.054466, 0.002956, -0.084149, 0.034871, 0.016468, -0.053601, 0.008946,
    ],
];

/// Reference cosine similarities of the texts, pair by pair.
const COSINES: [[f32; 4]; 4] = [
    [1.0, 0.692078, 0.061384, -0.030899],
    [0.692078, 1.0, 0.036976, 0.015238],
    [0.061384, 0.036976, 1.0, -0.005711],
    [-0.030899, 0.015238, -0.005711, 1.0],
];

fn mpnet_dir() -> PathBuf {
    let location = resolve_model_dir(Some("mpnet".as_ref()));
    assert!(
        location.installed,
        "no mpnet model at {}: run `hone model install mpnet`",
        location.dir.display()
    );
    location.dir
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
#[ignore = "needs the mpnet model: hone model install mpnet"]
fn mpnet_matches_the_reference_embeddings() {
    let model = EmbeddingModel::load(&mpnet_dir()).expect("the mpnet model loads");
    assert_eq!(model.dim(), 768);
    assert_eq!(model.max_tokens(), 384);
    for (text, tokens) in TEXTS.iter().zip(TOKENS) {
        assert_eq!(model.tokens(text).unwrap().len() + 2, tokens, "{text}");
    }
    // One call: the texts are batched together, so the shorter ones are
    // padded and the padding mask is exercised too.
    let vectors = model.embed(&TEXTS).expect("embeds");
    for (vector, expected) in vectors.iter().zip(FIRST_COMPONENTS) {
        assert!((dot(vector, vector) - 1.0).abs() < 1e-4);
        for (got, want) in vector.iter().zip(expected) {
            assert!((got - want).abs() < 2e-4, "{got} vs {want}");
        }
    }
    for (i, row) in COSINES.iter().enumerate() {
        for (j, want) in row.iter().enumerate() {
            let got = dot(&vectors[i], &vectors[j]);
            assert!((got - want).abs() < 1e-3, "cosine {i},{j}: {got} vs {want}");
        }
    }
    // A request embedded alone (no padding) gives the same vector.
    let alone = model.embed_query(TEXTS[2]).expect("embeds");
    assert!(dot(&alone.vector, &vectors[2]) > 0.9999);
}
