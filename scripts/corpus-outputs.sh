#!/usr/bin/env bash
# Writes what `hone` prints for the shared corpus, in every output format, into
# OUT (one file per command and format), so that two builds can be compared
# byte for byte: `diff -r OUT1 OUT2`. A change that should not change
# behaviour (a refactor, a crate split) is held to that.
#
#   scripts/corpus-outputs.sh OUT [HONE]      # HONE: the binary [default: target/debug/hone]
#
# The corpus is $HONE_CORPUS [default: ../shared/corpus]. The commands need no
# model and nothing from the network; the embedding rankers are left out so
# that the outputs do not depend on which models are installed. Exit codes are
# recorded beside the outputs, since findings make `hone check` exit 1. Eval
# reports are kept without their latencies, the one thing that differs by run.
set -uo pipefail
out=${1:?usage: scripts/corpus-outputs.sh OUT [HONE]}
hone=$(realpath "${2:-target/debug/hone}")
corpus=$(realpath "${HONE_CORPUS:-../shared/corpus}")
mkdir -p "$out"
out=$(realpath "$out")
# One fixed scratch path: outputs that name a folder name the same one.
scratch=${TMPDIR:-/tmp}/hone-corpus-outputs
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
# No user settings or caches of this machine: a scratch home and cache.
export HOME="$scratch/home" XDG_CACHE_HOME="$scratch/cache" XDG_CONFIG_HOME="$scratch/config" SOURCE_DATE_EPOCH=315532800
mkdir -p "$HOME"
cd "$corpus"

run() { # NAME ARGS...: stdout to NAME, stderr to NAME.err, the exit code to NAME.code
    local name=$1
    shift
    "$hone" "$@" >"$out/$name" 2>"$out/$name.err"
    echo $? >"$out/$name.code"
}

library=sickn33__antigravity-awesome-skills
for format in text json sarif github; do
    run "check.$format" check . --format "$format"
    run "scan.$format" scan "$library" --format "$format"
done
for format in text json; do
    run "tokens.$format" tokens . --format "$format"
    run "search-listing.$format" search "$library" "review my pull request for security issues" --ranker bm25 --format "$format" --explain
    run "search-retrieval.$format" search "$library" "set up a kubernetes deployment with helm" --ranker bm25 --view retrieval --format "$format"
    run "clients-list.$format" clients list --format "$format"
done
# Evals as JSON without their latencies (the text report has them in its table).
for view in listing retrieval; do
    run "eval-$view.json" eval "$library" "$corpus/../benchmarks/dev-routing-553.yaml" --ranker bm25 --view "$view" --format json
    sed -i '/"latency_ms/d' "$out/eval-$view.json"
done
for format in agentskills claude-code; do
    run "prompt.$format" prompt "$library" --format "$format"
done
for client in claude-code codex gemini opencode copilot; do
    for format in text json; do
        run "prompt-$client.$format" prompt "$library" --client "$client" --format "$format"
    done
done
run rules rule
# Packs: the bytes of each format, as checksums of every file written.
pack() { # NAME FORMAT PATHS...
    local name=$1 format=$2
    shift 2
    rm -rf "$scratch/pack"
    mkdir -p "$scratch/pack"
    "$hone" pack "$@" --format "$format" --allow-errors --quiet --output "$scratch/pack/$name" >"$out/pack-$name.report" 2>&1
    echo $? >"$out/pack-$name.code"
    (cd "$scratch/pack" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum) >"$out/pack-$name.sha256"
}
pack anthropics.zip zip anthropics__skills
pack skill-creator.skill skill anthropics__skills/skills/skill-creator
pack plugin plugin anthropics__skills
pack scientific.zip zip K-Dense-AI__claude-scientific-skills
pack well-known well-known anthropics__skills/skills/algorithmic-art anthropics__skills/skills/mcp-builder anthropics__skills/skills/webapp-testing anthropics__skills/skills/skill-creator
echo "corpus outputs: $(find "$out" -type f | wc -l) files in $out"
