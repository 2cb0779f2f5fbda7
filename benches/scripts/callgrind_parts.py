#!/usr/bin/env python3
"""Instructions per game by part, from callgrind output files.

    valgrind --tool=callgrind --callgrind-out-file=cg.direct.out \
        --toggle-collect='lawgen_benches::engines::generated_direct' \
        target/release/throughput --child direct-1t 5000
    python3 benches/scripts/callgrind_parts.py --games 15000 cg.direct.out [more.out ...]

`--games` is the number of games the collected part evaluated (the child
times three runs: 3 x N). Each function's self instructions (as
`callgrind_annotate` prints them) go to the first part whose pattern its
name matches; the table has one column per file.
"""

import argparse
import re
import subprocess

# (part, pattern over "file:function"), first match wins.
PARTS = [
    ("clearing tables, counts", r"Tables::clear|concluded_counts"),
    ("rules (the engine)", r"__engine::|::ascent::|ascent::|hashbrown|lawgen_runtime::engines::(ascent|direct::Table<T>::(insert|contains|want|matching|grow|slow))|ds::"),
    ("interner", r"interner::|memcmp|constant_id|scan_hash|hash_one|sip"),
    ("malloc, free, memcpy", r"malloc|free|memmove|memcpy|memset|__rdl_|__rust_|drop_slow|drop_in_place|RawVec|raw_vec|finish_grow|do_reserve|pool::|unlink_chunk|Arc<"),
    ("loading rows, contradictions, outputs", r"evaluate_batch|plain_set|Table<T>::meets|ByCase|push_rows|push_empty|dedup|sort|Input::|first_contradiction|CaseRows|Gather|gather_columns|normalize|check"),
    ("building the facts (adapter, typed API)", r"cases::|engines::|ChessCase|plain::add|Case::|Facts::|fill_cases|run_ranges|run_indexed|run_batched|from_iter|in_place_collect"),
]


def functions(path):
    out = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--inclusive=no", path],
        capture_output=True, text=True, check=True).stdout
    rows = []
    total = None
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(\([^)]*\))?\s*(.*)$", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        name = m.group(3)
        if "PROGRAM TOTALS" in name:
            total = n
            continue
        if ":" in name or "???" in name:
            rows.append((n, name))
    return total, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--top", type=int, default=0, help="also list the top N functions")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    cols = []
    for f in a.files:
        total, rows = functions(f)
        parts = {p: 0 for p, _ in PARTS}
        parts["other"] = 0
        for n, name in rows:
            for p, pat in PARTS:
                if re.search(pat, name):
                    parts[p] += n
                    break
            else:
                parts["other"] += n
        cols.append((f, total, parts, rows))
    names = [p for p, _ in PARTS] + ["other"]
    print("| part | " + " | ".join(f for f, *_ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for p in names:
        cells = []
        for _, total, parts, _ in cols:
            cells.append(f"{parts[p] / a.games:,.0f} ({100 * parts[p] / total:.0f}%)")
        print(f"| {p} | " + " | ".join(cells) + " |")
    print("| **total** | " + " | ".join(f"**{t / a.games:,.0f}**" for _, t, _, _ in cols) + " |")
    if a.top:
        for f, total, _, rows in cols:
            print(f"\n{f}:")
            for n, name in sorted(rows, reverse=True)[: a.top]:
                print(f"  {n / a.games:9,.0f}  {name[:140]}")


if __name__ == "__main__":
    main()
