"""Print pass/fail/skip counts (overall and per test function) from a pytest junit XML."""

from __future__ import annotations

import collections
import sys
import xml.etree.ElementTree as ET


def main(path: str) -> int:
    root = ET.parse(path).getroot()
    per: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    reasons: collections.Counter[str] = collections.Counter()
    failed: list[str] = []
    for tc in root.iter("testcase"):
        fn = tc.get("name", "").split("[", 1)[0]
        if tc.find("skipped") is not None:
            outcome = "skipped"
            msg = tc.find("skipped").get("message", "")  # type: ignore[union-attr]
            reasons[msg.split(" (", 1)[0]] += 1
        elif tc.find("failure") is not None or tc.find("error") is not None:
            outcome = "failed"
            failed.append(tc.get("name", ""))
        else:
            outcome = "passed"
        per[fn][outcome] += 1
    total: collections.Counter[str] = collections.Counter()
    for fn, c in sorted(per.items()):
        total.update(c)
        print(f"  {fn}: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped")
    print("skip reasons:")
    for r, n in reasons.most_common():
        print(f"  {n:4d}  {r}")
    if failed:
        print("failed:")
        for name in failed:
            print(f"  {name}")
    print(f"conformance: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
