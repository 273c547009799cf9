#!/usr/bin/env bash
# Install npm (and Node.js), which fetches the course site's bundled scripts (autograder/site/assets.py):
# idempotent, does nothing if npm is there. Debian's packages, with apt-get.
set -euo pipefail

if command -v npm >/dev/null && command -v node >/dev/null; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
else
    SUDO=(sudo)
fi

echo "install-npm: npm or node is missing; installing nodejs and npm with apt-get" >&2
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null

command -v npm >/dev/null || { echo "install-npm: apt-get finished but npm is still missing" >&2; exit 1; }
