#!/usr/bin/env bash
# Measures the app's memory: starts it on a library under a private Xvfb display, waits until the window says it is
# ready (the app prints `hone: ready N ms after start` when the window marks `data-ready-ms`), then until the
# memory settles, and prints the RSS and the PSS of every process of its tree (the app and the WebKit processes it
# starts) and their sums. PSS (/proc/PID/smaps_rollup) shares each shared page among the processes that map it, so
# the sum of PSS counts a shared library once; the sum of RSS counts it in each process.
#
#   scripts/measure-memory.sh [LIBRARY] [APP]      # defaults: skills, target/debug/hone-app
#
# The app runs with a fresh settings folder and web storage, the user's cache (models, check cache) as it is, and
# WebKit's GL compositing off, as the app paints by default (src-tauri/src/painting.rs); set
# WEBKIT_DISABLE_COMPOSITING_MODE=0 to have it on. Only the processes this script started are stopped.
set -euo pipefail
cd "$(dirname "$0")/.."

library="$(realpath "${1:-skills}")"
app="$(realpath "${2:-${CARGO_TARGET_DIR:-target}/debug/hone-app}")"
[ -x "$app" ] || { echo "measure-memory: $app is not built (make build)" >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "measure-memory: Xvfb is missing (scripts/setup-app.sh)" >&2; exit 2; }

scratch="$(mktemp -d)"
xvfb_pid="" app_pid=""
# Asks a process to end, then kills it after 5 s.
stop() {
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}
cleanup() {
  [ -z "$app_pid" ] || stop "$app_pid"
  [ -z "$xvfb_pid" ] || stop "$xvfb_pid"
  rm -rf "$scratch"
}
trap cleanup EXIT

# Xvfb picks a free display itself and writes its number when it listens.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$scratch/display" >/dev/null 2>&1 &
xvfb_pid=$!
for _ in $(seq 200); do [ -s "$scratch/display" ] && break; sleep 0.05; done
display="$(tr -d '[:space:]' <"$scratch/display")"
[ -n "$display" ] || { echo "measure-memory: Xvfb did not start" >&2; exit 2; }

mkdir -p "$scratch/config" "$scratch/data"
DISPLAY=":$display" HONE_CONFIG_DIR="$scratch/config" XDG_DATA_HOME="$scratch/data" GTK_THEME=Adwaita \
  NO_AT_BRIDGE=1 WEBKIT_DISABLE_COMPOSITING_MODE="${WEBKIT_DISABLE_COMPOSITING_MODE:-1}" \
  "$app" "$library" 2>"$scratch/app.log" >/dev/null &
app_pid=$!

started=$SECONDS
until grep -q '^hone: ready' "$scratch/app.log"; do
  kill -0 "$app_pid" 2>/dev/null || { cat "$scratch/app.log" >&2; echo "measure-memory: the app exited" >&2; exit 1; }
  [ $((SECONDS - started)) -lt 180 ] || { echo "measure-memory: the window was not ready after 180 s" >&2; exit 1; }
  sleep 0.1
done
grep -m1 '^hone: ready' "$scratch/app.log"

# The app and every process below it.
tree() {
  local pids=("$1") i=0
  while [ $i -lt ${#pids[@]} ]; do
    pids+=($(cat /proc/"${pids[$i]}"/task/*/children 2>/dev/null))
    i=$((i + 1))
  done
  echo "${pids[@]}"
}
# kB of a field of smaps_rollup, summed over the tree.
total() {
  local sum=0 pid
  for pid in $(tree "$app_pid"); do
    sum=$((sum + $(awk -v f="$1:" '$1 == f { print $2 }' /proc/"$pid"/smaps_rollup 2>/dev/null || echo 0)))
  done
  echo "$sum"
}

# CPU time (clock ticks) of the tree.
cpu() {
  local sum=0 pid
  for pid in $(tree "$app_pid"); do
    sum=$((sum + $(awk '{ print $14 + $15 }' /proc/"$pid"/stat 2>/dev/null || echo 0)))
  done
  echo "$sum"
}

# The security scan runs at the lowest priority on a thread of its own (`hone-security`) that the window starts when it
# opens a library, and a busy machine can starve it for a while: wait until it has come and gone (if seen within 5 s).
threads() { cat /proc/"$app_pid"/task/*/comm 2>/dev/null; }
for _ in $(seq 50); do threads | grep -q hone-security && break; sleep 0.1; done
while threads | grep -q hone-security; do
  [ $((SECONDS - started)) -lt 600 ] || { echo "measure-memory: the security scan ran for 600 s" >&2; exit 1; }
  sleep 0.5
done

# Settled: over the last 5 seconds the tree was idle (under a quarter of a second of CPU) and its RSS moved less
# than 2 MB, so the library's check and what the window does once ready are counted (at most 180 s more).
rss=() ticks=()
for _ in $(seq 180); do
  rss+=("$(total Rss)") ticks+=("$(cpu)")
  n=${#rss[@]}
  if [ "$n" -ge 6 ]; then
    moved=$((rss[n - 1] - rss[n - 6]))
    [ "${moved#-}" -lt 2048 ] && [ $((ticks[n - 1] - ticks[n - 6])) -lt $(($(getconf CLK_TCK) / 4)) ] && break
  fi
  sleep 1
done
echo "settled $((SECONDS - started)) s after start"
printf '%-8s %-24s %10s %10s\n' pid process "RSS MB" "PSS MB"
for pid in $(tree "$app_pid"); do
  name="$(tr '\0' ' ' </proc/"$pid"/cmdline | awk '{ n = split($1, p, "/"); print p[n] }')"
  awk -v pid="$pid" -v name="$name" '$1 == "Rss:" { r = $2 } $1 == "Pss:" { p = $2 }
    END { printf "%-8s %-24s %10.1f %10.1f\n", pid, name, r / 1024, p / 1024 }' /proc/"$pid"/smaps_rollup
done
awk -v r="$(total Rss)" -v p="$(total Pss)" -v lib="$(basename "$library")" \
  'BEGIN { printf "%-33s %10.1f %10.1f\n", "total (" lib ")", r / 1024, p / 1024 }'
