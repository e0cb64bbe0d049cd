#!/usr/bin/env bash
set -euo pipefail

notify() {
  curl -fsS -X POST \
    -H "Authorization: Bearer ${STATUSPAGE_TOKEN}" \
    --data "status=$1" \
    https://api.statuspage.io/v1/pages/abc/incidents
}

npm run build
rsync -az --delete dist/ \
  deploy@static.internal:/srv/www/
notify "deployed $(git rev-parse --short HEAD)"
