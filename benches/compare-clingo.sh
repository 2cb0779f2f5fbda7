#!/usr/bin/env bash
# Runs N generated chess games through clingo (ASP), for the record.
# Not run in CI.
#
#   benches/compare-clingo.sh [N] [blocking|propagating]     (default: 10000 blocking)
#
# Installs clingo from PyPI into target/clingo-venv, prints the games (the same
# as the benches' and the throughput binary's: `cases N`), generates an ASP
# encoding of the chess package's defeasible logic from the package itself
# (benches/scripts/clingo_chess.py says what it covers; the encoding is kept
# in target/clingo/chess.lp), grounds and solves all N games in one clingo
# program, checks that the concluded counts per institutional literal equal
# the plain-Rust evaluator's, and reports games/s (ground + solve; the
# conversion of the facts to ASP text is reported apart), also saved to
# target/clingo/report-N.json (benches/scripts/plot.py can add it to the
# plot). A run is stopped after CLINGO_TIMEOUT seconds (default 300).
set -euo pipefail

N=${1:-10000}
POLICY=${2:-blocking}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=$ROOT/target/clingo-venv
WORK=$ROOT/target/clingo
PACKAGE=$ROOT/packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json
mkdir -p "$WORK"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import clingo' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet 'clingo==5.8.*'
fi

cd "$ROOT"
cargo build --release --quiet -p lawgen-benches --bin cases
"$ROOT/target/release/cases" "$N" >"$WORK/cases-$N.jsonl"
"$ROOT/target/release/cases" "$N" --totals >"$WORK/totals-$N.json"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
timeout "${CLINGO_TIMEOUT:-300}" "$VENV/bin/python" "$ROOT/benches/scripts/clingo_chess.py" \
    --package "$PACKAGE" --cases "$WORK/cases-$N.jsonl" --totals "$WORK/totals-$N.json" \
    --policy "$POLICY" --encoding-out "$WORK/chess.lp" | tee "$WORK/report-$N.json" || {
    status=$?
    if [ "$status" = 124 ]; then
        echo "clingo did not finish $N games in ${CLINGO_TIMEOUT:-300} s" >&2
    fi
    exit "$status"
}
