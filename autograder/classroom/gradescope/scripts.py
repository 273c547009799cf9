"""The two scripts of a Gradescope autograder zip (classroom/gradescope/autograder_zip.py writes them into it).

Both take their paths from `AUTOGRADER_ROOT` (default `/`, Gradescope's), so a test can run them in a
temporary folder. setup.sh also honours, for machines where the environment already exists:

    AUTOGRADER_PYTHON        make the venv from this interpreter (no apt-get)
    AUTOGRADER_VENV          where the venv goes (default <root>/autograder/venv)
    AUTOGRADER_REUSE_SITE    a site-packages folder the new venv also sees (pip included), so pip skips
                             what it holds
"""

SETUP = r"""#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image: the course's locked grading environment
# (Python 3.11, CPU PyTorch, what grading imports). Nothing is downloaded when a submission is graded.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/}"
BASE="${ROOT%/}/autograder"
SOURCE="${AUTOGRADER_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"
VENV="${AUTOGRADER_VENV:-$BASE/venv}"
PIP_FLAGS=(--no-input --disable-pip-version-check)

AUTOGRADER_PYTHON_PRESET="${AUTOGRADER_PYTHON:-}"
if [ -z "${AUTOGRADER_PYTHON:-}" ]; then
  if ! python3.11 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    if ! apt-get install -y --no-install-recommends python3.11 python3.11-venv; then
      # Ubuntu 24.04 has no Python 3.11 of its own: the deadsnakes archive has it.
      apt-get install -y --no-install-recommends software-properties-common gpg-agent
      add-apt-repository -y ppa:deadsnakes/ppa
      apt-get update
      apt-get install -y --no-install-recommends python3.11 python3.11-venv
    fi
  fi
  AUTOGRADER_PYTHON=python3.11
fi

PY="$VENV/bin/python"
if [ -n "${AUTOGRADER_REUSE_SITE:-}" ]; then
  # pip, setuptools and the rest come from there (pip installs into this venv what they lack)
  "$AUTOGRADER_PYTHON" -m venv --without-pip "$VENV"
  SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$AUTOGRADER_REUSE_SITE" > "$SITE/zz-reuse-site.pth"
else
  "$AUTOGRADER_PYTHON" -m venv "$VENV"
fi

# requirements.txt is the course's requirements/grader.lock: the grader extra and all it needs, each pinned and
# hashed (46 packages, no JupyterLab or nbgrader), so the image built next term is the one tested. Its torch,
# @TORCH@, is the CPU build (+cpu), which only PyTorch's CPU index has: torch from there, the rest from PyPI.
LOCK="$(dirname "$VENV")/.grader-lock"
mkdir -p "$LOCK"
awk '/^[^ #]/ { torch = ($0 ~ /^torch==/) } torch' "$SOURCE/requirements.txt" > "$LOCK/torch.txt"
awk '/^[^ #]/ { torch = ($0 ~ /^torch==/) } !torch' "$SOURCE/requirements.txt" > "$LOCK/rest.txt"
"$PY" -m pip install "${PIP_FLAGS[@]}" --require-hashes --no-deps -r "$LOCK/torch.txt" \
  --index-url https://download.pytorch.org/whl/cpu
"$PY" -m pip install "${PIP_FLAGS[@]}" --require-hashes --no-deps -r "$LOCK/rest.txt"
rm -rf "$LOCK"
cd "$SOURCE"
# Notebook 16's C++ kernel is the course's own source, compiled here, at image build: the sandbox runs no
# compiler. A compiler and ninja first (Gradescope's image is Ubuntu, built as root).
if ! { command -v c++ && command -v ninja; } >/dev/null 2>&1 && [ -z "${AUTOGRADER_PYTHON_PRESET:-}" ] \
    && command -v apt-get >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends g++ ninja-build || true
fi
PYTHONPATH="$SOURCE" "$PY" -m autograder.kernels \
  || echo "setup.sh: notebook 16's C++ kernel was not built (no compiler?): its setup cell will say so" >&2
PYTHONPATH="$SOURCE" "$PY" -m autograder.classroom.gradescope check
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission: grade the notebook in /autograder/submission (whatever its
# name) with the course's grader and write /autograder/results/results.json. Always writes one.
ROOT="${AUTOGRADER_ROOT:-/}"
BASE="${ROOT%/}/autograder"
SOURCE="${AUTOGRADER_SOURCE:-$BASE/source}"
VENV="${AUTOGRADER_VENV:-$BASE/venv}"
RESULTS="$BASE/results"
mkdir -p "$RESULTS"
rm -f "$RESULTS/results.json"

status=1
if cd "$SOURCE"; then
  AUTOGRADER_ROOT="$ROOT" PYTHONPATH="$SOURCE" PYTHONDONTWRITEBYTECODE=1 \
    "$VENV/bin/python" -m autograder.classroom.gradescope run
  status=$?
fi
if [ "$status" -ne 0 ] || [ ! -s "$RESULTS/results.json" ]; then
  cat > "$RESULTS/results.json" <<'JSON'
{"score": 0.0, "output": "The grader could not run on this submission, so it scores 0 for now. This is not your mistake: tell your instructor, who can see why in the autograder's log.", "output_format": "text", "test_output_format": "text", "test_name_format": "text", "visibility": "visible", "stdout_visibility": "hidden", "tests": []}
JSON
fi
exit 0
"""
