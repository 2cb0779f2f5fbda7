#!/usr/bin/env bash
# Every fuzz target for CPU_SECONDS of CPU each (default 3600), two targets
# at a time (the machine's two cores), through fuzz/long.sh (nice 19, CPU
# time measured, a summary line per run in fuzz/target/long-runs.txt). With
# FUZZ_SANITIZER=address, every target under AddressSanitizer instead.
# Takes hours; docs/testing.md records the runs made.
#
#   fuzz/campaign.sh [CPU_SECONDS]
#
# A target that finds a crash stops its run (the input is under
# fuzz/artifacts/TARGET/); the campaign goes on with the others and exits
# non-zero at the end.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
budget="${1:-3600}"
targets=(package facts text package_structured emit imports arrow expected analyze doc)
# Build every target first, one at a time: two lanes building at once would
# only wait on cargo's lock.
for t in "${targets[@]}"; do
  "$here/long.sh" "$t" 1 >/dev/null || true
done
failed=0
lane() {
  local rc=0
  for t in "$@"; do
    "$here/long.sh" "$t" "$budget" || rc=1
  done
  return $rc
}
half=$(((${#targets[@]} + 1) / 2))
lane "${targets[@]:0:half}" &
a=$!
lane "${targets[@]:half}" &
b=$!
wait "$a" || failed=1
wait "$b" || failed=1
exit $failed
