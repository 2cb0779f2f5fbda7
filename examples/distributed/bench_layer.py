"""What the Python/Arrow layer costs (docs/performance.md, "Python and Arrow").

    python bench_layer.py --cases N [--throughput PATH] [--cases-bin PATH]

Times, on one thread and the same N games (chess_cases.py, the bench
generator's games): `evaluate_arrow` of one facts batch (institutional
verdicts, and with include_empirical=True), `evaluate_many` of the games' facts
files (docs/reference.md#facts-files) (from the `cases` binary), and, with --throughput, the Rust
bench binary's generated-code engine on 1 thread (typed facts, the engine,
concluded counts). Each figure is the median of 3 runs, in wall and in CPU
seconds (the machine may be shared: CPU time is what a run cost); prints a
markdown table and the load average.
"""

import argparse
import json
import os
import statistics
import subprocess
import time

import chess_cases
import fide_laws_chess as chess


def median_time(f, runs=3):
    """Median wall seconds and median CPU seconds (of the whole process) of `runs` calls."""
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        f()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--throughput", help="target/release/throughput of lawgen-benches")
    ap.add_argument("--cases-bin", help="target/release/cases of lawgen-benches")
    a = ap.parse_args()
    n = a.cases
    load = os.getloadavg()
    batch = chess_cases.partition(chess_cases.SEED, 0, n)
    rows = []
    t = median_time(lambda: chess.evaluate_arrow(batch, threads=1))
    out = chess.evaluate_arrow(batch, threads=1)
    rows.append(("Python, evaluate_arrow (institutional verdicts)", t, out.num_rows))
    t = median_time(lambda: chess.evaluate_arrow(batch, threads=1, include_empirical=True))
    out = chess.evaluate_arrow(batch, threads=1, include_empirical=True)
    rows.append(("Python, evaluate_arrow, include_empirical=True", t, out.num_rows))
    if a.cases_bin:
        texts = subprocess.run([a.cases_bin, str(n)], capture_output=True, text=True, check=True).stdout.splitlines()
        t = median_time(lambda: chess.evaluate_many(texts, threads=1))
        rows.append(("Python, evaluate_many of docs/reference.md#facts-files JSON (dicts out)", t, None))
    if a.throughput:
        r = subprocess.run([a.throughput, "--child", "generated-1t", str(n)], capture_output=True, text=True, check=True)
        v = json.loads(r.stdout)
        rows.append(
            (
                "Rust, generated code (typed facts, engine, counts)",
                (v["median_s"], statistics.median(v["cpu_s"])),
                None,
            )
        )
    after = os.getloadavg()
    base = rows[-1][1][1] if a.throughput else None
    print(f"| {n:,} games, 1 thread | wall s | CPU s | games per CPU-second | verdict rows | CPU time vs Rust |")
    print("|---|---|---|---|---|---|")
    for name, (wall, cpu), nrows in rows:
        ratio = f"{cpu / base:.2f}×" if base else "—"
        shown = f"{nrows:,}" if nrows is not None else "—"
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {n / cpu:,.0f} | {shown} | {ratio} |")
    print(f"\nload average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")


if __name__ == "__main__":
    main()
