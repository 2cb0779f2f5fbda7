#!/usr/bin/env python3
"""Writes the two variants of the chess package that measure what the
defeasible overlay costs:

* benches/fide.laws.chess-strict.ir.json: the package with its one priority
  removed and its two defeasible rules made strict, as the overlay-cost comparison needs. Note
  that `~game_drawn` still has a (now strict) rule, so `game_drawn` stays
  contested and lawgen still lowers it with the conflict overlay.
* benches/fide.laws.chess-uncontested.ir.json: as above, and the rule for
  `~game_drawn` (CheckmateTakesPrecedenceOverSeventyFive) removed too, so no
  predicate is contested and no overlay is needed at all: the floor.

Every node keeps its id; the edited rule nodes get a recomputed `contentHash`
(docs/reference.md#integrity: sha256 of the node without `contentHash`, compact JSON,
sorted keys, ensure_ascii=False).

    python3 benches/scripts/make_strict_variant.py
"""

import hashlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SRC = os.path.join(ROOT, "packages", "fide.laws.chess", "fide.laws.chess-0.1.0.ir.json")
OUT = os.path.join(ROOT, "benches")
NEGATIVE_RULE = "urn:fide:laws:clir:chess#CheckmateTakesPrecedenceOverSeventyFive"


def content_hash(node):
    body = {k: v for k, v in node.items() if k != "contentHash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def variant(pkg, drop_negative_rule):
    nodes = []
    dropped = made_strict = 0
    for n in pkg["nodes"]:
        if n["kind"] == "priority_rule":
            dropped += 1
            continue
        if drop_negative_rule and n["id"] == NEGATIVE_RULE:
            dropped += 1
            continue
        if n["kind"] == "rule" and n.get("strength") != "strict":
            n = dict(n, strength="strict")
            n["contentHash"] = content_hash(n)
            made_strict += 1
        nodes.append(n)
    assert made_strict == (1 if drop_negative_rule else 2), made_strict
    return dict(pkg, nodes=nodes), dropped, made_strict


def main():
    with open(SRC, encoding="utf-8") as f:
        pkg = json.load(f)
    for n in pkg["nodes"]:
        assert n.get("contentHash") == content_hash(n), f"source node {n['id']} does not verify"
    for name, drop in (("strict", False), ("uncontested", True)):
        out, dropped, made_strict = variant(pkg, drop)
        dst = os.path.join(OUT, f"fide.laws.chess-{name}.ir.json")
        with open(dst, "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {os.path.relpath(dst, ROOT)}: {dropped} nodes dropped, {made_strict} rules made strict")


if __name__ == "__main__":
    main()
