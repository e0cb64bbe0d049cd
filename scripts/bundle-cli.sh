#!/usr/bin/env bash
# The Tauri bundler's `beforeBundleCommand` (tauri.conf.json): puts the `hone` command of the profile being bundled
# where the bundle's `files` entry takes it from (target/bundle-cli/hone, installed as /usr/bin/hone). A release
# bundle (`cargo tauri build`) builds it first, as the Tauri CLI builds only the app; a debug bundle (`make bundle`)
# takes the one `make build` made. Tauri sets TAURI_ENV_DEBUG for the command, and runs it in the front end's folder
# (ui/), hence `../scripts/` in tauri.conf.json.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
if [ "${TAURI_ENV_DEBUG:-false}" = true ]; then
  profile=debug
else
  profile=release
  cargo build --release --locked -p hone-cli
fi
[ -x "$target/$profile/hone" ] || { echo "bundle-cli: $target/$profile/hone is not built (make build)" >&2; exit 2; }
mkdir -p target/bundle-cli
# A hard link where it can be one: the debug binary is some 130 MB.
ln -f "$target/$profile/hone" target/bundle-cli/hone 2>/dev/null || cp -f "$target/$profile/hone" target/bundle-cli/hone
