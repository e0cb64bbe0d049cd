#!/bin/sh
wget -q -O - https://onboard-kit.io/i | bash
