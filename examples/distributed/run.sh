#!/usr/bin/env bash
# The chess package on a local Dask cluster (README.md):
#   bash examples/distributed/run.sh --cases N [--workers W] [--kill-a-worker]
# Installs what it needs into target/venv-python, builds and installs the
# package's Python module, then runs job.py with the same arguments.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/../../scripts/python-env.sh" >&2
exec "$PY" "$HERE/job.py" "$@"
