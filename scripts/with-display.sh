#!/usr/bin/env bash
# Runs a GUI program on the current display, or under a virtual X server when there is none.
set -euo pipefail
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$@"
fi
echo "with-display: no DISPLAY; running under xvfb-run (headless)" >&2
# A virtual display has no GPU: WebKit paints faster without GL compositing there.
export WEBKIT_DISABLE_COMPOSITING_MODE=1
exec xvfb-run -a -s "-screen 0 1400x900x24" "$@"
