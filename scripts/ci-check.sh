#!/usr/bin/env bash
# The GitHub Action's step (action.yml), runnable anywhere: checks a library with `hone check`, prints the
# findings as workflow commands (annotations on the pull request), writes SARIF for code scanning, and, when a
# suite is given, gates on `hone eval`. Exit 1 when the check or the gate fails, 2 on a usage or I/O error.
#
# Environment (the action's inputs):
#   HONE_PATH     the library or skills to check (default: .)
#   HONE_TARGET   agentskills, claude-code, claude-api, copilot or all (default: the library's)
#   HONE_SARIF    where to write the SARIF file (default: hone.sarif)
#   HONE_SUITE    a routing eval suite (file or folder); empty: no eval gate
#   HONE_GATE     the gate's thresholds, space-separated `--min`/`--max` options (default: --min p_at_1=0.8)
#   HONE_BIN      the hone binary (default: hone on PATH)
set -uo pipefail

hone=${HONE_BIN:-hone}
path=${HONE_PATH:-.}
sarif=${HONE_SARIF:-hone.sarif}
target=()
[ -n "${HONE_TARGET:-}" ] && target=(--target "$HONE_TARGET")

command -v "$hone" >/dev/null || { echo "ci-check: '$hone' not found; install hone first" >&2; exit 2; }

status=0
"$hone" check "$path" "${target[@]}" --format github || status=$?
# SARIF is written whatever the findings, so code scanning shows them; only an I/O error stops here.
"$hone" check "$path" "${target[@]}" --format sarif >"$sarif"
sarif_status=$?
[ "$sarif_status" -ge 2 ] && { echo "ci-check: could not write $sarif" >&2; exit 2; }

if [ -n "${HONE_SUITE:-}" ]; then
  # shellcheck disable=SC2086  # the gate is a list of options
  "$hone" eval "$path" "$HONE_SUITE" ${HONE_GATE:---min p_at_1=0.8} || { s=$?; [ "$s" -gt "$status" ] && status=$s; }
fi
exit "$status"
