#!/usr/bin/env bash
# Impact analysis of the Russian package 0.1.0 -> 0.2.0 over the repository's
# Russian scenarios, as a federation would run it: `lawgen serve` with the
# 0.1.0 fixture and a decision log, every scenario's facts file posted to
# /v1/packages/ru.chess.competition/evaluate, the service stopped with
# SIGTERM, then `lawgen replay LOG --package 0.1.0 --against 0.2.0`.
#
#   bash scripts/ru-replay-against.sh [OUT-DIR]
#
# OUT-DIR (default: a fresh temporary directory) receives decisions.jsonl,
# refused.txt (the scenarios the 0.1.0 service refuses, with its answer:
# they state inputs 0.1.0 does not have), impact.txt and impact.json. The
# summary table packages/ru.chess.competition/README.md quotes is the end of
# impact.txt. Exit status: the replay's (0 when every receipt was compared).
set -euo pipefail
export LC_ALL=C # the scenarios in byte order, as the test posts them
cd "$(dirname "$0")/.."
ROOT=$(pwd)
cargo build -q -p lawgen-cli
LAWGEN="$ROOT/${CARGO_TARGET_DIR:-target}/debug/lawgen"
OLD=$ROOT/tests/fixtures/ru.chess.competition-0.1.0.ir.json
NEW=$ROOT/tests/fixtures/ru.chess.competition-0.2.0.ir.json
IMP=(--import-path "$ROOT/packages/fide.laws.chess")
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG="$OUT/decisions.jsonl"
: >"$LOG"
: >"$OUT/refused.txt"

fifo="$OUT/serve.out"
rm -f "$fifo"
mkfifo "$fifo"
# The interpreter: no build of 0.1.0 before the first answer, and the
# canonical output (what a receipt holds) is the same on every engine.
"$LAWGEN" serve --package "$OLD" "${IMP[@]}" --engine interp --listen 127.0.0.1:0 \
    --decision-log "$LOG" >"$fifo" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$fifo"' EXIT
exec 3<"$fifo"
read -r first <&3
url=${first#lawgen serve: listening on }
case "$url" in http://*) ;; *) echo "unexpected first line: $first" >&2; exit 2 ;; esac

posted=0
for f in tests/scenarios/ru/*.facts.json; do
    posted=$((posted + 1))
    status=$(curl -s -o "$OUT/answer.json" -w '%{http_code}' \
        -H 'Content-Type: application/json' --data-binary @"$f" \
        "$url/v1/packages/ru.chess.competition/evaluate")
    if [ "$status" != 200 ]; then
        printf '%s: %s %s\n' "$f" "$status" "$(cat "$OUT/answer.json")" >>"$OUT/refused.txt"
    fi
done
rm -f "$OUT/answer.json"
kill -TERM "$pid"
wait "$pid"
trap 'rm -f "$fifo"' EXIT
echo "posted $posted scenario(s): $(wc -l <"$LOG") logged, $(wc -l <"$OUT/refused.txt") refused (see $OUT/refused.txt)"

# From OUT, so the report names the log `decisions.jsonl`, as the README quotes it.
cd "$OUT"
status=0
"$LAWGEN" replay decisions.jsonl --package "$OLD" "${IMP[@]}" --against "$NEW" >impact.txt || status=$?
"$LAWGEN" replay decisions.jsonl --package "$OLD" "${IMP[@]}" --against "$NEW" --format json \
    >impact.json || true
sed -n '/^read [0-9]* receipt/,$p' impact.txt
echo "report: $OUT/impact.txt, $OUT/impact.json"
exit "$status"
