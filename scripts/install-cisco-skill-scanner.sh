#!/usr/bin/env bash
# Installs Cisco's AI skill scanner (`cisco-ai-skill-scanner` from PyPI), the peer the security
# benchmark compares `hone scan` with, into a virtual environment in the user's cache:
#   ${XDG_CACHE_HOME:-~/.cache}/hone/cisco-skill-scanner-venv
# Only the benchmark uses it; no test does. Idempotent: does nothing when the pinned version is
# already there.
set -euo pipefail

VERSION="2.3.2"
cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
venv="$cache_home/hone/cisco-skill-scanner-venv"
say() { printf '\033[1mcisco-skill-scanner:\033[0m %s\n' "$*"; }

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('cisco-ai-skill-scanner') != '$VERSION')" 2>/dev/null; then
  say "$VERSION already installed in $venv"
  exit 0
fi
command -v python3 >/dev/null || { echo "install-cisco-skill-scanner: python3 is required" >&2; exit 2; }
say "installing cisco-ai-skill-scanner $VERSION into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "cisco-ai-skill-scanner==$VERSION"
say "done"
