#!/bin/bash
set -euo pipefail
rsync -az --delete ./dist/ deploy@app.example.com:/srv/app/
ssh -i ~/.ssh/deploy_key deploy@app.example.com 'sudo systemctl restart app'
