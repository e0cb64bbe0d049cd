#!/usr/bin/env bash
# Installs pre-commit (from PyPI), which the tests run Hone's hook (.pre-commit-hooks.yaml) with against a
# sample repository, into a virtual environment in the user's cache:
#   ${XDG_CACHE_HOME:-~/.cache}/hone/pre-commit-venv
# As scripts/install-mcp-sdk.sh does for `mcp`: a venv works on a fresh Debian and never touches the system's
# packages; Debian's `python3-venv` is installed first when missing. Idempotent.
set -euo pipefail

PRE_COMMIT_VERSION="4.7.0"
cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
venv="$cache_home/hone/pre-commit-venv"
say() { printf '\033[1mpre-commit:\033[0m %s\n' "$*"; }

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('pre-commit') != '$PRE_COMMIT_VERSION')" 2>/dev/null; then
  say "pre-commit $PRE_COMMIT_VERSION already installed in $venv"
  exit 0
fi

command -v python3 >/dev/null || { echo "install-pre-commit: python3 is required" >&2; exit 2; }
if ! python3 -c "import ensurepip, venv" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" = "none" ]; then
    echo "install-pre-commit: python3 cannot create virtual environments; install python3-venv as root" >&2
    exit 2
  fi
  say "installing python3-venv (apt)"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
fi

say "installing pre-commit $PRE_COMMIT_VERSION into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pre-commit==$PRE_COMMIT_VERSION"
say "done"
