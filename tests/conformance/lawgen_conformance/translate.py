"""Translate a suite program/theory into a law.core.ir/0.2 package plus a docs/reference.md#facts-files facts file.

See ../README.md ("Translation") for the rules in prose.  In short:

* one entity type ``Entity`` for all symbols, ``urn:law:std#Integer`` for integer columns;
  column types are inferred by unifying predicate columns through shared rule variables,
  comparisons and constants (a column class that mixes integers and strings becomes
  ``Entity`` and its integers are written as strings; they are mapped back on output);
* predicates with rules are ``institutional``; predicates with only facts (or nothing) are
  ``empirical``; a predicate with both gets an empirical twin ``p__input`` carrying the
  facts and strict bridge rules ``p(X..) :- p__input(X..)`` (and ``~p`` likewise);
* Datalog rules are ``strict``; theory rules keep their strength (strict / defeasible /
  defeater); superiority pairs become ``priority_rule`` nodes (``priorityKind: direct``);
* ``not a`` becomes ``{"kind":"not","item":{"kind":"status","status":"established",...}}``;
  comparisons become ``comparison`` items; string/integer constants become ``value`` terms.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .syntax import Atom, Comparison, Const, Naf, ParsedRule, Term, Var

NS = "urn:lawgen:conformance"
INTEGER = "urn:law:std#Integer"
ENTITY = f"{NS}#Entity"
WORK = f"{NS}#SUITE"
EDITION = f"{NS}#SUITE_0_1_0"
FRAGMENT = f"{NS}#CASE"
INPUT_SUFFIX = "__input"
SCOPE_TRUE = {"kind": "boolean", "value": True}


class Unsupported(ValueError):
    """The case uses something that cannot be written as a law.core.ir package."""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_hash(node: dict[str, Any]) -> str:
    body = {k: v for k, v in node.items() if k != "contentHash"}
    return "sha256:" + hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def with_hash(node: dict[str, Any]) -> dict[str, Any]:
    node = dict(node)
    node["contentHash"] = content_hash(node)
    return dict(sorted(node.items()))


def label(text: str) -> list[dict[str, str]]:
    return [{"language": "en", "status": "official", "text": text}]


@dataclass
class RuleSpec:
    rid: str
    strength: str  # strict | defeasible | defeater
    parsed: ParsedRule


@dataclass
class Translation:
    package: dict[str, Any]
    facts: dict[str, Any]
    col_types: dict[str, list[str]]  # predicate -> ["entity"|"int", ...]
    input_preds: set[str]
    back_map: dict[str, Any]  # entity string -> original non-string scalar (mixed columns)
    entity_domain: set[str]
    int_domain: set[int]
    has_naf: bool
    notes: list[str] = field(default_factory=list)


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[Any, Any] = {}
        self.kinds: dict[Any, set[str]] = {}

    def find(self, x: Any) -> Any:
        self.parent.setdefault(x, x)
        self.kinds.setdefault(x, set())
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: Any, b: Any) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
            self.kinds[ra] |= self.kinds.pop(rb, set())

    def constrain(self, x: Any, kind: str) -> None:
        self.kinds[self.find(x)].add(kind)

    def kind_of(self, x: Any) -> str:
        ks = self.kinds[self.find(x)]
        if ks == {"int"}:
            return "int"
        return "entity"

    def mixed(self, x: Any) -> bool:
        ks = self.kinds[self.find(x)]
        return len(ks) > 1


def _scalar_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "other"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "str"
    return "other"


def _base(key: str) -> tuple[str, bool]:
    return (key[1:], True) if key.startswith("~") else (key, False)


def _atoms_of(rule: ParsedRule) -> Iterable[Atom]:
    yield rule.head
    for it in rule.body:
        if isinstance(it, Atom):
            yield it
        elif isinstance(it, Naf):
            yield it.atom


def translate(
    case_name: str,
    facts: dict[str, Sequence[Sequence[Any]]],
    rules: list[RuleSpec],
    superiority: Sequence[tuple[str, str]] = (),
    description: str = "",
) -> Translation:
    notes: list[str] = []
    # 1. predicates and arities (first occurrence wins; lawgen reports any mismatch)
    arity: dict[str, int] = {}
    order: list[str] = []

    def see(pred: str, n: int) -> None:
        if pred not in arity:
            arity[pred] = n
            order.append(pred)

    for key, rows in facts.items():
        base, _ = _base(key)
        see(base, len(rows[0]) if rows else 0)
    for r in rules:
        for a in _atoms_of(r.parsed):
            see(a.predicate, len(a.args))
    derived = {r.parsed.head.predicate for r in rules}
    split = {_base(k)[0] for k, rows in facts.items() if rows} & derived
    for p in sorted(split):
        if p + INPUT_SUFFIX in arity:
            raise Unsupported(f"predicate name {p + INPUT_SUFFIX!r} is reserved by the adapter")

    # 2. column typing
    uf = _UnionFind()
    for key, rows in facts.items():
        base, _ = _base(key)
        for row in rows:
            for i, v in enumerate(row):
                uf.constrain(("col", base, i), _scalar_kind(v) if _scalar_kind(v) != "other" else "str")
    for ri, r in enumerate(rules):
        def pos(term: Term, key: Any) -> None:
            if isinstance(term, Var):
                uf.union(key, ("var", ri, term.name))
            else:
                uf.constrain(key, _scalar_kind(term.value))
        for a in _atoms_of(r.parsed):
            for i, t in enumerate(a.args):
                pos(t, ("col", a.predicate, i))
        for ci, it in enumerate(r.parsed.body):
            if isinstance(it, Comparison):
                key = ("cmp", ri, ci)
                pos(it.left, key)
                pos(it.right, key)
                if it.op in ("lt", "le", "gt", "ge"):
                    uf.constrain(key, "int")
    col_types: dict[str, list[str]] = {}
    for p in order:
        col_types[p] = [uf.kind_of(("col", p, i)) for i in range(arity[p])]
        for i in range(arity[p]):
            if uf.mixed(("col", p, i)):
                notes.append(f"column {p}/{i} mixes integers and symbols: typed Entity, integers written as strings")

    back_map: dict[str, Any] = {}
    entity_domain: set[str] = set()
    int_domain: set[int] = set()

    def fact_value(v: Any, kind: str) -> Any:
        if kind == "int":
            int_domain.add(v)
            return v
        s = v if isinstance(v, str) else (str(v).lower() if isinstance(v, bool) else str(v))
        if not isinstance(v, str):
            back_map[s] = v
        entity_domain.add(s)
        return s

    # 3. nodes
    nodes: list[dict[str, Any]] = []
    nodes.append({
        "id": ENTITY, "kind": "type_decl", "labels": label("an individual named in the test case"),
        "name": "Entity", "package": NS, "typeKind": "entity",
    })
    nodes.append({
        "authority": {"id": f"{NS}#datalog_conformance", "kind": "const_ref"},
        "id": WORK, "jurisdiction": {"id": f"{NS}#none", "kind": "const_ref"},
        "kind": "source_work", "labels": label("datalog-conformance 0.1.0 test corpus"),
        "number": "PyPI datalog-conformance==0.1.0", "package": NS,
        "sourceKind": f"{NS}#test_suite",
    })
    nodes.append({
        "id": EDITION, "kind": "source_edition", "labels": label("datalog-conformance 0.1.0"),
        "language": "en", "lifecycle": [{"extent": "2025-01-01", "status": "in_force"}],
        "materializationStatus": "PINNED_UNOFFICIAL_COPY", "officiality": "unofficial",
        "package": NS, "work": WORK,
    })
    frag_text = f"{case_name}: {description}".strip()
    nodes.append({
        "edition": EDITION, "fragmentKind": "test_case", "id": FRAGMENT, "kind": "fragment",
        "locator": f"case/{case_name}", "package": NS,
        "texts": [{
            "contentHash": "sha256:" + hashlib.sha256(frag_text.encode("utf-8")).hexdigest(),
            "language": "en", "status": "official", "text": frag_text,
        }],
    })

    def pred_id(p: str) -> str:
        return f"{NS}#{p}"

    def ty(kind: str) -> dict[str, str]:
        return {"name": INTEGER if kind == "int" else ENTITY}

    def relation(p: str, kind: str, types: list[str], text: str) -> dict[str, Any]:
        return {
            "id": pred_id(p), "kind": "symbol_decl", "labels": label(text), "name": p,
            "package": NS,
            "parameters": [
                {"id": f"{pred_id(p)}/arg/a{i}", "name": f"a{i}", "type": ty(t)}
                for i, t in enumerate(types)
            ],
            "relationKind": kind, "symbolKind": "relation",
        }

    for p in order:
        if p in split:
            nodes.append(relation(p, "institutional", col_types[p], f"{p} (derived)"))
            nodes.append(relation(p + INPUT_SUFFIX, "empirical", col_types[p], f"{p} (input facts)"))
        elif p in derived:
            nodes.append(relation(p, "institutional", col_types[p], f"{p} (derived)"))
        else:
            nodes.append(relation(p, "empirical", col_types[p], f"{p} (input facts)"))

    def literal(pred: str, negative: bool, args: list[dict[str, Any]]) -> dict[str, Any]:
        return {"args": args, "kind": "literal", "polarity": "negative" if negative else "positive",
                "predicate": pred_id(pred)}

    def status(lit: dict[str, Any]) -> dict[str, Any]:
        return {"formula": lit, "kind": "status", "status": "established"}

    def rule_node(rid: str, strength: str, head: dict[str, Any], items: list[dict[str, Any]],
                  variables: list[tuple[str, str]], text: str) -> dict[str, Any]:
        if len(items) == 1:
            body: dict[str, Any] = items[0]
        else:
            body = {"items": items, "kind": "and"}
        return {
            "anchors": [FRAGMENT], "body": body, "head": head, "id": rid,
            "interpretations": [], "kind": "rule", "labels": label(text), "package": NS,
            "scope": SCOPE_TRUE, "strength": strength,
            "variables": [{"id": v, "type": ty(k)} for v, k in variables],
        }

    # bridge rules for predicates with both facts and rules
    out_facts: dict[str, list[list[Any]]] = {}
    polarities: dict[str, set[bool]] = {}
    for key, rows in facts.items():
        if not rows:
            continue
        base, neg = _base(key)
        polarities.setdefault(base, set()).add(neg)
        types = col_types[base]
        target = ("~" if neg else "") + base + (INPUT_SUFFIX if base in split else "")
        conv = []
        for row in rows:
            conv.append([fact_value(v, types[i] if i < len(types) else "entity") for i, v in enumerate(row)])
        out_facts.setdefault(target, []).extend(conv)
    for p in order:
        if p not in split:
            continue
        for neg in sorted(polarities.get(p, set())):
            vs = [(f"v{i}", t) for i, t in enumerate(col_types[p])]
            args = [{"kind": "var", "var": v} for v, _ in vs]
            rid = f"{NS}#input/{p}" + ("/negative" if neg else "")
            nodes.append(rule_node(
                rid, "strict", literal(p, neg, args), [status(literal(p + INPUT_SUFFIX, neg, args))], vs,
                f"{'~' if neg else ''}{p} holds for every given {'~' if neg else ''}{p} fact (adapter bridge)",
            ))

    has_naf = False
    rule_ids: dict[str, str] = {}
    for ri, r in enumerate(rules):
        rid = f"{NS}#rule/{r.rid}"
        rule_ids[r.rid] = rid
        var_ids: dict[str, str] = {}
        var_list: list[tuple[str, str]] = []

        def var_term(name: str) -> dict[str, Any]:
            if name not in var_ids:
                vid = f"v{len(var_ids)}"
                var_ids[name] = vid
                var_list.append((vid, uf.kind_of(("var", ri, name))))
            return {"kind": "var", "var": var_ids[name]}

        def term(t: Term, key: Any) -> dict[str, Any]:
            if isinstance(t, Var):
                return var_term(t.name)
            kind = uf.kind_of(key)
            if kind == "int":
                int_domain.add(t.value)  # type: ignore[arg-type]
                return {"kind": "value", "type": ty("int"), "value": t.value}
            s = t.value if isinstance(t.value, str) else str(t.value)
            if not isinstance(t.value, str):
                back_map[s] = t.value
            entity_domain.add(s)
            return {"kind": "value", "type": ty("entity"), "value": s}

        def atom_lit(a: Atom) -> dict[str, Any]:
            return literal(a.predicate, a.negative,
                           [term(t, ("col", a.predicate, i)) for i, t in enumerate(a.args)])

        head = atom_lit(r.parsed.head)
        items: list[dict[str, Any]] = []
        for ci, it in enumerate(r.parsed.body):
            if isinstance(it, Atom):
                items.append(status(atom_lit(it)))
            elif isinstance(it, Naf):
                has_naf = True
                items.append({"item": status(atom_lit(it.atom)), "kind": "not"})
            else:
                key = ("cmp", ri, ci)
                items.append({"kind": "comparison", "left": term(it.left, key), "op": it.op,
                              "right": term(it.right, key)})
        nodes.append(rule_node(rid, r.strength, head, items, var_list, r.parsed.text))

    heads = {r.rid: r.parsed.head for r in rules}
    for a, b in superiority:
        ha, hb = heads.get(a), heads.get(b)
        if ha is not None and hb is not None and not (
            ha.predicate == hb.predicate and ha.negative != hb.negative
        ):
            # In DL `>` only ever compares a rule for q with a rule for ~q, so a pair of
            # rules whose heads cannot conflict is inert; docs/reference.md#a-package rejects it (E040), so the
            # adapter leaves it out rather than change the package's meaning.
            notes.append(f"superiority {a} > {b} dropped: heads {ha.predicate} and {hb.predicate} cannot conflict")
            continue
        nodes.append({
            "anchors": [FRAGMENT], "condition": SCOPE_TRUE,
            "higher": {"id": rule_ids.get(a, f"{NS}#rule/{a}"), "kind": "const_ref"},
            "id": f"{NS}#priority/{a}>{b}", "kind": "priority_rule",
            "labels": label(f"{a} > {b}"),
            "lower": {"id": rule_ids.get(b, f"{NS}#rule/{b}"), "kind": "const_ref"},
            "package": NS, "priorityKind": "direct", "reason": f"{NS}#superiority",
        })

    nodes = [with_hash(n) for n in nodes]
    package = {
        "features": ["core-executable"],
        "imports": [],
        "metadata": {"generatedBy": "tests/conformance (datalog-conformance adapter)", "case": case_name},
        "nodes": nodes,
        "package": {"name": "lawgen.conformance", "namespace": NS,
                    "semanticHash": "sha256:" + "0" * 64, "version": "0.1.0"},
        "schemaVersion": "law.core.ir/0.2",
        "semanticHash": "sha256:" + hashlib.sha256(canonical_json(nodes).encode("utf-8")).hexdigest(),
        "semanticVersion": "0.1.0",
        "strata": [],
    }
    facts_doc = {"entities": {}, "facts": out_facts}
    return Translation(package, facts_doc, col_types, set(p + INPUT_SUFFIX for p in split), back_map,
                       entity_domain, int_domain, has_naf, notes)
