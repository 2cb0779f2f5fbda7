#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ (or DIR/<target>/) with seed inputs from the
# repository. Idempotent, and it only adds: what the fuzzer found and kept
# there in earlier runs stays, so a long run goes on from where the last one
# stopped (libFuzzer names its inputs by their SHA-1; seeds are named
# seed_<path>, so re-seeding overwrites a seed with its current content).
#
#   fuzz/seed-corpus.sh [DIR]
#
#   package            every package JSON of the repository (any *.json with a
#                      top-level "nodes" array: packages/, tests/ui/ broken and
#                      valid, docs/examples/, conformance examples, lint and
#                      import cases, benches)
#   facts              every chess facts file (tests/scenarios/chess/,
#                      examples/chess-arbiter/scenarios/)
#   text               every .law file of the repository (tests/text/ broken
#                      and valid, tests/lint/, packages/, docs/examples/, ...)
#                      and, when a lawgen binary is built (target/debug or
#                      target/release), the text form of every package under
#                      packages/ and docs/examples/ (`lawgen convert`)
#   expected           every expectation file of the scenario suites
#                      (tests/scenarios/*/*.expected.json)
#   package_structured, emit, imports
#                      short recipes (their input is a mutation recipe: the
#                      valid packages are embedded in the harness)
#   arrow              nothing (a recipe for a record batch; libFuzzer starts
#                      from the empty input)
#   analyze            a mode byte (0 JSON properties, 2 text properties,
#                      1 facts) before packages/*/properties.json and the
#                      chess scenarios' facts
#   doc                what package gets, and the Russian package with its
#                      import as one closure bundle
#
# The dictionaries (fuzz/dict/*.dict) are passed by smoke.sh and long.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
c="${1:-$here/corpus}"
targets=(package facts text package_structured emit imports arrow expected analyze doc)
for t in "${targets[@]}"; do mkdir -p "$c/$t"; done

# The repository's files, without build output or earlier corpora.
files() {
  find "$root" \( -name target -o -name .git -o -name corpus -o -name artifacts \
    -o -name .venv -o -name node_modules \) -prune -o -type f -name "$1" -print | sort
}
# seed_<path with / as _>, so that two files of one name stay apart.
seed() {
  local src=$1 dir=$2 rel
  rel=${src#"$root"/}
  cp "$src" "$dir/seed_${rel//\//_}"
}

while IFS= read -r f; do
  # A package: a JSON object with a top-level "nodes" array (facts files,
  # outputs and expectations are not). A cheap test that errs on the side of
  # keeping a file: a broken package is a fine seed too.
  if grep -q '"nodes"' "$f"; then
    seed "$f" "$c/package"
  fi
done < <(files '*.json')

while IFS= read -r f; do
  seed "$f" "$c/text"
done < <(files '*.law')

lawgen=""
for b in "$root/target/release/lawgen" "$root/target/debug/lawgen"; do
  if [[ -x $b ]]; then lawgen=$b; break; fi
done
if [[ -n $lawgen ]]; then
  while IFS= read -r f; do
    case $f in
      */packages/* | */docs/examples/*)
        rel=${f#"$root"/}
        "$lawgen" convert "$f" "$c/text/seed_${rel//\//_}.law" >/dev/null 2>&1 || true
        ;;
    esac
  done < <(files '*.ir.json')
fi

while IFS= read -r f; do
  case $f in
    */tests/scenarios/chess/* | */examples/chess-arbiter/*) seed "$f" "$c/facts" ;;
  esac
done < <(files '*.facts.json')

while IFS= read -r f; do
  case $f in
    */tests/scenarios/*) seed "$f" "$c/expected" ;;
  esac
done < <(files '*.expected.json')

# analyze: a mode byte before each input.
for f in "$root"/packages/*/properties.json; do
  { printf '\x00'; cat "$f"; } > "$c/analyze/props_$(basename "$(dirname "$f")").json"
done
printf '\x02# a drawn game is lost by nobody\nexclusive a: game_drawn(G), game_lost_by(G, _)\npossible b: entered_state(G, Ended) at definitely\n' \
  > "$c/analyze/props_text"
for f in "$root"/tests/scenarios/chess/*.facts.json; do
  { printf '\x01'; cat "$f"; } > "$c/analyze/facts_$(basename "$f")"
done

# doc: every package, and the Russian package with the FIDE package it
# imports as one closure bundle (syntax::files::write_bundle's format), so
# that imports are documented too.
cp "$c/package/"* "$c/doc/" 2>/dev/null || true
python3 - "$root" "$c/doc/bundle_ru_chess_competition.json" <<'PY'
import glob, json, os, sys
root, out = sys.argv[1], sys.argv[2]
files = [sorted(glob.glob(os.path.join(root, "packages/ru.chess.competition/*.ir.json")))[-1],
         os.path.join(root, "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json")]
entries = [{"file": os.path.basename(f), "package": json.load(open(f, encoding="utf-8"))} for f in files]
with open(out, "w", encoding="utf-8") as o:
    o.write('{"schemaVersion":"lawgen.closure/1","files":' + json.dumps(entries, ensure_ascii=False, separators=(",", ":")) + "}")
PY

# Recipes. Byte 0 picks the seed package (mod 8: 0-2 minimal, 3-5 hostile
# names, 6-7 chess), byte 1 the number of mutations, the rest the mutations.
for t in package_structured emit imports; do
  for s in 0 3 6; do
    for n in 1 4; do
      printf "\\x$(printf %02x $s)\\x$(printf %02x $n)%s" "$(printf 'fuzz%03d' $((s * 10 + n)))" \
        > "$c/$t/seed_${s}_${n}"
    done
  done
done
for t in "${targets[@]}"; do
  echo "seed-corpus.sh: $t: $(find "$c/$t" -type f | wc -l) inputs in $c/$t"
done
