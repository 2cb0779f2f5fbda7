#!/usr/bin/env python3
"""Writes the two-layer import example (docs/imports.md) and the import ui cases.

`tests/imports/example/` — `example.laws` (a base law) and `example.club`
(club rules that import it: a rule that extends an imported institutional
predicate, a defeater that sets an imported rule aside, a priority between
an imported rule and a club rule), with facts files. `lawgen/cli/tests/imports.rs`
evaluates them.

`tests/ui/imports/<case>/` — one broken closure per resolution error, each
with `root.json` (the package `lawgen check` is run on) and the files it
imports; the expected diagnostics are `<case>.stderr` beside the directory,
written by `LAWGEN_BLESS=1 cargo test -p lawgen-cli --test imports`.

    python3 tests/imports/gen.py

Every node is hashed as docs/reference.md#a-package says (sha256 of the node without
`contentHash`, compact JSON, sorted keys, non-ASCII as is).
"""

import copy
import hashlib
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INT = "urn:law:std#Integer"


def canonical(v):
    return json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def sha(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


class Pkg:
    """A package under construction; `ref(local)` is an id in its namespace."""

    def __init__(self, name, ns, version="1.0.0"):
        self.name, self.ns, self.version = name, ns, version
        self.nodes, self.imports = [], []

    def ref(self, local):
        return f"{self.ns}#{local}"

    def node(self, local, kind, text, **fields):
        n = {"id": self.ref(local), "kind": kind, "package": self.ns,
             "labels": [{"language": "en", "status": "official", "text": text}]}
        n.update(fields)
        self.nodes.append(n)
        return n

    def type(self, name):
        return self.node(name, "type_decl", name.lower(), name=name, typeKind="entity")

    def relation(self, name, kind, params, text=None):
        return self.node(name, "symbol_decl", text or name.replace("_", " "), name=name,
                         symbolKind="relation", relationKind=kind,
                         parameters=[{"name": n, "type": {"name": t}} for n, t in params])

    def rule(self, local, text, head, items, variables, strength, anchors):
        return self.node(local, "rule", text, head=head, body={"kind": "and", "items": items},
                         variables=[{"id": v, "type": {"name": t}} for v, t in variables],
                         strength=strength, anchors=anchors,
                         scope={"kind": "boolean", "value": True}, interpretations=[])

    def priority(self, local, text, higher, lower, anchors):
        return self.node(local, "priority_rule", text,
                         higher={"kind": "const_ref", "id": higher},
                         lower={"kind": "const_ref", "id": lower},
                         reason=self.ref("lex_specialis"), priorityKind="direct",
                         condition={"kind": "boolean", "value": True}, anchors=anchors)

    def provenance(self, work, article, locator, text):
        self.node(work, "source_work", work, authority={"kind": "const_ref", "id": self.ref("Authority")},
                  sourceKind=self.ref("regulation"))
        self.node(work + "_1", "source_edition", work + ", first edition", work=self.ref(work))
        f = self.node(article, "fragment", locator, edition=self.ref(work + "_1"),
                      fragmentKind="article", locator=locator,
                      texts=[{"language": "en", "status": "official", "text": text,
                              "contentHash": sha(text)}])
        return f

    def import_(self, other):
        self.imports.append({"name": other.name, "namespace": other.ns,
                             "version": other.version, "semanticHash": other.semantic_hash()})

    def semantic_hash(self):
        # lawgen treats the top-level semanticHash as an opaque identity that
        # imports pin (docs/decisions.md); these packages derive theirs from
        # their nodes' content hashes.
        return sha("\n".join(sorted(node_hash(n) for n in self.nodes)))

    def json(self):
        for n in self.nodes:
            n["contentHash"] = node_hash(n)
        return {
            "schemaVersion": "law.core.ir/0.2",
            "package": {"name": self.name, "namespace": self.ns, "version": self.version,
                        "semanticHash": "sha256:" + "0" * 64},
            "semanticHash": self.semantic_hash(),
            "semanticVersion": self.version,
            "features": ["core-executable"],
            "imports": self.imports,
            "strata": [],
            "metadata": {},
            "nodes": self.nodes,
        }


def node_hash(n):
    return sha(canonical({k: v for k, v in n.items() if k != "contentHash"}))


def var(v):
    return {"kind": "var", "var": v}


def lit(pred, *args, neg=False):
    return {"kind": "literal", "predicate": pred, "polarity": "negative" if neg else "positive",
            "args": list(args)}


def est(literal):
    return {"kind": "status", "status": "established", "formula": literal}


def sup(literal):
    return {"kind": "status", "status": "supported", "formula": literal}


def ge(v, n):
    return {"kind": "comparison", "left": var(v), "op": "ge",
            "right": {"kind": "value", "type": {"name": INT}, "value": n}}


def dump(pkg):
    """One node per line: small diffs that name the node."""
    head = {k: v for k, v in pkg.items() if k != "nodes"}
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    nodes = [f"    {json.dumps(n, ensure_ascii=False)}" for n in pkg["nodes"]]
    return "{\n" + "\n".join(lines) + '\n  "nodes": [\n' + ",\n".join(nodes) + "\n  ]\n}\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# ---------------------------------------------------------------- the example


def laws():
    """The base law: resignation loses; 75 moves without capture draw, unless lost."""
    p = Pkg("example.laws", "urn:example:laws")
    G, P = p.ref("Game"), p.ref("Player")
    p.type("Game")
    p.type("Player")
    p.relation("player_of", "empirical", [("game", G), ("player", P)])
    p.relation("resigned", "empirical", [("player", P)])
    p.relation("moves_without_capture", "empirical", [("game", G), ("moves", INT)])
    p.relation("game_lost_by", "institutional", [("game", G), ("player", P)])
    p.relation("game_drawn", "institutional", [("game", G)])
    art1 = p.provenance("LAWS", "ART_1", "article/1",
                        "Article 1. A player who resigns loses the game.")
    art2 = p.provenance("LAWS_ANNEX", "ART_2", "article/2",
                        "Article 2. After 75 moves by each player without a capture the game "
                        "is drawn, unless it has been lost.")
    p.rule("ResignationLoses", "Article 1: a player who resigns loses",
           lit(p.ref("game_lost_by"), var("g"), var("p")),
           [est(lit(p.ref("resigned"), var("p"))), est(lit(p.ref("player_of"), var("g"), var("p")))],
           [("g", G), ("p", P)], "strict", [art1["id"]])
    p.rule("SeventyFiveMoveDraw", "Article 2: 75 moves without a capture draw the game",
           lit(p.ref("game_drawn"), var("g")),
           [est(lit(p.ref("moves_without_capture"), var("g"), var("n"))), ge("n", 75)],
           [("g", G), ("n", INT)], "defeasible", [art2["id"]])
    p.rule("LostIsNotDrawn", "Article 2: a game that has been lost is not drawn",
           lit(p.ref("game_drawn"), var("g"), neg=True),
           [est(lit(p.ref("game_lost_by"), var("g"), var("p")))],
           [("g", G), ("p", P)], "defeasible", [art2["id"]])
    p.priority("LossBeforeDraw", "a loss takes precedence over the 75-move draw",
               p.ref("LostIsNotDrawn"), p.ref("SeventyFiveMoveDraw"), [art2["id"]])
    return p


def club(base):
    """Club rules on top: no automatic draw; a draw claim the arbiter upholds draws."""
    p = Pkg("example.club", "urn:example:club")
    p.import_(base)
    G = base.ref("Game")
    p.relation("claim_upheld", "judgment", [("game", G)], "the arbiter upholds the draw claim")
    p.node("claim_upheld/external", "external_decl", "the arbiter decides a draw claim",
           symbol=p.ref("claim_upheld"), authority={"kind": "const_ref", "id": p.ref("ClubArbiter")},
           capability="judgment:ClubArbiter", effect="judgment")
    rule = p.provenance("CLUB_RULES", "RULE_7", "rule/7",
                        "Rule 7. No game is drawn by the number of moves alone; a player may "
                        "claim a draw, and the arbiter decides the claim.")
    # A defeater: sets the imported 75-move draw aside without concluding "not drawn".
    p.rule("NoDrawByMovesAlone", "Rule 7: no game is drawn by the number of moves alone",
           lit(base.ref("game_drawn"), var("g"), neg=True),
           [est(lit(base.ref("moves_without_capture"), var("g"), var("n")))],
           [("g", G), ("n", INT)], "defeater", [rule["id"]])
    # Extends the imported institutional predicate `game_drawn`.
    p.rule("UpheldClaimDraws", "Rule 7: a draw claim the arbiter upholds draws the game",
           lit(base.ref("game_drawn"), var("g")),
           [sup(lit(p.ref("claim_upheld"), var("g")))],
           [("g", G)], "defeasible", [rule["id"]])
    p.priority("UpheldClaimOverMoveCount", "an upheld claim is not set aside by Rule 7's first sentence",
               p.ref("UpheldClaimDraws"), p.ref("NoDrawByMovesAlone"), [rule["id"]])
    # Between an imported rule and a club rule: a loss still beats a claim.
    p.priority("LossBeforeClaim", "a game that has been lost is not drawn by a claim",
               base.ref("LostIsNotDrawn"), p.ref("UpheldClaimDraws"), [rule["id"]])
    return p


FACTS = {
    # 80 moves: the base law draws; the club leaves it to the arbiter.
    "long-game": {"facts": {"player_of": [["g1", "white"], ["g1", "black"]],
                            "moves_without_capture": [["g1", 80]]}},
    "claim-upheld": {"facts": {"player_of": [["g1", "white"], ["g1", "black"]],
                               "moves_without_capture": [["g1", 80]],
                               "claim_upheld": [["g1"]]}},
    "claim-rejected": {"facts": {"player_of": [["g1", "white"], ["g1", "black"]],
                                 "moves_without_capture": [["g1", 80]],
                                 "~claim_upheld": [["g1"]]}},
    "resigned-after-claim": {"facts": {"player_of": [["g1", "white"], ["g1", "black"]],
                                       "resigned": [["black"]],
                                       "claim_upheld": [["g1"]]}},
}


def write_example():
    out = os.path.join(HERE, "example")
    shutil.rmtree(out, ignore_errors=True)
    base = laws()
    base_json = base.json()
    top = club(base)
    write(os.path.join(out, "example.laws-1.0.0.json"), dump(base_json))
    write(os.path.join(out, "club", "example.club-1.0.0.json"), dump(top.json()))
    for name, facts in FACTS.items():
        write(os.path.join(out, "facts", name + ".facts.json"), json.dumps(facts, indent=1) + "\n")


# ---------------------------------------------------------------- ui cases


UI = os.path.join(ROOT, "tests", "ui", "imports")
CASES = {}


def case(name):
    def register(f):
        CASES[name] = f
        return f
    return register


def small(name, ns, version="1.0.0"):
    """A tiny valid package: one type, one input, one output, one rule."""
    p = Pkg(name, ns, version)
    T = p.ref("Thing")
    p.type("Thing")
    p.relation("seen", "empirical", [("thing", T)])
    p.relation("known", "institutional", [("thing", T)])
    art = p.provenance("RULES", "ART_1", "article/1", "Article 1. What is seen is known.")
    p.rule("SeenIsKnown", "what is seen is known", lit(p.ref("known"), var("x")),
           [est(lit(p.ref("seen"), var("x")))], [("x", T)], "strict", [art["id"]])
    return p


def layer(name, ns, base, version="1.0.0"):
    """A package importing `base` with one rule of its own on `base`'s predicates."""
    p = Pkg(name, ns, version)
    p.import_(base)
    T = base.ref("Thing")
    p.relation("heard", "empirical", [("thing", T)])
    art = p.provenance("MORE", "ART_9", "article/9", "Article 9. What is heard is known.")
    p.rule("HeardIsKnown", "what is heard is known", lit(base.ref("known"), var("x")),
           [est(lit(p.ref("heard"), var("x")))], [("x", T)], "strict", [art["id"]])
    return p


@case("e100_import_not_found")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    return {"root.json": top.json()}, ["--import-path", "tests/ui/imports/e100_import_not_found/lib"]


@case("e101_import_namespace_mismatch")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    top.imports[0]["namespace"] = "urn:ui:elsewhere"
    return {"root.json": top.json(), "base.json": base.json()}, []


@case("e102_import_semantic_hash_mismatch")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    top.imports[0]["semanticHash"] = "sha256:" + "ab" * 32
    return {"root.json": top.json(), "base.json": base.json()}, []


@case("e103_import_cycle")
def _(d):
    # a imports b, b imports c, c imports a.
    a = small("ui.a", "urn:ui:a")
    b = layer("ui.b", "urn:ui:b", a)
    c = layer("ui.c", "urn:ui:c", b)
    a.import_(c)
    return {"root.json": a.json(), "b.json": b.json(), "c.json": c.json()}, []


@case("e104_import_two_versions")
def _(d):
    # top imports left and right; left imports base 1.0.0, right base 2.0.0.
    b1 = small("ui.base", "urn:ui:base", "1.0.0")
    b2 = small("ui.base", "urn:ui:base", "2.0.0")
    left = layer("ui.left", "urn:ui:left", b1)
    right = layer("ui.right", "urn:ui:right", b2)
    top = Pkg("ui.top", "urn:ui:top")
    top.import_(left)
    top.import_(right)
    top.type("Other")
    return {"root.json": top.json(), "left.json": left.json(), "right.json": right.json(),
            "base-1.json": b1.json(), "base-2.json": b2.json()}, []


@case("e010_import_duplicate_id")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    # The top package redeclares an imported node under the imported id.
    clone = copy.deepcopy(base.nodes[2])
    clone["labels"][0]["text"] = "known, redefined"
    top.nodes.append(clone)
    return {"root.json": top.json(), "base.json": base.json()}, []


@case("e105_import_node_outside_its_namespace")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    top.nodes[0]["package"] = "urn:ui:base"
    return {"root.json": top.json(), "base.json": base.json()}, []


@case("e021_error_inside_an_imported_package")
def _(d):
    base = small("ui.base", "urn:ui:base")
    # A rule whose argument has the wrong type: an error of the imported package.
    base.relation("count", "empirical", [("n", INT)])
    base.rule("CountIsKnown", "a count is known", lit(base.ref("known"), var("n")),
              [est(lit(base.ref("count"), var("n")))], [("n", INT)], "strict", [base.ref("ART_1")])
    top = layer("ui.top", "urn:ui:top", base)
    return {"root.json": top.json(), "lib/base.json": base.json()}, \
        ["--import-path", "tests/ui/imports/e021_error_inside_an_imported_package/lib"]


@case("e007_hash_mismatch_inside_an_imported_package")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    files = {"root.json": top.json(), "base.json": base.json()}
    # Changed after hashing: the imported file does not verify.
    files["base.json"]["nodes"][2]["labels"][0]["text"] = "known (edited)"
    return files, []


@case("e086_ambiguous_local_name_in_facts")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    # The top package declares its own `seen`: facts must say which.
    top.relation("seen", "empirical", [("thing", base.ref("Thing"))])
    return {"root.json": top.json(), "base.json": base.json(),
            "facts.json": json.dumps({"facts": {"seen": [["x"]]}}) + "\n"}, []


@case("e086_ambiguous_constant_in_facts")
def _(d):
    base = small("ui.base", "urn:ui:base")
    base.node("Nobody", "symbol_decl", "nobody", name="Nobody", symbolKind="constant", parameters=[],
              returnType={"name": base.ref("Thing")}, value={"id": base.ref("Nobody"), "kind": "entity_ref"})
    top = layer("ui.top", "urn:ui:top", base)
    # The top package's own `Nobody`, of the same type: a facts value must say which.
    top.node("Nobody", "symbol_decl", "nobody", name="Nobody", symbolKind="constant", parameters=[],
             returnType={"name": base.ref("Thing")}, value={"id": top.ref("Nobody"), "kind": "entity_ref"})
    return {"root.json": top.json(), "base.json": base.json(),
            "facts.json": json.dumps({"facts": {"seen": [["Nobody"], ["urn:ui:top#Nobody"]]}}) + "\n"}, []


def derogation(p, local, text, rules, anchors):
    """A derogation (docs/reference.md#derogations): `rules` set aside, for `p`'s meaning."""
    return p.node(local, "derogation", text, rules=[{"kind": "rule_ref", "id": r} for r in rules],
                  anchors=anchors)


@case("e106_derogation_without_imports")
def _(d):
    base = small("ui.base", "urn:ui:base")
    derogation(base, "NotSeen", "nothing seen is known", [base.ref("SeenIsKnown")],
               [base.ref("ART_1")])
    return {"root.json": base.json()}, []


@case("e107_derogation_of_own_rule")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    derogation(top, "NotHeard", "what is heard is not known after all",
               [base.ref("SeenIsKnown"), top.ref("HeardIsKnown")], [top.ref("ART_9")])
    return {"root.json": top.json(), "base.json": base.json()}, []


@case("e108_derogation_without_anchor")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    derogation(top, "NotSeen", "what is seen is not known", [base.ref("SeenIsKnown")], [])
    return {"root.json": top.json(), "base.json": base.json()}, []


@case("e014_derogation_of_unknown_rule")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    derogation(top, "NotSeen", "what is seen is not known",
               [base.ref("SeenIsKnow"), base.ref("known")], [top.ref("ART_9")])
    return {"root.json": top.json(), "base.json": base.json()}, []


@case("e109_import_matched_by_two_files")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    return {"root.json": top.json(), "base.json": base.json(), "base-copy.json": base.json()}, []


def lock(root, imported):
    """A lock file (docs/reference.md#lock-files) pinning `imported` as they are now."""
    return json.dumps({
        "schemaVersion": "lawgen.lock/1",
        "package": {"name": root.name, "version": root.version},
        "imports": [{"name": p.name, "version": p.version,
                     "sha256": hashlib.sha256(canonical(p.json()).encode("utf-8")).hexdigest()}
                    for p in imported],
    }, indent=2) + "\n"


@case("e151_import_changed_since_locked")
def _(d):
    # The import is changed after the lock was written: a node edited and
    # re-hashed, the package's declared semanticHash kept, so the import
    # entry's pin still matches. The lock file does not.
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    locked = lock(top, [base])
    pinned = base.semantic_hash()
    base.nodes[-1]["labels"][0]["text"] = "what is seen is known, unless it is not"
    changed = base.json()
    changed["semanticHash"] = pinned
    return {"root.json": top.json(), "base.json": changed, "root.json.lock": locked}, []


@case("e152_lock_file_of_another_version")
def _(d):
    base = small("ui.base", "urn:ui:base")
    top = layer("ui.top", "urn:ui:top", base)
    old = small("ui.base", "urn:ui:base", "0.9.0")
    return {"root.json": top.json(), "base.json": base.json(),
            "root.json.lock": lock(top, [old])}, []


def write_ui():
    for name, make in CASES.items():
        d = os.path.join(UI, name)
        shutil.rmtree(d, ignore_errors=True)
        files, args = make(d)
        for rel, content in files.items():
            text = content if isinstance(content, str) else dump(content)
            write(os.path.join(d, rel), text)
        write(os.path.join(d, "args"), "\n".join(args) + ("\n" if args else ""))


if __name__ == "__main__":
    write_example()
    write_ui()
    print(f"example and {len(CASES)} ui cases written")
