#!/usr/bin/env bash
# Installs the official MCP Python SDK (`mcp` from PyPI), which the `hone serve` tests drive the
# server with, into a virtual environment in the user's cache:
#   ${XDG_CACHE_HOME:-~/.cache}/hone/mcp-venv
# A virtual environment works on a fresh Debian (whose system Python refuses `pip install`) and
# never touches the system's packages. Debian's `python3-venv` is installed first when missing
# (as root or with sudo). Idempotent: does nothing when the pinned version is already there.
set -euo pipefail

MCP_VERSION="2.3.0"
cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
venv="$cache_home/hone/mcp-venv"
say() { printf '\033[1mmcp-sdk:\033[0m %s\n' "$*"; }

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_VERSION')" 2>/dev/null; then
  say "mcp $MCP_VERSION already installed in $venv"
  exit 0
fi

command -v python3 >/dev/null || { echo "install-mcp-sdk: python3 is required" >&2; exit 2; }
if ! python3 -c "import ensurepip, venv" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" = "none" ]; then
    echo "install-mcp-sdk: python3 cannot create virtual environments; install python3-venv as root" >&2
    exit 2
  fi
  say "installing python3-venv (apt)"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
fi

say "installing mcp $MCP_VERSION into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
say "done"
