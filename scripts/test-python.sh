#!/usr/bin/env bash
# The Python side: the chess package's Python module (pip install of
# `lawgen build --python`) against the chess scenarios, `lawgen eval` and
# `lawgen explain` (pytest), the Python modules of random packages against
# `lawgen eval` (cargo test --test python_module), and the distributed example
# with a small number of games, a worker killed while partitions are in flight.
# Installs what it needs (scripts/python-env.sh: a venv under target/).
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests check what the modules compute, not how fast: a debug build
# (without debug info) of the chess module and of the random packages'
# modules, which takes a fraction of a release build. LAWGEN_PYTHON_DEV=0
# tests release builds.
export LAWGEN_PYTHON_DEV="${LAWGEN_PYTHON_DEV:-1}"
t=$SECONDS
source scripts/python-env.sh
echo "python module of the chess package built and installed in $((SECONDS - t)) s"
# The bench generator's games, to check the example's port of it.
cargo build -q -p lawgen-benches --bin cases
(cd tests/python && LAWGEN="$LAWGEN" CASES="$PWD/../../target/debug/cases" "$PY" -m pytest -q -p no:cacheprovider)
LAWGEN_PYTHON="$PY" cargo test -q -p lawgen --test python_module -- --include-ignored
bash examples/distributed/run.sh --cases 4000 --workers 2 --kill-a-worker
