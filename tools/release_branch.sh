#!/usr/bin/env bash
# The course as released, on a branch of its own (default `release`), for a Binder link a graded class can use:
# course/, the course's package (its checks and lesson helpers, without its judge-only references), Binder's files (environment.yml, postBuild,
# requirements/binder.lock) and pyproject.toml, from a commit of this repository (default HEAD). No solutions/,
# no tests/ (the zoo holds answers too), no docs/. The work tree and the index are left alone: the branch is
# written with git's plumbing, one commit on top of the branch's last.
#   bash tools/release_branch.sh [COMMIT] [BRANCH]
#   git push origin release
# Binder then opens https://mybinder.org/v2/gh/<owner>/<repo>/release?urlpath=lab/tree/course/...
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git rev-parse --verify "${1:-HEAD}^{commit}")
branch=${2:-release}
SHIPPED=(course autograder pyproject.toml environment.yml postBuild requirements/binder.lock)
JUDGE_ONLY=autograder/references  # the judge-only references: never shipped to learners

for path in "${SHIPPED[@]}"; do
    if [ -z "$(git ls-tree "$commit" -- "$path")" ]; then
        echo "error: $commit has no $path" >&2
        exit 2
    fi
done
if git grep -q -E '### (BEGIN|END) (SOLUTION|HIDDEN TESTS)' "$commit" -- course; then
    echo "error: course/ at $commit holds a solution or hidden-test marker: run python -m autograder release" >&2
    exit 1
fi

index=$(mktemp)
trap 'rm -f "$index"' EXIT
export GIT_INDEX_FILE=$index
git read-tree --empty
for path in "${SHIPPED[@]}"; do  # never the judge-only references (autograder/references/: reference answers)
    git ls-tree -r --full-tree "$commit" -- "$path" | { grep -v -P "\t${JUDGE_ONLY}/" || true; } \
        | git update-index --index-info
done
if git ls-files --cached | grep -q "^${JUDGE_ONLY}/"; then
    echo "error: the release would hold ${JUDGE_ONLY}/ (reference answers)" >&2
    exit 1
fi
readme=$(git hash-object -w --stdin <<EOF
# Custom \`torch.autograd.Function\`s: the course as released

The notebooks to work in are in \`course/\`; each exercise has a visible test cell right below it. This branch
is what students receive: it holds no reference answers and no hidden tests, so the last cell of a notebook
(\`grade_this_notebook\`) cannot grade here. Your instructor grades what you upload.

Written by \`tools/release_branch.sh\` from commit $commit of the course's repository (branch main), where the
course is authored.
EOF
)
git update-index --add --cacheinfo "100644,$readme,README.md"
tree=$(git write-tree)
parents=()
if previous=$(git rev-parse --verify --quiet "refs/heads/$branch"); then
    if [ "$(git rev-parse "$previous^{tree}")" = "$tree" ]; then
        echo "$branch is already the release of $commit ($previous)"
        exit 0
    fi
    parents=(-p "$previous")
fi
new=$(git commit-tree "$tree" "${parents[@]}" -m "The course as released, from $commit")
git update-ref "refs/heads/$branch" "$new" ${previous:+"$previous"}
echo "$branch: $new ($(git ls-tree -r --name-only "$new" | grep -c '\.ipynb$') notebooks, from $commit)"
