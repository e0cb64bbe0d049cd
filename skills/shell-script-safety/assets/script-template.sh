#!/usr/bin/env bash
# Template for a robust bash script. Replace the body of main().
# Usage: script-template.sh [-v] [-o OUTPUT_DIR] INPUT_FILE...

set -euo pipefail

readonly script_name=${0##*/}
verbose=0
output_dir=.

usage() {
    printf 'usage: %s [-v] [-o OUTPUT_DIR] INPUT_FILE...\n' "$script_name" >&2
}

log() {
    if [ "$verbose" -eq 1 ]; then
        printf '%s: %s\n' "$script_name" "$*" >&2
    fi
}

die() {
    printf '%s: error: %s\n' "$script_name" "$*" >&2
    exit 1
}

require_command() {
    command -v "$1" >/dev/null 2>&1 || die "required command not found: $1"
}

main() {
    while getopts ':vo:h' option; do
        case $option in
            v) verbose=1 ;;
            o) output_dir=$OPTARG ;;
            h) usage; exit 0 ;;
            :) usage; die "option -$OPTARG needs a value" ;;
            *) usage; exit 2 ;;
        esac
    done
    shift $((OPTIND - 1))

    if [ "$#" -eq 0 ]; then
        usage
        exit 2
    fi

    require_command wc
    [ -d "$output_dir" ] || die "output directory does not exist: $output_dir"

    # A private scratch directory, removed however the script exits.
    scratch=$(mktemp -d)
    trap 'rm -rf -- "$scratch"' EXIT

    for input in "$@"; do
        [ -r "$input" ] || die "cannot read: $input"
        log "processing $input"
        wc -l -- "$input" >"$scratch/count"
        cp -- "$scratch/count" "$output_dir/${input##*/}.count"
    done
}

main "$@"
