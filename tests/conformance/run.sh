#!/usr/bin/env bash
# Run the datalog-conformance corpus (PyPI datalog-conformance==0.1.0) against `lawgen eval`.
#
#   tests/conformance/run.sh [PYTHON] [-- PYTEST_ARGS...]
#
# PYTHON: a python that has datalog-conformance==0.1.0 installed.  Without it, a venv is
# made (once) under target/conformance-venv with the pinned package.
# Env: LAWGEN_BIN (default: target/debug/lawgen, built with cargo if LAWGEN_BIN is unset),
#      CONFORMANCE_OUT (default target/conformance: junit.xml, pytest log),
#      LAWGEN_CONFORMANCE_KEEP=DIR (keep every generated package/facts/output for triage),
#      LAWGEN_CONFORMANCE_TIMEOUT (seconds per lawgen eval, default 600),
#      CONFORMANCE_JOBS (pytest-xdist workers, default: the number of CPUs; each case is
#      its own `lawgen eval` process in its own temporary directory).
# Exit status: pytest's (0 all passed, 1 some failed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

py=""
if [[ $# -gt 0 && "$1" != "--" ]]; then py="$1"; shift; fi
if [[ $# -gt 0 && "$1" == "--" ]]; then shift; fi
if [[ -z "$py" ]]; then
  venv="$root/target/conformance-venv"
  if [[ ! -x "$venv/bin/python" ]]; then python3 -m venv "$venv"; fi
  if ! "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("datalog-conformance") != "0.1.0" or m.version("pytest-xdist") != "3.6.1")' 2>/dev/null; then
    "$venv/bin/python" -m pip install -q "datalog-conformance==0.1.0" "pytest-xdist==3.6.1"
  fi
  py="$venv/bin/python"
fi

if [[ -z "${LAWGEN_BIN:-}" ]]; then
  (cd "$root" && cargo build -q -p lawgen-cli)
  export LAWGEN_BIN="$root/target/debug/lawgen"
fi
out="${CONFORMANCE_OUT:-$root/target/conformance}"
mkdir -p "$out"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"

cd "$here"
set +e
# The wheel ships no test function (only the plugin + corpus), so `pytest --pyargs
# datalog_conformance` collects nothing; test_lawgen_conformance.py is that function.
jobs=(-n "${CONFORMANCE_JOBS:-$(nproc)}")
if ! "$py" -c 'import xdist' 2>/dev/null; then jobs=(); fi
"$py" -m pytest test_lawgen_conformance.py "${jobs[@]}" \
  --datalog-evaluator=lawgen_conformance.LawgenEvaluator \
  -p no:cacheprovider -rs -q --tb=line --junitxml="$out/junit.xml" "$@" 2>&1 | tee "$out/pytest.log"
rc=${PIPESTATUS[0]}
set -e
"$py" "$here/summarize.py" "$out/junit.xml" || true
exit "$rc"
