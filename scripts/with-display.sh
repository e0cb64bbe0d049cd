#!/usr/bin/env bash
# Runs a GUI program on the current display, or under a virtual X server when there is none.
set -euo pipefail
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$@"
fi
echo "with-display: no DISPLAY; running under xvfb-run (headless)" >&2
exec xvfb-run -a -s "-screen 0 1400x900x24" "$@"
