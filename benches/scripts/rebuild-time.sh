#!/usr/bin/env bash
# Times the release rebuild of the chess example (examples/chess-arbiter, which
# compiles the package from build.rs) after a real package change, as the rebuild target
# asks ("incremental rebuild ... after a package change").
#
# The change: the threshold of SeventyFiveAutomaticDraw (`moves >= 75`) is
# toggled between 75 and 76 and the rule's contentHash recomputed, so the
# package stays valid and the generated engine differs. The package file is
# restored on exit, whatever happens.
#
#   benches/scripts/rebuild-time.sh [ROUNDS]     (default 3; prints each round and the medians)
#   LAWGEN_ENGINE=ascent benches/scripts/rebuild-time.sh
#       (the chess package compiled by the Ascent engine: the example with its
#       `ascent` feature; without it, the example's default, both packages by
#       the Direct engine)
#   LAWGEN_REBUILD_CRATE=single benches/scripts/rebuild-time.sh
#       (instead of the example, which also compiles the Russian package that
#       imports the chess package, a library crate under target/ whose build.rs
#       compiles the chess package alone, as a user's crate would: a workspace
#       of its own, so cargo's default release profile, not this workspace's)
#
# Wall and CPU (user + sys) seconds per round, and the load average before and
# after. Run it on a quiet machine: the build uses both cores, and other load
# shows up one for one in wall time (CPU seconds are the steadier figure).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
pkg=packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json
backup="$(mktemp)"
cp "$pkg" "$backup"
trap 'cp "$backup" "$pkg"; rm -f "$backup" "$backup.time"' EXIT

toggle() {
  python3 - "$pkg" <<'EOF'
import hashlib, json, sys
path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    pkg = json.load(f)
RULE = "urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw"
def walk(x):
    if isinstance(x, dict):
        if x.get("kind") == "comparison" and x.get("op") == "ge":
            v = x["right"].get("value")
            if v in (75, 76):
                x["right"]["value"] = 151 - v
                return True
        return any(walk(v) for v in x.values())
    if isinstance(x, list):
        return any(walk(v) for v in x)
    return False
for n in pkg["nodes"]:
    if n["id"] == RULE:
        assert walk(n["body"]), "the 75-move comparison is gone"
        body = {k: v for k, v in n.items() if k != "contentHash"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        n["contentHash"] = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
        break
else:
    sys.exit(f"{RULE} not found")
with open(path, "w", encoding="utf-8") as f:
    json.dump(pkg, f, ensure_ascii=False, separators=(",", ":"))
EOF
}

engine="${LAWGEN_ENGINE:-direct}"
case "$engine" in
  direct) features=() ;;
  ascent) features=(--features ascent) ;;
  *) echo "LAWGEN_ENGINE must be direct or ascent, not \`$engine'" >&2; exit 2 ;;
esac
build=(cargo build --release -p chess-arbiter "${features[@]}")
what="the chess example"
if [ "${LAWGEN_REBUILD_CRATE:-example}" = single ]; then
  root="$PWD"
  probe="${CARGO_TARGET_DIR:-$root/target}/rebuild-probe"
  mkdir -p "$probe/src"
  if [ "$engine" = ascent ]; then
    deps='lawgen-runtime = { path = "'"$root"'/lawgen-runtime" }
ascent = { version = "=0.8.1", default-features = false }'
    rust_engine=Ascent
  else
    deps='lawgen-runtime = { path = "'"$root"'/lawgen-runtime", default-features = false, features = ["serde", "explain"] }'
    rust_engine=Direct
  fi
  cat >"$probe/Cargo.toml" <<TOML
[package]
name = "rebuild-probe"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$deps

[build-dependencies]
lawgen = { path = "$root/lawgen", default-features = false, features = ["emit"] }

[workspace]
TOML
  cat >"$probe/build.rs" <<RUST
fn main() -> Result<(), lawgen::BuildError> {
    lawgen::Builder::new()
        .package(lawgen::Package::new("$root/$pkg").engine(lawgen::Engine::$rust_engine))
        .compile()?;
    Ok(())
}
RUST
  # A library: every public item of the module is compiled, as in the example.
  echo 'lawgen_runtime::include_package!(fide_laws_chess);' >"$probe/src/lib.rs"
  build=(cargo build --release --manifest-path "$probe/Cargo.toml")
  what="a crate compiling the chess package alone"
fi

echo "warming up: ${build[*]}" >&2
"${build[@]}" >/dev/null 2>&1
echo "load before: $(uptime)"
walls=()
cpus=()
for i in $(seq 1 "$rounds"); do
  toggle
  /usr/bin/time -o "$backup.time" -f '%e %U %S' "${build[@]}" >/dev/null 2>&1
  read -r wall user sys <"$backup.time"
  cpu=$(python3 -c "print(round($user + $sys, 2))")
  echo "round $i: ${wall} s wall, ${cpu} s CPU"
  walls+=("$wall")
  cpus+=("$cpu")
done
echo "load after: $(uptime)"
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "median of $rounds rebuilds of $what (engine $engine): $(median "${walls[@]}") s wall, $(median "${cpus[@]}") s CPU"
# Rebuild once more with the original package, so the tree builds what it holds.
cp "$backup" "$pkg"
"${build[@]}" >/dev/null 2>&1 || true
