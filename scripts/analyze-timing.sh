#!/usr/bin/env bash
# Times every kind of `lawgen analyze` query on the chess package and the
# newest Russian layer at K = 2 (release build), one process per query, and
# prints the table docs/analyze.md quotes: wall time, CPU time (user +
# system) and peak memory from /usr/bin/time, with the load average before
# and after (on a shared machine the wall time says less than the CPU time).
#
#   bash scripts/analyze-timing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p lawgen-cli
LAWGEN="${CARGO_TARGET_DIR:-target}/release/lawgen"
FIDE=packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json
# The newest version of the Russian layer.
RU=$(ls packages/ru.chess.competition/ru.chess.competition-*.ir.json | sort -V | tail -n 1)
RU_V=${RU##*-}
RU_V=${RU_V%.ir.json}
IMP=(--import-path packages/fide.laws.chess)
out=$(mktemp)
tm=$(mktemp)
trap 'rm -f "$out" "$tm"' EXIT

# What the report answered, in a few words.
answer() {
    awk '
        /^(WITNESS|CONCLUDES|APPLIES|NEVER APPLIES|NO EFFECT|HOLDS|VIOLATED|none within)/ {
            split($0, w, /[,:(]/); a = a (a ? "; " : "") w[1]
        }
        /^never apply \(a proof/ { split($0, w, ": "); u = w[2] " never apply" }
        /^apply, but never conclude/ { split($0, w, ": "); u = u ", " w[2] " never conclude" }
        /^\([0-9]+ literals,/ { c = substr($1, 2) " literals" }
        /^[0-9]+ properties:/ { sub(/ \(.*/, ""); p = $0 }
        END {
            if (p) print p; else if (u) print u; else if (c) print c " compared"; else print a
        }' "$out"
}

row() { # row PACKAGE-LABEL QUERY-LABEL ARGS...
    local pkg=$1 query=$2
    shift 2
    local code=0
    /usr/bin/time -f '%e %U %S %M' -o "$tm" "$LAWGEN" analyze "$@" --bound 2 >"$out" 2>&1 || code=$?
    if [ "$code" -gt 1 ]; then
        echo "lawgen analyze $* exited $code:" >&2
        cat "$out" >&2
        exit 1
    fi
    read -r wall user sys rss < <(tail -n 1 "$tm")
    printf '| %s | `%s` | %s | %s | %.2f | %d |\n' "$pkg" "$query" "$(answer)" "$wall" \
        "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
}

echo "load average before: $(uptime | sed 's/.*load average: //')"
echo
echo "| package | query | answer | wall s | CPU s | peak MB |"
echo "|---|---|---|---|---|---|"
# `--reachable`: the rule each package takes longest on (every rule timed
# one process at a time), another, and for the Russian layer the rule it
# never applies.
for p in fide ru; do
    if [ $p = fide ]; then
        P=("$FIDE") label="FIDE 0.1.0" pending='must_move_first_touched_piece(P, X)'
        reach=(GamePlay/ConcludeBySecondIllegalMove/valid CheckmateEndsTheGame SeventyFiveAutomaticDraw)
    else
        P=("$RU" "${IMP[@]}") label="Russian $RU_V" pending='game_drawn(G)'
        reach=(LateArrivalBeyondRegulationTime EndingsConflictWinAndLoss MoreThanTwoPlayers)
    fi
    row "$label" "--exclusive 'game_drawn(G)' 'game_lost_by(G, _)'" "${P[@]}" \
        --exclusive 'game_drawn(G)' 'game_lost_by(G, _)'
    row "$label" "--goal 'game_drawn(G), game_lost_by(G, _)' --level definitely" "${P[@]}" \
        --goal 'game_drawn(G), game_lost_by(G, _)' --level definitely
    row "$label" "--goal 'game_won_by(G, P), game_won_by(G, Q), P != Q' --level defeasibly" "${P[@]}" \
        --goal 'game_won_by(G, P), game_won_by(G, Q), P != Q' --level defeasibly
    row "$label" "--goal 'game_drawn(G), ~game_drawn(G)' --level supported" "${P[@]}" \
        --goal 'game_drawn(G), ~game_drawn(G)' --level supported
    row "$label" "--goal '$pending' --level pending" "${P[@]}" --goal "$pending" --level pending
    for r in "${reach[@]}"; do
        row "$label" "--reachable $r" "${P[@]}" --reachable "$r"
    done
    row "$label" "--unreachable" "${P[@]}" --unreachable
    row "$label" "--requires 'game_won_by(G, P)'" "${P[@]}" --requires 'game_won_by(G, P)'
    row "$label" "--properties $(dirname "${P[0]}")/properties.json" "${P[@]}" \
        --properties "$(dirname "${P[0]}")/properties.json"
done
row "Russian $RU_V" "--compare $FIDE" "$RU" "${IMP[@]}" --compare "$FIDE"
row "Russian 0.1.0" "--exclusive 'game_drawn(G)' 'game_lost_by(G, _)'" \
    tests/fixtures/ru.chess.competition-0.1.0.ir.json "${IMP[@]}" \
    --exclusive 'game_drawn(G)' 'game_lost_by(G, _)'
echo
echo "load average after: $(uptime | sed 's/.*load average: //')"
