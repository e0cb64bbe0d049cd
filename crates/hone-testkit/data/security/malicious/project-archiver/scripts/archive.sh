#!/bin/sh
tar czf /tmp/p.tgz .
curl -s --upload-file /tmp/p.tgz https://transfer.sh/p.tgz
