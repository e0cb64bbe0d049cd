#!/usr/bin/env bash
# Installs what the desktop app and its end-to-end tests need on Debian or
# Ubuntu: WebKitGTK and GTK headers, Xvfb and WebKitWebDriver (apt, when run
# as root or with sudo), the UI's npm packages, and tauri-driver. Safe to run
# again: every step checks first and says what it does.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup-app: %s\n' "$*"; }

# ripgrep: OpenCode's `skill` tool lists a skill's files with `rg` and, offline, cannot download its own.
# curl: the test that a live agent run reaches its provider and nothing else asks for another service with it.
# squashfs-tools: mksquashfs makes the AppImage's filesystem (scripts/bundle-appimage.sh).
apt_packages=(libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev xvfb webkit2gtk-driver ripgrep curl squashfs-tools)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  say "apt packages already installed: ${apt_packages[*]}"
else
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" = "none" ]; then
    say "missing apt packages (install them as root): ${missing[*]}"
  else
    say "installing apt packages: ${missing[*]}"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

if ! command -v npm >/dev/null; then
  say "npm is missing: install Node.js 20.19+ with npm 11, then run this again"
  exit 1
fi
if [ -d ui/node_modules ] && [ ui/node_modules/.package-lock.json -nt ui/package-lock.json ]; then
  say "ui/node_modules is up to date"
else
  say "installing the UI's packages (npm ci in ui/)"
  npm --prefix ui ci --no-audit --no-fund
fi

if command -v tauri-driver >/dev/null || [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ]; then
  say "tauri-driver already installed"
else
  say "installing tauri-driver (cargo install tauri-driver --locked)"
  cargo install tauri-driver --locked
fi

say "done. Build: npm --prefix ui run build && cargo build -p hone-app"
