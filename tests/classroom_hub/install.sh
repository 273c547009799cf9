#!/usr/bin/env bash
# Install what the classroom test needs besides Python packages (idempotent: does nothing twice).
#
#   * configurable-http-proxy, JupyterHub's proxy, from npm into .classroom/node (project-local, git-ignored;
#     never global), pinned below; Node.js itself from apt if it is missing;
#   * an interpreter the test's Linux accounts can run. Students, the instructor and their JupyterLab servers
#     run as ordinary users, so the project's Python must be executable by them. When the interpreter behind
#     .venv is not (for example a pyenv build under a private /root), it is copied to .classroom/python
#     (patchelf, from apt, points it at its own libpython) and .classroom/venv is made over the copy: its
#     site-packages point at .venv's, .venv's share/ and etc/ (JupyterLab, its extensions, server extension
#     settings) are linked in and .venv's console scripts mirrored. Same interpreter, same packages.
# Chromium is tests/browser/install-chromium.sh's job.
set -euo pipefail

CHP_VERSION=5.3.0          # configurable-http-proxy; needs Node.js >= 20
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$ROOT/.venv"
PREFIX="$ROOT/.classroom"
say() { echo "classroom-install: $*" >&2; }

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
apt_updated=0
apt_install() {
    if [ "$apt_updated" = 0 ]; then "${SUDO[@]}" apt-get update -qq; apt_updated=1; fi
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The test's accounts run the project's files: every folder above the clone must let them pass (a clone in a
# `mktemp -d` folder, mode 0700, would not). Only the search bit is added, never reading: nothing is listed.
dir="$ROOT"
while [ "$dir" != "/" ]; do
    if [ "$(( 0$(stat -c %a "$dir") & 1 ))" -eq 0 ]; then
        say "letting other users pass through $dir (chmod o+x) so the test's accounts can reach the project"
        "${SUDO[@]}" chmod o+x "$dir"
    fi
    dir="$(dirname "$dir")"
done

# Accounts and running commands as them (passwd, util-linux are in every Debian; checked anyway).
for tool in useradd userdel runuser; do
    command -v "$tool" >/dev/null || apt_install passwd util-linux
done

# Node.js and npm
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    say "node or npm is missing; installing nodejs and npm with apt-get"
    apt_install nodejs npm
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
    say "configurable-http-proxy $CHP_VERSION needs Node.js >= 20; this machine has $(node --version)"
    exit 1
fi

# configurable-http-proxy, project-local
CHP="$PREFIX/node/node_modules/.bin/configurable-http-proxy"
installed="$(cd "$PREFIX/node" 2>/dev/null \
             && node -p 'require("configurable-http-proxy/package.json").version' 2>/dev/null || true)"
if [ ! -x "$CHP" ] || [ "$installed" != "$CHP_VERSION" ]; then
    say "installing configurable-http-proxy@$CHP_VERSION into $PREFIX/node"
    mkdir -p "$PREFIX/node"
    npm install --silent --no-audit --no-fund --prefix "$PREFIX/node" "configurable-http-proxy@$CHP_VERSION" >/dev/null
fi
"$CHP" --version >/dev/null

# An interpreter ordinary users can run
chmod o+rx "$PREFIX" "$PREFIX/node"
if runuser -u nobody -- "$VENV/bin/python" -c "" 2>/dev/null; then
    rm -rf "$PREFIX/python" "$PREFIX/venv"      # .venv itself will do
    exit 0
fi
base="$("$VENV/bin/python" -c 'import sys; print(sys.base_prefix)')"
pyver="$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
full="$("$VENV/bin/python" -c 'import platform; print(platform.python_version())')"
site="$VENV/lib/python$pyver/site-packages"
stamp="$base $full $VENV"

# 1. The same interpreter (same patch version: the standard library's details matter, e.g. its regular
#    expressions), copied where the accounts can read it: no site-packages, no test suite.
if [ "$(cat "$PREFIX/python/.copy-of" 2>/dev/null)" != "$stamp" ]; then
    say "copying the interpreter behind .venv ($base, Python $full) to $PREFIX/python"
    rm -rf "$PREFIX/python" "$PREFIX/venv"
    mkdir -p "$PREFIX/python"
    tar -C "$base" -cf - \
        --exclude="./lib/python$pyver/site-packages" --exclude="./lib/python$pyver/test" \
        --exclude="./lib/python$pyver/idlelib" --exclude="./lib/python$pyver/turtledemo" \
        --exclude="./lib/python$pyver/config-$pyver-*" . | tar -C "$PREFIX/python" -xf -
    mkdir -p "$PREFIX/python/lib/python$pyver/site-packages"
    # A build that finds its libpython by an absolute run path (pyenv) would otherwise load the system's.
    exe="$PREFIX/python/bin/python$pyver"
    if readelf -d "$exe" 2>/dev/null | grep -q "R\(UN\)\?PATH.*$base"; then
        command -v patchelf >/dev/null || apt_install patchelf
        patchelf --set-rpath '$ORIGIN/../lib' "$exe"
    fi
    chmod -R o+rX "$PREFIX/python"
    echo "$stamp" > "$PREFIX/python/.copy-of"
fi

# 2. A venv over it that sees .venv's packages, JupyterLab's files and .venv's console scripts.
if [ "$(cat "$PREFIX/venv/.mirror-of" 2>/dev/null)" != "$stamp" ] || [ "$VENV/bin" -nt "$PREFIX/venv/.mirror-of" ]; then
    say "making $PREFIX/venv over $site"
    rm -rf "$PREFIX/venv"
    "$PREFIX/python/bin/python$pyver" -m venv --without-pip "$PREFIX/venv"
    echo "import site; site.addsitedir('$site')" > "$PREFIX/venv/lib/python$pyver/site-packages/zz-project-venv.pth"
    ln -s "$VENV/share" "$PREFIX/venv/share"
    ln -s "$VENV/etc" "$PREFIX/venv/etc"
    for script in "$VENV"/bin/*; do
        name="$(basename "$script")"
        [ -f "$script" ] && [ ! -L "$script" ] && [ ! -e "$PREFIX/venv/bin/$name" ] || continue
        if head -1 "$script" | grep -q "^#!$VENV/bin/python"; then
            { echo "#!$PREFIX/venv/bin/python"; tail -n +2 "$script"; } > "$PREFIX/venv/bin/$name"
            chmod 755 "$PREFIX/venv/bin/$name"
        fi
    done
    echo "$stamp" > "$PREFIX/venv/.mirror-of"
fi
check='import sys, torch, nbgrader, jupyterhub, autograder, soupsieve
soupsieve.compile("img:not([alt])")   # the regular expressions of an older 3.11 reject this (feedback needs it)
print(sys.version.split()[0])'
got="$(runuser -u nobody -- "$PREFIX/venv/bin/python" -c "$check")" \
    || { say "$PREFIX/venv/bin/python cannot import the course's packages as an ordinary user"; exit 1; }
[ "$got" = "$full" ] || { say "$PREFIX/venv runs Python $got, .venv runs $full"; exit 1; }
