#!/usr/bin/env bash
# The learner's JupyterLab (`make lab`): the course's notebooks, without the instructor's tools. nbgrader is in
# this environment for the instructor's commands, and its formgrader ("Manage Assignments", every student's
# grades) and assignment creation would otherwise open in the learner's Lab: tools/learner-lab, read before the
# environment's own Jupyter configuration (JUPYTER_CONFIG_PATH), turns them off. Extra arguments go to jupyter lab.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export JUPYTER_CONFIG_PATH="$ROOT/tools/learner-lab${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
exec "$ROOT/.venv/bin/jupyter" lab --notebook-dir="$ROOT/course" $([ "$(id -u)" = 0 ] && echo --allow-root) "$@"
