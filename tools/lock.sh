#!/usr/bin/env bash
# The hashed locks of requirements/ from pyproject.toml's pins (tools/requirements.py gives each lock's input):
#   grader.lock  the grader extra alone: what Gradescope's setup.sh installs
#   binder.lock  the grader and binder extras: Binder's kernel (its server stays repo2docker's)
#   dev.lock     the dependencies and the test extra: make setup's .venv; make test-torch less torch
# For Linux x86_64 and Python 3.11.7 or later (Gradescope's, Binder's and CI's machines; soupsieve needs 3.11.5),
# torch as its CPU build, taken from a folder of wheels (TORCH_WHEELS, default /opt/wheels; `pip download
# torch==<version>+cpu --no-deps --index-url https://download.pytorch.org/whl/cpu -d <folder>` fills one).
# A lock's pins stay as they are unless pyproject.toml changes them (uv keeps what the output file holds); to
# move every unpinned dependency to its newest release, remove the lock first. uv runs from a throwaway venv.
#   bash tools/lock.sh
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.9
tool=$(mktemp -d)
trap 'rm -rf "$tool"' EXIT
python3 -m venv "$tool/venv"
"$tool/venv/bin/pip" install --quiet "uv==$UV_VERSION"
lock() {
    local name=$1; shift
    python3 tools/requirements.py "$@" --cpu > "$tool/$name.in"
    "$tool/venv/bin/uv" pip compile "$tool/$name.in" --quiet --generate-hashes --no-annotate \
        --python-version 3.11.7 --python-platform x86_64-manylinux_2_28 \
        --find-links "${TORCH_WHEELS:-/opt/wheels}" \
        --custom-compile-command "bash tools/lock.sh" -o "requirements/$name.lock"
    echo "requirements/$name.lock: $(grep -c '==' "requirements/$name.lock") packages"
}
lock grader --only --extra grader
lock binder --only --extra grader --extra binder
lock dev --extra test
