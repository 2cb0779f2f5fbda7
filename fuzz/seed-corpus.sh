#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ (or DIR/<target>/) with the seed inputs from
# the repository (idempotent; inputs the fuzzer found there are kept).
#   fuzz/seed-corpus.sh [DIR]
#   package            packages/**/*.ir.json, tests/ui/*.json (broken), tests/ui/valid/*.json
#   doc                packages/**/*.ir.json, tests/ui/valid/*.json, and the Russian
#                      package with its import as one closure bundle
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
mkdir -p "$c/package" "$c/facts" "$c/package_structured" "$c/emit" "$c/text" "$c/analyze" "$c/doc"
cp "$root"/packages/*/*.ir.json "$c/package/"
for f in "$root"/tests/ui/*.json; do cp "$f" "$c/package/ui_$(basename "$f")"; done
for f in "$root"/tests/ui/valid/*.json; do cp "$f" "$c/package/valid_$(basename "$f")"; done
cp "$root"/tests/scenarios/chess/*.facts.json "$c/facts/"
cp "$root"/packages/*/*.ir.json "$c/doc/"
for f in "$root"/tests/ui/valid/*.json; do cp "$f" "$c/doc/valid_$(basename "$f")"; done
# The Russian package with the FIDE package it imports, as a closure bundle
# (syntax::files::write_bundle's format), so that imports are fuzzed too.
python3 - "$root" "$c/doc/bundle_ru_chess_competition.json" <<'PY'
import glob, json, os, sys
root, out = sys.argv[1], sys.argv[2]
files = [sorted(glob.glob(os.path.join(root, "packages/ru.chess.competition/*.ir.json")))[-1],
         os.path.join(root, "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json")]
entries = [{"file": os.path.basename(f), "package": json.load(open(f, encoding="utf-8"))} for f in files]
with open(out, "w", encoding="utf-8") as o:
    o.write('{"schemaVersion":"lawgen.closure/1","files":' + json.dumps(entries, ensure_ascii=False, separators=(",", ":")) + "}")
PY
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
