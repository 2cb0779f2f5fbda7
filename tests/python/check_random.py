"""Checks one random package's Python module against `lawgen eval`.

    python check_random.py MODULE DATA_DIR

DATA_DIR holds facts-<k>.json and expected-<k>-<policy>.json (the canonical
output lawgen's interpreter prints for those facts). For every facts file and
both policies: evaluate_json is byte-equal to the expected text, evaluate and
evaluate_many equal it parsed, and the same cases through the Arrow layout
(evaluate_arrow) give the same outputs. Prints each mismatch; exits 1 if any.
"""

import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layout import facts_to_batch, has_rows, verdicts_to_outputs  # noqa: E402


def main():
    module, data = sys.argv[1], Path(sys.argv[2])
    m = importlib.import_module(module)
    files = sorted(data.glob("facts-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    failures = []
    checked = 0
    for policy in ["blocking", "propagating"]:
        texts = [f.read_text() for f in files]
        want = [(data / f"expected-{f.stem.split('-')[1]}-{policy}.json").read_text() for f in files]
        for f, t, w in zip(files, texts, want):
            got = m.evaluate_json(t, policy)
            if got != w:
                failures.append(f"{module} {f.name} {policy}: evaluate_json differs\n--- expected\n{w}--- got\n{got}")
            checked += 1
        parsed = [json.loads(w) for w in want]
        if m.evaluate_many(texts, policy, threads=2) != parsed:
            failures.append(f"{module} {policy}: evaluate_many differs")
        cases = [json.loads(t) for t in texts]
        batch = facts_to_batch(cases, m.ARITY)
        got = verdicts_to_outputs(m.evaluate_arrow(batch, policy, threads=2, include_empirical=True))
        present = [i for i, c in enumerate(cases) if has_rows(c)]
        if sorted(got) != present:
            failures.append(f"{module} {policy}: evaluate_arrow gave cases {sorted(got)}, not {present}")
        for i, (f, w) in enumerate(zip(files, parsed)):
            g = got.get(i)
            if i in present and g != w:
                failures.append(f"{module} {f.name} {policy}: evaluate_arrow differs\nexpected {w}\ngot      {g}")
    for f in failures:
        print(f)
    print(f"{module}: {checked} outputs, {len(failures)} mismatches")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
