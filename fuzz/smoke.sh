#!/usr/bin/env bash
# Smoke run of every fuzz target: build them, then run each for N seconds
# (default 20), two at a time. Fails on the first crash, timeout or OOM (the
# input is left under fuzz/artifacts/<target>/).
#
#   fuzz/smoke.sh [SECONDS]
#
# FUZZ_TARGET_DIR=dir builds into dir instead of fuzz/target.
#
# Needs a nightly toolchain and cargo-fuzz:
#   rustup toolchain install nightly && cargo install cargo-fuzz --locked
# Targets are built without a sanitizer (`-s none`): lawgen has no `unsafe`,
# so the sanitizer would only slow the run; debug assertions and overflow
# checks stay on (cargo-fuzz's default).
set -euo pipefail
secs="${1:-20}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
targets=(package facts package_structured emit)
dir_args=()
if [[ -n "${FUZZ_TARGET_DIR:-}" ]]; then
  dir_args=(--target-dir "$FUZZ_TARGET_DIR")
fi

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "smoke.sh: needs 'cargo +nightly fuzz' (rustup toolchain install nightly; cargo install cargo-fuzz)" >&2
  exit 2
fi

start=$(date +%s)
cargo +nightly fuzz build -s none "${dir_args[@]}"
built=$(date +%s)
echo "smoke.sh: build took $((built - start)) s"

# A fresh corpus of the seeds only, so the run time does not grow with
# whatever fuzz/corpus/ has accumulated.
corpus=target/smoke-corpus
rm -rf "$corpus"
./seed-corpus.sh "$corpus"
mkdir -p target/smoke-logs
run() {
  local t=$1
  local extra=()
  case $t in
    # A recipe of up to 8 mutations: let inputs grow at once.
    package_structured | emit) extra=(-max_len=512 -len_control=0) ;;
    package) extra=(-dict=dict/package.dict) ;;
    facts) extra=(-dict=dict/facts.dict) ;;
  esac
  mkdir -p "artifacts/$t"
  if cargo +nightly fuzz run -s none "${dir_args[@]}" "$t" "$corpus/$t" -- \
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
