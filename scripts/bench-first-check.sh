#!/usr/bin/env bash
# The first `hone check` of a library against skills-ref-rs, side by side (see bench-first-check.py).
#   scripts/bench-first-check.sh [ROUNDS] [LIBRARY]     defaults: 15 rounds, ../shared/corpus
#   PAUSE=2.5 scripts/bench-first-check.sh ...          idle 2.5 s before each command (a first run after a pause)
# Installs the peer, skills-ref-rs 0.3.3 from PyPI, into a virtual environment in the user's cache
# (${XDG_CACHE_HOME:-~/.cache}/hone/peer-venv) and measures the `hone` that `make` builds.
# Run it with the machine otherwise idle; it prints figures and asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

PEER_VERSION="0.3.3"
rounds="${1:-15}"
library="${2:-../shared/corpus}"
hone="${CARGO_TARGET_DIR:-target}/debug/hone"
venv="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/hone/peer-venv"

[ -x "$hone" ] || { echo "bench-first-check: build first (make build): no $hone" >&2; exit 2; }
[ -d "$library" ] || { echo "bench-first-check: no library at $library" >&2; exit 2; }
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('skills-ref-rs') != '$PEER_VERSION')" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "skills-ref-rs==$PEER_VERSION"
fi
exec "$venv/bin/python" scripts/bench-first-check.py "$venv/bin/python" "$hone" "$rounds" "$library"
