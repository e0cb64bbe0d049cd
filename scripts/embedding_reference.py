#!/usr/bin/env python3
"""Reference sentence embeddings for Hone's model test, computed independently.

Hone runs its embedding model with candle and the Rust `tokenizers` crate. To
check that pipeline, this script recomputes the embeddings of a few fixed
sentences with nothing shared but the weights: its own WordPiece tokenizer
(read from `vocab.txt`), its own BERT forward pass in float64 numpy, then mean
pooling and L2 normalisation as the model's sentence-transformers config says.
The result is written to `crates/hone-core/tests/fixtures/embedding_reference.json`.

Usage (in a virtualenv with numpy and safetensors):
    python3 scripts/embedding_reference.py MODEL_DIR [OUT_JSON]
"""

import json
import math
import sys
import unicodedata
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

SENTENCES = [
    "Extract the tables from a PDF invoice and save them as CSV.",
    "pdf: Reads, merges and fills PDF forms. Use when the user mentions PDFs.",
    "How do I castle in chess?",
    "Résumé review — naïve café owners' WCAG 2.1 audit, 3× faster!",
]


# --- Tokenizer: BERT basic tokenisation then greedy longest-match WordPiece. ---


def is_punctuation(ch):
    code = ord(ch)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(code):
    ranges = [
        (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
    ]
    return any(lo <= code <= hi for lo, hi in ranges)


def basic_tokens(text):
    cleaned = []
    for ch in text:
        code = ord(ch)
        if code == 0 or code == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r"):
            continue
        if is_cjk(code):
            cleaned.append(f" {ch} ")
        elif ch.isspace():
            cleaned.append(" ")
        else:
            cleaned.append(ch)
    text = "".join(cleaned).lower()
    # Lower-casing BERT also strips accents (NFD, drop combining marks).
    text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    tokens = []
    for word in text.split():
        current = ""
        for ch in word:
            if is_punctuation(ch):
                if current:
                    tokens.append(current)
                    current = ""
                tokens.append(ch)
            else:
                current += ch
        if current:
            tokens.append(current)
    return tokens


def wordpiece(word, vocab, max_chars=100):
    if len(word) > max_chars:
        return ["[UNK]"]
    pieces = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                found = piece
                break
            end -= 1
        if found is None:
            return ["[UNK]"]
        pieces.append(found)
        start = end
    return pieces


def encode(text, vocab, max_len):
    pieces = [p for word in basic_tokens(text) for p in wordpiece(word, vocab)]
    pieces = pieces[: max_len - 2]
    return [vocab["[CLS]"]] + [vocab[p] for p in pieces] + [vocab["[SEP]"]]


# --- The BERT encoder, in float64. ---


def layer_norm(x, weight, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def dense(x, w, prefix):
    return x @ w[prefix + ".weight"].T + w[prefix + ".bias"]


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def embed(ids, w, config):
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    head_dim = x.shape[1] // heads
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        q = dense(x, w, p + "attention.self.query").reshape(n, heads, head_dim).transpose(1, 0, 2)
        k = dense(x, w, p + "attention.self.key").reshape(n, heads, head_dim).transpose(1, 0, 2)
        v = dense(x, w, p + "attention.self.value").reshape(n, heads, head_dim).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(head_dim)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, -1)
        attended = dense(context, w, p + "attention.output.dense") + x
        x = layer_norm(attended, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        hidden = gelu(dense(x, w, p + "intermediate.dense"))
        out = dense(hidden, w, p + "output.dense") + x
        x = layer_norm(out, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


def main():
    model_dir = Path(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parent.parent / "crates/hone-core/tests/fixtures/embedding_reference.json"
    config = json.loads((model_dir / "config.json").read_text())
    vocab_lines = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
    vocab = {token: i for i, token in enumerate(vocab_lines) if token}
    weights = {k: v.astype(np.float64) for k, v in load_file(str(model_dir / "model.safetensors")).items() if v.dtype != np.int64}
    cases = []
    for sentence in SENTENCES:
        ids = encode(sentence, vocab, 256)
        vector = embed(ids, weights, config)
        cases.append({"text": sentence, "token_ids": ids, "embedding": [round(float(v), 7) for v in vector]})
    reference = {
        "model": "all-MiniLM-L6-v2",
        "generator": "scripts/embedding_reference.py (numpy float64, own WordPiece tokenizer)",
        "pooling": "mean over tokens, then L2 normalisation",
        "cases": cases,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"wrote {len(cases)} reference embeddings to {out}")


if __name__ == "__main__":
    main()
