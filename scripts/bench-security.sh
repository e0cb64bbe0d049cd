#!/usr/bin/env bash
# The security scan side by side with Cisco's skill scanner (static analyzers only, no LLM, no
# cloud), on the labelled set and on the shared corpus: wall time and peak memory of each, and
# each tool's report as JSON under $out (OUT=…, default /tmp/hone-security-bench) to compare.
#   scripts/bench-security.sh [CORPUS]      (default: ../shared/corpus)
# Needs target/debug/hone (cargo build -p hone-cli) and the peer in the user's cache
# (scripts/install-cisco-skill-scanner.sh). Nothing in the scanned skills is run by either tool.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-../shared/corpus}"
cache_home="${XDG_CACHE_HOME:-${HOME:?}/.cache}"
peer="$cache_home/hone/cisco-skill-scanner-venv/bin/skill-scanner"
out="${OUT:-/tmp/hone-security-bench}"
mkdir -p "$out"
hone=target/debug/hone
[ -x "$hone" ] || { echo "build hone first: cargo build -p hone-cli" >&2; exit 2; }
[ -x "$peer" ] || { echo "install the peer first: scripts/install-cisco-skill-scanner.sh" >&2; exit 2; }

timed() { # name, command…: wall seconds and peak RSS (KiB) to $out/name.time
  local name=$1; shift
  /usr/bin/time -f "%e s %M KiB" -o "$out/$name.time" "$@" > "$out/$name.json" 2> "$out/$name.err" || true
  printf '%-28s %s\n' "$name" "$(cat "$out/$name.time")"
}

for set in malicious benign; do
  data=crates/hone-testkit/data/security/$set
  timed "hone-$set" "$hone" scan "$data" --format json
  timed "cisco-$set" "$peer" scan-all "$data" --recursive --format json
done
if [ -d "$corpus" ]; then
  timed hone-corpus "$hone" scan "$corpus" --format json
  timed cisco-corpus "$peer" scan-all "$corpus" --recursive --format json
fi
echo "reports in $out"
