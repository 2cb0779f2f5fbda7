#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, the Rust test suites, and
# the Python modules (scripts/test-python.sh), and the external
# datalog-conformance suite against `lawgen eval`.
# Set-up-free: it installs what it needs (a Python venv under target/) itself.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
last=$SECONDS
# Each step's heading says how long the previous one took, in wall-clock and
# in CPU seconds (user + system of everything it ran: the robust figure on a
# shared machine), and the summary at the end lists every step (CI must stay
# well under 30 minutes on 2 cores; this is where to look when it does not).
mkdir -p target/test-all
cpu_file=target/test-all/times
CPU=0
cpu_now() { # CPU <- CPU seconds of every child that has finished so far
  times >"$cpu_file" # `times` in this shell: a subshell would count none
  CPU=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
    printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$cpu_file")
}
last_cpu=0
current=""
names=()
walls=()
cpus=()
close_step() {
  cpu_now
  if [ -n "$current" ]; then
    names+=("$current")
    walls+=($((SECONDS - last)))
    cpus+=($((CPU - last_cpu)))
  fi
  last=$SECONDS
  last_cpu=$CPU
}
step() {
  close_step
  local n=${#names[@]} wall=0 cpu=0
  if [ "$n" -gt 0 ]; then
    wall=${walls[n - 1]}
    cpu=${cpus[n - 1]}
  fi
  printf '\n==> [%ds, previous step %ds wall, %ds CPU; %s free on disk] %s\n' $((SECONDS - start)) "$wall" "$cpu" \
    "$(disk_free)" "$*"
  current="$*"
}
# The disk the build writes to: the test suites build hundreds of generated
# crates, and a full disk fails them in ways that look like compiler bugs.
disk_free() { df -h --output=avail target 2>/dev/null | tail -1 | tr -d ' '; }
summary() {
  close_step
  current=""
  printf '\n==> total %ds wall, %ds CPU (load average now: %s; target/ holds %s, %s free on disk)\n' \
    $((SECONDS - start)) "$CPU" "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" \
    "$(du -sh target 2>/dev/null | cut -f1)" "$(disk_free)"
  for i in "${!names[@]}"; do
    printf '%6ds %6ds CPU  %s\n' "${walls[$i]}" "${cpus[$i]}" "${names[$i]}"
  done
}
trap summary EXIT

# The test binaries of `cargo test` that took a second or more, slowest
# first, from its output (cargo prints which binary runs, libtest how long).
suite_times() {
  awk '/^ *(Running|Doc-tests) / { name = $0; sub(/^ *(Running )?/, "", name)
         sub(/ \(.*\/deps\//, " (", name); sub(/-[0-9a-f]+\)$/, ")", name) }
       /^test result:/ && name != "" && match($0, /finished in [0-9.]+s/) {
         t = substr($0, RSTART + 12, RLENGTH - 13); if (t >= 1) printf "%8.1fs  %s\n", t, name; name = "" }' "$1" |
    sort -rn
}

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets -- -D warnings

step "the walls: the library without any tool, and the bench child without the command (ARCHITECTURE.md#walls)"
# What a build script compiles (no `internals`, so no tool reaches the
# stages): it builds, and none of the stages' code is dead without the
# command. Then lawgen-cli as the crates `lawgen bench` compiles link it,
# the command without its tests (which alone enable `internals`), and the
# decision service on its own: in the workspace build a feature another
# member enables could hide that it needs `internals`.
# The walls between modules are lawgen/tests/tidy.rs, run by cargo test.
cargo clippy -p lawgen --no-default-features --features emit -- -D warnings
cargo clippy -p lawgen-cli --no-default-features --features bench -- -D warnings
cargo clippy -p lawgen-cli -- -D warnings
cargo clippy -p lawgen-serve -- -D warnings

step "cargo test --no-run (build every test binary of the workspace)"
cargo test --workspace --no-run

step "cargo test (unit, ui diagnostics, chess scenarios, explanations)"
cargo test --workspace 2>&1 | tee target/test-all/cargo-test.log
echo "==> cargo test: test binaries taking a second or more (wall time)"
suite_times target/test-all/cargo-test.log

step "reference examples: every command docs/reference.md quotes, as committed"
bash docs/examples/check.sh

step "scenario suites through lawgen test, every rule covered (docs/testing.md#scenario-suites-lawgen-test)"
cargo run -q -p lawgen-cli -- test tests/scenarios/chess --min-coverage 100
cargo run -q -p lawgen-cli -- test tests/scenarios/ru --min-coverage 100
cargo run -q -p lawgen-cli -- test tests/scenarios/chess-history --min-coverage 100

step "review pages in headless Chromium (scripts/test-doc-browser.sh)"
# Every committed packages/*/NAME.review.*.html: no request, no console
# error, every link lands, every node and article on the page, axe-core.
bash scripts/test-doc-browser.sh

step "Python modules and the distributed example (scripts/test-python.sh)"
# A venv under target/ and the chess module built by pip (release); the
# module's first build is most of this step's time.
bash scripts/test-python.sh

step "fuzz smoke: every cargo-fuzz target for 10 s (fuzz/smoke.sh)"
# cargo-fuzz from crates.io when missing; the targets build on stable (no
# sanitizer), unoptimized (FUZZ_DEV) since they run for seconds.
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version 0.13.2
fi
FUZZ_DEV=1 FUZZ_TARGET_DIR="$PWD/target/fuzz-smoke" bash fuzz/smoke.sh 10

step "external conformance suite (datalog-conformance 0.1.0)"
cargo build -p lawgen-cli
# run.sh exits non-zero when any case fails; the gate decides: >= 95% of the
# in-scope cases pass and every failure is a documented, reasoned one.
bash tests/conformance/run.sh || true
python3 scripts/conformance-gate.py target/conformance/junit.xml docs/conformance.md
