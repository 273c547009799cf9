#!/usr/bin/env bash
# Install the system Chromium that the browser tests drive (idempotent: does nothing if it is there).
# Never `playwright install`: the tests launch /usr/bin/chromium through Playwright's executable_path.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
else
    SUDO=(sudo)
fi

echo "install-chromium: /usr/bin/chromium is missing; installing chromium and chromium-driver with apt-get" >&2
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver

if [ ! -x /usr/bin/chromium ]; then
    echo "install-chromium: apt-get finished but /usr/bin/chromium is still missing" >&2
    exit 1
fi
