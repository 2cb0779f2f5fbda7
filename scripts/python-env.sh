#!/usr/bin/env bash
# Sourced by the Python tests and examples: a venv under target/ with the
# pinned packages of scripts/python-requirements.txt (from PyPI), and the
# Python module of the chess package built from this checkout and installed
# into it. Exports PY (the venv's python) and LAWGEN (the lawgen binary).
# Set LAWGEN_PYTHON_DEV=1 for a debug build of the module (faster to build;
# scripts/test-python.sh does, the example alone does not).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Once per run: scripts/test-python.sh sources this, then runs the example,
# which sources it again.
if [ "${LAWGEN_PYTHON_ENV:-}" = "$ROOT" ]; then
  return 0
fi
VENV="$ROOT/target/venv-python"
REQ="$ROOT/scripts/python-requirements.txt"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"
# maturin's build backend runs `maturin` by name.
export PATH="$VENV/bin:$PATH"
# Reinstall only when the requirements changed.
if ! cmp -s "$REQ" "$VENV/.requirements"; then
  "$PY" -m pip install -q --upgrade pip
  "$PY" -m pip install -q -r "$REQ"
  cp "$REQ" "$VENV/.requirements"
fi
cargo build -q -p lawgen-cli
LAWGEN="$ROOT/target/debug/lawgen"
"$LAWGEN" build "$ROOT/packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json" --python \
  --out "$ROOT/target/python/fide_laws_chess" 2>/dev/null
profile=()
build_env=(CARGO_TARGET_DIR="$ROOT/target/python-target")
if [ "${LAWGEN_PYTHON_DEV:-0}" = 1 ]; then
  profile=(--config-settings=build-args=--profile=dev)
  # Without debug info: what the tests need, in a third less time.
  build_env+=(CARGO_PROFILE_DEV_DEBUG=false)
fi
# maturin is in the venv: no isolated build environment to set up each time.
# One cargo target directory for every Python module built here (this one and
# lawgen/cli/tests/python_module.rs's, which builds with the same profile), so
# pyo3, arrow, lawgen and ascent compile once; set for this command only, not
# for the workspace's own builds.
env "${build_env[@]}" "$PY" -m pip install -q --no-build-isolation --force-reinstall --no-deps "${profile[@]}" \
  "$ROOT/target/python/fide_laws_chess"
export PY LAWGEN LAWGEN_PYTHON_ENV="$ROOT"
