#!/usr/bin/env bash
# Installs the Tauri CLI, which bundles the app into a .deb (`make bundle`), from npm: `@tauri-apps/cli` and its
# prebuilt Linux x64 binary, into the user's cache (never the repository):
#   ${XDG_CACHE_HOME:-~/.cache}/hone/tauri-cli/node_modules/.bin/tauri
# The version matches the `tauri` crate in Cargo.lock. npm 11 runs no install scripts, so the platform package
# is named too. Idempotent: does nothing when the pinned version is already there.
set -euo pipefail

TAURI_CLI_VERSION="2.12.5"
cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
dir="$cache_home/hone/tauri-cli"
say() { printf '\033[1mtauri-cli:\033[0m %s\n' "$*"; }

if [ -x "$dir/node_modules/.bin/tauri" ] && [ "$("$dir/node_modules/.bin/tauri" --version 2>/dev/null)" = "tauri-cli $TAURI_CLI_VERSION" ]; then
  say "tauri-cli $TAURI_CLI_VERSION already installed in $dir"
  exit 0
fi

command -v npm >/dev/null || { echo "install-tauri-cli: npm is required" >&2; exit 2; }
say "installing @tauri-apps/cli $TAURI_CLI_VERSION into $dir"
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
  "@tauri-apps/cli@$TAURI_CLI_VERSION" "@tauri-apps/cli-linux-x64-gnu@$TAURI_CLI_VERSION"
"$dir/node_modules/.bin/tauri" --version >/dev/null || { echo "install-tauri-cli: the installed tauri does not run" >&2; exit 2; }
say "done"
