#!/usr/bin/env bash
# make test-torch TORCH=<version>: the course on a second torch release, next to the pinned one.
#   tools/test_torch.sh <version> <pinned python> <other python>
# Every instructor notebook runs top to bottom on both releases (cells recorded, unchanged notebooks reused),
# then, on the other release: the report of what differs, cell by cell; the reference answers graded through
# the real grader; the fast tier (checks and zoo, in-process); the upstream-bug sentinels; the
# compatibility matrix against its committed copy. Every step runs; the exit code is 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
version=$1 pinned=$2 other=$3
out=.grading/torch-$version
report=.grading/torch-$version-report.md
failed=()
start=$(date +%s)
step() { local name=$1; shift; echo "== $name"; "$@" || failed+=("$name"); }
build() { "$1" -c 'import torch; print(torch.__version__)'; }
# The build each side runs (2.13.0+cpu; another release's +cpu where PyTorch's CPU index was reachable when its
# venv was made, else PyPI's, a CUDA build run on the CPU): the matrix's records name it too.
echo "== builds: pinned torch $(build "$pinned"), other torch $(build "$other")"

step "notebooks on the pinned torch" "$pinned" -m autograder.maintain.compat run --out .grading/torch-pinned/cells.json
step "notebooks on torch $version" "$other" -m autograder.maintain.compat run --out "$out/cells.json"
step "report" "$other" -m autograder.maintain.compat compare .grading/torch-pinned/cells.json "$out/cells.json" --report "$report"
step "references, fast tier, sentinels, matrix on torch $version" \
    "$other" -m pytest -n 2 -q -p no:cacheprovider \
    tests/more/test_zoo.py::test_reference_scores_full_marks tests/core/test_fast.py tests/more/test_upstream_bugs.py tests/more/test_matrix.py

echo "== torch $version ($(build "$other")): $(( $(date +%s) - start )) s; report: $report"
if (( ${#failed[@]} )); then
    printf 'failed: %s\n' "${failed[@]}"
    exit 1
fi
echo "torch $version: every step passed"
