"""Offline check of the translation: hashes verify and every reference resolves.

    python tests/conformance/check_examples.py [PACKAGE.json ...]

With no arguments: the seed package (all 140 nodes must verify, proving the hash rule is
implemented as docs/reference.md#a-package states it) and every examples/*/package.ir.json (+ facts.json).
Needs only the standard library.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
SEED = HERE.parents[1] / "packages" / "fide.laws.chess" / "fide.laws.chess-0.1.0.ir.json"
INTEGER = "urn:law:std#Integer"


def node_hash(node: dict[str, Any]) -> str:
    body = {k: v for k, v in node.items() if k != "contentHash"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def walk(v: Any) -> Iterator[dict[str, Any]]:
    if isinstance(v, dict):
        yield v
        for x in v.values():
            yield from walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)


def check_package(path: Path, facts_path: Path | None) -> list[str]:
    pkg = json.loads(path.read_text(encoding="utf-8"))
    errs: list[str] = []
    nodes = pkg["nodes"]
    by_id = {n["id"]: n for n in nodes}
    if len(by_id) != len(nodes):
        errs.append("duplicate node ids")
    kinds = {i: n["kind"] for i, n in by_id.items()}

    def need(ref: str, kind: str | tuple[str, ...], where: str) -> None:
        ks = (kind,) if isinstance(kind, str) else kind
        if ref == INTEGER and "type_decl" in ks:
            return
        if kinds.get(ref) not in ks:
            errs.append(f"{where}: {ref!r} does not resolve to a {'/'.join(ks)}")

    ok = 0
    for n in nodes:
        if n.get("contentHash") == node_hash(n):
            ok += 1
        else:
            errs.append(f"{n['id']}: contentHash does not verify")
        nid = n["id"]
        if n["kind"] == "fragment":
            need(n["edition"], "source_edition", nid)
            for t in n["texts"]:
                if t["contentHash"] != "sha256:" + hashlib.sha256(t["text"].encode("utf-8")).hexdigest():
                    errs.append(f"{nid}: text contentHash does not verify")
        if n["kind"] == "source_edition":
            need(n["work"], "source_work", nid)
        if n["kind"] == "symbol_decl":
            for p in n.get("parameters", []):
                need(p["type"]["name"], "type_decl", nid)
            if n["symbolKind"] == "constant":
                need(n["returnType"]["name"], "type_decl", nid)
        if n["kind"] in ("rule", "priority_rule"):
            for a in n.get("anchors", []):
                need(a, "fragment", nid)
        if n["kind"] == "priority_rule":
            need(n["higher"]["id"], "rule", nid)
            need(n["lower"]["id"], "rule", nid)
        if n["kind"] == "rule":
            declared = {v["id"] for v in n["variables"]}
            for v in n["variables"]:
                need(v["type"]["name"], "type_decl", nid)
            for d in walk([n["head"], n["body"]]):
                if d.get("kind") == "literal":
                    need(d["predicate"], "symbol_decl", nid)
                    decl = by_id.get(d["predicate"], {})
                    if len(decl.get("parameters", [])) != len(d["args"]):
                        errs.append(f"{nid}: arity of {d['predicate']} differs from its declaration")
                elif d.get("kind") == "var" and d["var"] not in declared:
                    errs.append(f"{nid}: variable {d['var']} is not declared")
                elif d.get("kind") == "value":
                    need(d["type"]["name"], "type_decl", nid)
                elif d.get("kind") == "const_ref":
                    need(d["id"], "symbol_decl", nid)
            head_pred = by_id.get(n["head"]["predicate"], {})
            if head_pred.get("relationKind") != "institutional":
                errs.append(f"{nid}: head predicate is not institutional")
    if facts_path is not None and facts_path.exists():
        facts = json.loads(facts_path.read_text(encoding="utf-8"))
        local = {i.split("#", 1)[1]: n for i, n in by_id.items() if n["kind"] == "symbol_decl"}
        for key, rows in facts["facts"].items():
            decl = local.get(key.lstrip("~"))
            if decl is None:
                errs.append(f"facts: {key!r} names no predicate")
                continue
            if decl.get("relationKind") not in ("empirical", "judgment"):
                errs.append(f"facts: {key!r} is {decl.get('relationKind')}")
            types = [p["type"]["name"] for p in decl["parameters"]]
            for row in rows:
                if len(row) != len(types) or any(
                    (t == INTEGER) != isinstance(v, int) for v, t in zip(row, types)
                ):
                    errs.append(f"facts: {key} row {row} does not fit {types}")
    print(f"{path}: {ok}/{len(nodes)} node hashes verify, {len(errs)} problem(s)")
    return errs


def main(argv: list[str]) -> int:
    targets: list[tuple[Path, Path | None]] = []
    if argv:
        targets = [(Path(a), Path(a).with_name("facts.json")) for a in argv]
    else:
        if SEED.exists():
            targets.append((SEED, None))
        targets += [(p, p.with_name("facts.json")) for p in sorted((HERE / "examples").glob("*/package.ir.json"))]
    bad = 0
    for pkg, facts in targets:
        errs = check_package(pkg, facts)
        for e in errs[:20]:
            print("   ", e)
        bad += bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
