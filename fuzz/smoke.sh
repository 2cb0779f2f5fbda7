#!/usr/bin/env bash
# Smoke run of every fuzz target: build them, then run each for N seconds
# (default 20), two at a time. Fails on the first crash, timeout or OOM (the
# input is left under fuzz/artifacts/<target>/).
#
#   fuzz/smoke.sh [SECONDS]
#
# FUZZ_TARGET_DIR=dir builds into dir instead of fuzz/target.
# FUZZ_DEV=1 builds without optimizations (`cargo fuzz build --dev`): a much
# shorter build for a run of seconds (CI uses it).
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). A nightly toolchain
# is used when there is one; without it the stable toolchain builds the
# targets too (no sanitizer is asked for, so no unstable flag is needed).
# Targets are built without a sanitizer (`-s none`): lawgen has no `unsafe`,
# so the sanitizer would only slow the run; debug assertions and overflow
# checks stay on (cargo-fuzz's default).
set -euo pipefail
secs="${1:-20}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
targets=(package facts package_structured emit text imports arrow expected analyze doc)
dir_args=()
if [[ -n "${FUZZ_TARGET_DIR:-}" ]]; then
  dir_args=(--target-dir "$FUZZ_TARGET_DIR")
fi

# Only an installed nightly (asking rustup for a missing one may download it).
fuzz=(cargo fuzz)
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
fi
if ! "${fuzz[@]}" --version >/dev/null 2>&1; then
  echo "smoke.sh: needs cargo-fuzz (cargo install cargo-fuzz --locked)" >&2
  exit 2
fi
if [[ -n "${FUZZ_DEV:-}" ]]; then
  dir_args+=(--dev)
fi

start=$(date +%s)
"${fuzz[@]}" build -s none "${dir_args[@]}"
built=$(date +%s)
echo "smoke.sh: build took $((built - start)) s"

# A fresh corpus of the seeds only, so the run time does not grow with
# whatever fuzz/corpus/ has accumulated.
corpus=target/smoke-corpus
rm -rf "$corpus"
./seed-corpus.sh "$corpus" >/dev/null
mkdir -p target/smoke-logs
run() {
  local t=$1
  local extra=()
  case $t in
    # A recipe of up to 8 mutations: let inputs grow at once.
    package_structured | emit | imports | arrow) extra=(-max_len=512 -len_control=0) ;;
    package | doc) extra=(-dict=dict/package.dict) ;;
    facts) extra=(-dict=dict/facts.dict) ;;
    text) extra=(-dict=dict/text.dict) ;;
  esac
  mkdir -p "artifacts/$t"
  if "${fuzz[@]}" run -s none "${dir_args[@]}" "$t" "$corpus/$t" -- \
      -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 "${extra[@]}" \
      > "target/smoke-logs/$t.log" 2>&1; then
    local last
    last=$(grep -E '^#[0-9]+' "target/smoke-logs/$t.log" | tail -n 1 || true)
    echo "smoke.sh: $t ok: $last"
  else
    echo "smoke.sh: $t FAILED; log:" >&2
    tail -n 60 "target/smoke-logs/$t.log" >&2
    return 1
  fi
}

status=0
# Two at a time.
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for t in "${targets[@]:i:2}"; do
    run "$t" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do
    wait "$p" || status=1
  done
done
echo "smoke.sh: total $(($(date +%s) - start)) s (build $((built - start)) s)"
exit $status
