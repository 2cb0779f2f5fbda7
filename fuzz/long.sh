#!/usr/bin/env bash
# A long run of one fuzz target, measured in CPU time rather than wall time:
# on a shared machine `-max_total_time` (wall) says little about how much
# fuzzing was done. Runs the target on corpus/<target> (seeded from the
# repository first, by seed-corpus.sh; what earlier runs found stays) until
# its process has used CPU_SECONDS (default 1800) of CPU, then interrupts it
# (libFuzzer prints its final stats on SIGINT) and appends a summary line to
# target/long-runs.txt: CPU and wall time, executions, coverage (`cov`: edges,
# `ft`: features), corpus size, crashes.
#
#   fuzz/long.sh TARGET [CPU_SECONDS]
#
# FUZZ_SANITIZER=address builds and runs the target under AddressSanitizer
# (in target/address/, beside the plain build), on the default toolchain
# with RUSTC_BOOTSTRAP=1 (cargo-fuzz passes -Zsanitizer=address; the stable
# toolchain ships the sanitizer runtimes, see docs/testing.md).
#
# The script lowers its own priority to nice 19, and the fuzzer runs in a
# session whose scheduling group is at nice 19 (the fuzzer soaks idle CPU
# and yields to builds). Exits non-zero when the target found a crash (the
# input is under artifacts/TARGET/) or could not start.
set -euo pipefail
# The whole script is one block, read before it runs: bash reads a script
# as it goes, so editing this file under a run of hours would change what
# the run does next.
{
t="${1:?usage: long.sh TARGET [CPU_SECONDS]}"
budget="${2:-1800}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
renice -n 19 $$ >/dev/null 2>&1 || true

extra=()
case $t in
  package_structured | emit | imports | arrow) extra=(-max_len=512 -len_control=0) ;;
  package) extra=(-dict=dict/package.dict) ;;
  facts) extra=(-dict=dict/facts.dict) ;;
  text) extra=(-dict=dict/text.dict) ;;
esac
san="${FUZZ_SANITIZER:-none}"
fuzz=(cargo fuzz)
if [[ $san != none ]]; then
  # -Zsanitizer on the stable toolchain: its sanitizer runtimes ship with
  # it; only the flag is unstable.
  export RUSTC_BOOTSTRAP=1
elif rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
fi
dir=target
tag=$t
build=()
case $t in
  # A recipe is read by `Unstructured` (ranges, choices), not compared with
  # constants, so comparison tracing buys these targets little; without it
  # they run about twice as fast. Built apart so the others keep it.
  package_structured | emit | imports)
    build=(--no-trace-compares)
    dir=target/recipe
    ;;
esac
# libFuzzer's -timeout counts wall time per input. At nice 19 a run gets
# about 1.5% of a core while both cores build, so an input that takes 0.3 s
# of CPU can take 20 s: 30 s leaves room for that. Under AddressSanitizer the
# slowest inputs of `emit` and `package_structured` take 5-6 s of CPU, which
# under the same load reported false timeouts; 600 s still catches a hang.
timeout=30
if [[ $san != none ]]; then
  # One sanitizer build for every target (comparison tracing included).
  build=()
  dir=target/$san
  tag=$t-$san
  timeout=600
fi
./seed-corpus.sh >/dev/null
mkdir -p "artifacts/$t" target/long-logs
log="target/long-logs/$tag.log"
# The build too runs in a session of its own whose scheduling group is at
# nice 19 (see the fuzzer's below): nice alone would leave it the caller's
# group, which takes an equal share of the CPUs from everything else, and a
# sanitizer build of every target takes minutes.
setsid --wait bash -c 'echo 19 >"/proc/$$/autogroup" 2>/dev/null; exec "$@"' long.sh-build \
  "${fuzz[@]}" build -s "$san" "${build[@]}" --target-dir "$dir" "$t"
bin="$dir/x86_64-unknown-linux-gnu/release/$t"
start=$(date +%s)
# In a session of its own, whose scheduling group gets nice 19 too: with
# the kernel's autogroup scheduling, CPU is shared between sessions first and
# by nice only within one, so a nice 19 fuzzer in the caller's session (or
# any other) would still take its session's equal share from builds and
# benchmarks run from another terminal.
setsid "$bin" "corpus/$t" -artifact_prefix="artifacts/$t/" -timeout="$timeout" -rss_limit_mb=4096 \
  -print_final_stats=1 "${extra[@]}" >"$log" 2>&1 &
pid=$!
sleep 0.2
echo 19 >"/proc/$pid/autogroup" 2>/dev/null || true
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
execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
crashes=$(grep -cE 'ERROR: libFuzzer|panicked at|deadly signal|ERROR: AddressSanitizer' "$log" || true)
line="$(date -u +%FT%TZ) $tag cpu=${cpu}s wall=${wall}s execs=${execs:-?} crashes=$crashes last: $last"
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
exit 0
}
