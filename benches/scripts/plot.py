#!/usr/bin/env python3
"""Plots throughput against the number of games, one line per engine, from
benches/results.json (written by the throughput binary) into
docs/performance.svg. Python standard library only.

    python3 benches/scripts/plot.py [results.json] [out.svg] [clingo-report.json ...]

Clingo reports are the JSON objects benches/compare-clingo.sh prints (saved
to target/clingo/report-N.json); each adds a point to a "clingo" line.
"""

import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

COLORS = {
    "plain": "#222222",
    "generated-all": "#1f77b4",
    "generated-1t": "#6baed6",
    "direct-all": "#ff7f0e",
    "direct-1t": "#fdae6b",
    "strict-1t": "#2ca02c",
    "uncontested-1t": "#98df8a",
    "interpreter": "#d62728",
    "clingo": "#9467bd",
}


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fmt_rate(r):
    if r >= 1e6:
        return f"{r / 1e6:g}M"
    if r >= 1e3:
        return f"{r / 1e3:g}k"
    return f"{r:g}"


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "benches", "results.json")
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "performance.svg")
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    labels = {e["id"]: e["label"] for e in doc["engines"]}
    series = {}
    for r in doc["results"]:
        series.setdefault(r["engine"], []).append((r["n"], r["cases_per_s"]))
    for path in sys.argv[3:]:
        with open(path, encoding="utf-8") as f:
            rep = json.load(f)
        if rep.get("games_per_s"):
            series.setdefault("clingo", []).append((rep["games"], rep["games_per_s"]))
            labels["clingo"] = f"{rep['engine']} (ASP, ground + solve)"
    for s in series.values():
        s.sort()

    ns = [n for s in series.values() for n, _ in s]
    rates = [r for s in series.values() for _, r in s]
    xmin, xmax = math.log10(min(ns)), math.log10(max(ns))
    if xmax - xmin < 1:
        xmax = xmin + 1
    ymin = math.floor(math.log10(min(rates)))
    ymax = math.ceil(math.log10(max(rates)))
    W, H = 760, 460
    left, right, top, bottom = 80, 300, 40, 60
    pw, ph = W - left - right, H - top - bottom

    def x(n):
        return left + (math.log10(n) - xmin) / (xmax - xmin) * pw

    def y(r):
        return top + (ymax - math.log10(r)) / (ymax - ymin) * ph

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{left}" y="22" font-size="14" font-weight="bold">'
        f"{esc(doc['package'])}: games per second against games per run</text>",
    ]
    for e in range(ymin, ymax + 1):
        yy = y(10**e)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" stroke="#ddd"/>')
        out.append(
            f'<text x="{left - 8}" y="{yy + 4:.1f}" text-anchor="end">{fmt_rate(10**e)}/s</text>'
        )
    for n in sorted(set(ns)):
        xx = x(n)
        out.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{top + ph}" stroke="#eee"/>')
        out.append(
            f'<text x="{xx:.1f}" y="{top + ph + 18}" text-anchor="middle">{fmt_rate(n)}</text>'
        )
    out.append(
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>'
    )
    out.append(
        f'<text x="{left + pw / 2}" y="{H - 18}" text-anchor="middle">games per run (log scale)</text>'
    )
    out.append(
        f'<text x="18" y="{top + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {top + ph / 2})">games per second (log scale)</text>'
    )
    order = ["plain", "direct-all", "direct-1t", "generated-all", "generated-1t", "uncontested-1t", "strict-1t", "interpreter", "clingo"]
    ly = top + 10
    for eng in sorted(series, key=lambda e: order.index(e) if e in order else 99):
        pts = series[eng]
        color = COLORS.get(eng, "#ff7f0e")
        path = " ".join(f"{x(n):.1f},{y(r):.1f}" for n, r in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for n, r in pts:
            out.append(f'<circle cx="{x(n):.1f}" cy="{y(r):.1f}" r="3.5" fill="{color}">'
                       f"<title>{esc(eng)} at {n}: {r:,.0f} games/s</title></circle>")
        lx = left + pw + 16
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 22}" y2="{ly}" stroke="{color}" stroke-width="2"/>')
        label = labels.get(eng, eng)
        # Wrap long labels at about 36 characters.
        words, lines, cur = label.split(), [], ""
        for w in words:
            if len(cur) + len(w) + 1 > 36 and cur:
                lines.append(cur)
                cur = w
            else:
                cur = f"{cur} {w}".strip()
        lines.append(cur)
        for i, line in enumerate(lines):
            out.append(f'<text x="{lx + 28}" y="{ly + 4 + 14 * i}">{esc(line)}</text>')
        ly += 14 * len(lines) + 10
    machine = doc.get("machine", {})
    out.append(
        f'<text x="{left}" y="{H - 2}" font-size="10" fill="#666">'
        f"{esc(str(machine.get('cpu', '')))}, {machine.get('threads_available', '?')} threads; "
        f"load before/after: {esc(doc.get('load_before', ''))} / {esc(doc.get('load_after', ''))}</text>"
    )
    out.append("</svg>")
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {os.path.relpath(dst, ROOT)}")


if __name__ == "__main__":
    main()
