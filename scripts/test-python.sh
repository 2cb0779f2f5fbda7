#!/usr/bin/env bash
# The Python side: the chess package's Python module (pip install of
# `lawgen build --python`) against the chess scenarios, `lawgen eval` and
# `lawgen explain` (pytest), the Python modules of random packages against
# `lawgen eval` (the projects and expected outputs `cargo test --test
# python_module` writes, built here and checked by tests/python/check_random.py),
# and the distributed example with a small number of games, a worker killed
# while partitions are in flight.
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
cargo test -q -p lawgen-cli --test python_module
# Each random package's project as a module: what maturin does for a
# pure-Rust abi3 module is a cdylib, renamed. Built with the profile the chess
# module was (above), in the same target directory, so its dependencies are
# built already.
if [ "$LAWGEN_PYTHON_DEV" = 1 ]; then
  build=(env CARGO_PROFILE_DEV_DEBUG=false cargo build) out=debug
else
  build=(cargo build --release) out=release
fi
lib=target/python-random/lib
rm -rf "$lib" && mkdir -p "$lib"
for dir in target/python-random/p*/; do
  m=$(basename "$dir")
  CARGO_TARGET_DIR="$PWD/target/python-target" PYO3_PYTHON="$PY" \
    "${build[@]}" -q --lib --manifest-path "$dir/Cargo.toml"
  cp "target/python-target/$out/lib$m.so" "$lib/$m.abi3.so"
  PYTHONPATH="$lib" "$PY" tests/python/check_random.py "$m" "$dir/data"
done
bash examples/distributed/run.sh --cases 4000 --workers 2 --kill-a-worker
