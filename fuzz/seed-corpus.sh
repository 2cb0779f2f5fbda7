#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ (or DIR/<target>/) with the seed inputs from
# the repository (idempotent; inputs the fuzzer found there are kept).
#   fuzz/seed-corpus.sh [DIR]
#   package            packages/**/*.ir.json, tests/ui/*.json (broken), tests/ui/valid/*.json
#   facts              tests/scenarios/chess/*.facts.json
#   text               tests/text/*.law (broken), tests/text/valid/*.law
#   analyze            a mode byte (0 JSON properties, 2 text properties,
#                      1 facts) before packages/*/properties.json and the
#                      chess scenarios' facts
#   package_structured, emit
#                      a few byte strings (their input is a mutation recipe:
#                      the valid packages are embedded in the targets)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
c="${1:-$here/corpus}"
mkdir -p "$c/package" "$c/facts" "$c/package_structured" "$c/emit" "$c/text" "$c/analyze"
cp "$root"/packages/*/*.ir.json "$c/package/"
for f in "$root"/tests/ui/*.json; do cp "$f" "$c/package/ui_$(basename "$f")"; done
for f in "$root"/tests/ui/valid/*.json; do cp "$f" "$c/package/valid_$(basename "$f")"; done
cp "$root"/tests/scenarios/chess/*.facts.json "$c/facts/"
for f in "$root"/tests/text/*.law; do cp "$f" "$c/text/ui_$(basename "$f")"; done
for f in "$root"/tests/text/valid/*.law; do cp "$f" "$c/text/valid_$(basename "$f")"; done
for f in "$root"/packages/*/properties.json; do
  { printf '\x00'; cat "$f"; } > "$c/analyze/props_$(basename "$(dirname "$f")").json"
done
printf '\x02# a drawn game is lost by nobody\nexclusive a: game_drawn(G), game_lost_by(G, _)\npossible b: entered_state(G, Ended) at definitely\n' \
  > "$c/analyze/props_text"
for f in "$root"/tests/scenarios/chess/*.facts.json; do
  { printf '\x01'; cat "$f"; } > "$c/analyze/facts_$(basename "$f")"
done
for t in package_structured emit; do
  # byte 0 picks the seed package (0-2 minimal, 3-5 hostile names, 6-7 chess, mod 8), byte 1 the number of mutations, the rest
  # the mutations themselves.
  for s in 0 3 6; do
    for n in 1 4; do
      printf "\\x$(printf %02x $s)\\x$(printf %02x $n)%s" "$(printf 'fuzz%03d' $((s * 10 + n)))" \
        > "$c/$t/seed_${s}_${n}"
    done
  done
done
