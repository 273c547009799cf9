#!/usr/bin/env bash
# Install the PostgreSQL server that tests/more/test_postgres.py starts (idempotent: does nothing if it is there).
# Debian's `postgresql` package: initdb and postgres under /usr/lib/postgresql/<version>/bin, and the
# unprivileged `postgres` account the tests run the server as (initdb refuses to run as root).
set -euo pipefail

have_server() {
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null
}

if have_server; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
else
    SUDO=(sudo -n)
fi

echo "install-postgresql: no PostgreSQL server under /usr/lib/postgresql; installing postgresql with apt-get" >&2
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql

if ! have_server; then
    echo "install-postgresql: apt-get finished but /usr/lib/postgresql/*/bin/initdb is still missing" >&2
    exit 1
fi
