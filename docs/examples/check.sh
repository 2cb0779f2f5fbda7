#!/usr/bin/env bash
# Runs every command docs/reference.md shows on these example packages and
# compares what it prints (stdout and stderr, then the exit code) with the
# `.out` file committed beside the package, so the reference cannot drift
# from what lawgen does. Also verifies every content hash with the Python
# function the reference gives.
#
#   bash docs/examples/check.sh                  # compare
#   LAWGEN_BLESS=1 bash docs/examples/check.sh   # rewrite the .out files
#
# After blessing, read the diff: it is what the reference quotes.
set -u
cd "$(dirname "$0")/../.."
cargo build -q -p lawgen-cli || exit 1
LAWGEN="${CARGO_TARGET_DIR:-target}/debug/lawgen"
E=docs/examples
failed=0

run() { # run OUT-FILE ARGS...
    local out=$1
    shift
    local got
    got=$("$LAWGEN" "$@" 2>&1; echo "exit code: $?")
    if [ "${LAWGEN_BLESS:-}" = 1 ]; then
        printf '%s\n' "$got" >"$out"
    elif ! diff -u "$out" <(printf '%s\n' "$got"); then
        echo "MISMATCH: lawgen $* (expected output in $out)" >&2
        failed=1
    fi
}

P=$E/parking/package.ir.json
run $E/parking/check.out check $P
run $E/parking/eval.out eval $P --facts $E/parking/facts.json
run $E/parking/bad-facts.out eval $P --facts $E/parking/bad-facts.json
run $E/parking/explain-fine_due-b.out explain $P --facts $E/parking/facts.json 'fine_due(b)'
run $E/parking/explain-fine_due-d.out explain $P --facts $E/parking/facts.json 'fine_due(d)'
run $E/parking/explain-not-has_permit-a.out explain $P --facts $E/parking/facts.json '~has_permit(a)'

P=$E/policies/package.ir.json
run $E/policies/eval-blocking.out eval $P --facts $E/policies/facts.json --policy blocking
run $E/policies/eval-propagating.out eval $P --facts $E/policies/facts.json --policy propagating
run $E/policies/explain-may_travel-x-propagating.out explain $P --facts $E/policies/facts.json 'may_travel(x)' --policy propagating

P=$E/refunds/package.ir.json
run $E/refunds/eval.out eval $P --facts $E/refunds/facts.json
run $E/refunds/eval-decided.out eval $P --facts $E/refunds/facts-decided.json
run $E/refunds/explain-refund_due-c1.out explain $P --facts $E/refunds/facts.json 'refund_due(c1)'

run $E/refused/unstratifiable.out check $E/refused/unstratifiable.ir.json

P=$E/derogation/package.ir.json
run $E/derogation/check.out check $P
run $E/derogation/eval-base.out eval $E/derogation/base.ir.json --facts $E/derogation/facts.json
run $E/derogation/eval.out eval $P --facts $E/derogation/facts.json
run $E/derogation/explain-game_drawn-g1.out explain $P --facts $E/derogation/facts.json 'game_drawn(g1)'
run $E/derogation/explain-game_drawn-g1-ru.out explain $P --facts $E/derogation/facts.json 'game_drawn(g1)' --lang ru

# The hash function as docs/reference.md ("Integrity") states it.
python3 - $E/*/package.ir.json $E/derogation/base.ir.json $E/refused/*.ir.json <<'PY' || failed=1
import hashlib, json, sys

def content_hash(node):
    body = {k: v for k, v in node.items() if k != "contentHash"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

bad = 0
for path in sys.argv[1:]:
    for node in json.load(open(path, encoding="utf-8"))["nodes"]:
        if node["contentHash"] != content_hash(node):
            print(f"{path}: {node['id']}: contentHash does not verify", file=sys.stderr)
            bad = 1
        for t in node.get("texts", []):
            if "contentHash" in t and t["contentHash"] != "sha256:" + hashlib.sha256(t["text"].encode("utf-8")).hexdigest():
                print(f"{path}: {node['id']}: text hash does not verify", file=sys.stderr)
                bad = 1
sys.exit(bad)
PY

if [ $failed = 0 ]; then echo "docs/examples: every output as committed"; fi
exit $failed
