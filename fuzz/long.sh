#!/usr/bin/env bash
# A long run of one fuzz target, measured in CPU time rather than wall time:
# on a shared machine `-max_total_time` (wall) says little about how much
# fuzzing was done. Runs the target on corpus/<target> until its process has
# used CPU_SECONDS (default 1800) of CPU, then interrupts it (libFuzzer prints
# its final stats on SIGINT) and appends a summary line to target/long-runs.txt.
#
#   fuzz/long.sh TARGET [CPU_SECONDS]
#
# Exits non-zero when the target found a crash (the input is under
# artifacts/TARGET/) or could not start.
set -euo pipefail
t="${1:?usage: long.sh TARGET [CPU_SECONDS]}"
budget="${2:-1800}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

extra=()
case $t in
  package_structured | emit) extra=(-max_len=512 -len_control=0) ;;
  package) extra=(-dict=dict/package.dict) ;;
  facts) extra=(-dict=dict/facts.dict) ;;
  text) extra=(-dict=dict/text.dict) ;;
esac
mkdir -p "corpus/$t" "artifacts/$t" target/long-logs
log="target/long-logs/$t.log"
cargo +nightly fuzz build -s none "$t"
bin="target/x86_64-unknown-linux-gnu/release/$t"
start=$(date +%s)
"$bin" "corpus/$t" -artifact_prefix="artifacts/$t/" -timeout=30 -rss_limit_mb=4096 \
  -print_final_stats=1 "${extra[@]}" >"$log" 2>&1 &
pid=$!
ticks=$(getconf CLK_TCK)
cpu=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 10
  # utime + stime, fields 14 and 15 of /proc/PID/stat (the name has no spaces).
  if stat=$(cat "/proc/$pid/stat" 2>/dev/null); then
    read -r -a f <<<"$stat"
    cpu=$(((f[13] + f[14]) / ticks))
  fi
  if ((cpu >= budget)); then
    kill -INT "$pid" 2>/dev/null || true
    break
  fi
done
status=0
wait "$pid" || status=$?
wall=$(($(date +%s) - start))
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
crashes=$(grep -cE 'ERROR: libFuzzer|panicked at|deadly signal' "$log" || true)
line="$(date -u +%FT%TZ) $t cpu=${cpu}s wall=${wall}s crashes=$crashes last: $last"
echo "$line" | tee -a target/long-runs.txt
# 130 / 72: interrupted by us (SIGINT); anything else with a crash line fails.
if ((crashes > 0)); then
  tail -n 40 "$log" >&2
  exit 1
fi
if ((status != 0 && status != 130 && status != 72)); then
  echo "long.sh: $t exited with $status; see $log" >&2
  exit 1
fi
