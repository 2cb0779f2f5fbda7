#!/usr/bin/env python3
"""Generates the ui-test corpus: one broken rule package per error class.

Each case starts from `base()`, a small valid package (two entity types, a few
empirical / institutional / judgment predicates, a conflict with a priority,
a closure, a judgment with its authority, provenance), applies one mutation,
re-hashes every node (docs/reference.md#integrity: sha256 of the node without
`contentHash`, compact JSON, sorted keys, ensure_ascii=False) and writes
`tests/ui/<code>_<what>.json`. The file name's code is the code the case's
FIRST diagnostic must have (checked by lawgen/cli/tests/ui.rs).

Valid packages the harness must accept go to `tests/ui/valid/`.

    python3 tests/ui/gen.py                          # rewrite the .json files
    LAWGEN_BLESS=1 cargo test -p lawgen-cli --test ui    # then rewrite the .stderr files

Review the .stderr diff before committing it: it is the error wording users see.
"""

import copy
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NS = "urn:t"
INT = "urn:law:std#Integer"


def I(local):
    return f"{NS}#{local}"


# ---------------------------------------------------------------- builders


def var(v):
    return {"kind": "var", "var": v}


def const(c):
    return {"kind": "const_ref", "id": I(c)}


def val(ty, v):
    return {"kind": "value", "type": {"name": ty}, "value": v}


def lit(pred, *args, neg=False):
    return {
        "kind": "literal",
        "predicate": I(pred),
        "polarity": "negative" if neg else "positive",
        "args": list(args),
    }


def est(literal):
    return {"kind": "status", "status": "established", "formula": literal}


def sup(literal):
    return {"kind": "status", "status": "supported", "formula": literal}


def not_(item):
    return {"kind": "not", "item": item}


def cmp(left, op, right):
    return {"kind": "comparison", "left": left, "op": op, "right": right}


def label(text):
    return [{"language": "en", "status": "official", "text": text}]


def node(local, kind, text=None, **fields):
    n = {"id": I(local), "kind": kind, "package": NS}
    if text is not None:
        n["labels"] = label(text)
    n.update(fields)
    return n


def type_decl(name):
    return node(name, "type_decl", name.lower(), name=name, typeKind="entity")


def relation(name, kind, *params):
    return node(
        name,
        "symbol_decl",
        name.replace("_", " "),
        name=name,
        symbolKind="relation",
        relationKind=kind,
        parameters=[{"name": p.lower(), "type": {"name": p if p == INT else I(p)}} for p in params],
    )


def constant(name, ty):
    return node(
        name,
        "symbol_decl",
        name,
        name=name,
        symbolKind="constant",
        parameters=[],
        returnType={"name": I(ty)},
        value={"id": I(name), "kind": "entity_ref"},
    )


def rule(local, head, items, variables, strength="strict", anchors=("ART_1",)):
    return node(
        local,
        "rule",
        local,
        head=head,
        body={"kind": "and", "items": items},
        variables=[{"id": v, "type": {"name": t if t == INT else I(t)}} for v, t in variables],
        strength=strength,
        anchors=[I(a) for a in anchors],
        labels=label(local),
        scope={"kind": "boolean", "value": True},
        interpretations=[],
    )


def text_hash(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical(v):
    return json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def node_hash(n):
    body = {k: v for k, v in n.items() if k != "contentHash"}
    return "sha256:" + hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()


def rehash(pkg):
    for n in pkg["nodes"]:
        if isinstance(n, dict):
            n["contentHash"] = node_hash(n)
    return pkg


ARTICLE = "Article 1. A player who resigns loses the game, unless the opponent cannot checkmate."


def base():
    """A small valid package exercising every node kind."""
    nodes = [
        type_decl("Game"),
        type_decl("Player"),
        constant("White", "Player"),
        constant("Arbiter", "Player"),
        relation("player_of", "empirical", "Game", "Player"),
        relation("resigned", "empirical", "Player"),
        relation("checked_player", "empirical", "Player"),
        relation("cannot_mate", "empirical", "Player"),
        relation("move_count", "empirical", "Game", INT),
        relation("touched", "judgment", "Player"),
        relation("game_over", "institutional", "Game"),
        relation("game_lost_by", "institutional", "Game", "Player"),
        relation("drawn", "institutional", "Game"),
        relation("must_move", "institutional", "Player"),
        # Rules
        rule(
            "ResignationEnds",
            lit("game_over", var("g")),
            [est(lit("resigned", var("p"))), est(lit("player_of", var("g"), var("p")))],
            [("g", "Game"), ("p", "Player")],
        ),
        rule(
            "ResignationLoses",
            lit("game_lost_by", var("g"), var("p")),
            [
                est(lit("resigned", var("p"))),
                est(lit("player_of", var("g"), var("p"))),
                est(lit("cannot_mate", var("p"), neg=True)),
            ],
            [("g", "Game"), ("p", "Player")],
        ),
        rule(
            "SeventyFiveMoves",
            lit("drawn", var("g")),
            [est(lit("move_count", var("g"), var("n"))), cmp(var("n"), "ge", val(INT, 75))],
            [("g", "Game"), ("n", INT)],
            strength="defeasible",
        ),
        rule(
            "LossIsNoDraw",
            lit("drawn", var("g"), neg=True),
            [est(lit("game_lost_by", var("g"), var("p")))],
            [("g", "Game"), ("p", "Player")],
            strength="defeasible",
        ),
        rule(
            "TouchMove",
            lit("must_move", var("p")),
            [
                sup(lit("touched", var("p"))),
                not_(est(lit("resigned", var("p")))),
                cmp(var("p"), "ne", const("Arbiter")),
            ],
            [("p", "Player")],
        ),
        node(
            "LossOverDraw",
            "priority_rule",
            "a loss takes precedence over the 75-move draw",
            higher=const("LossIsNoDraw"),
            lower=const("SeventyFiveMoves"),
            reason=I("lex_specialis"),
            priorityKind="direct",
            condition={"kind": "boolean", "value": True},
            anchors=[I("ART_1")],
        ),
        node(
            "MateClosure",
            "closure_policy",
            "a player not listed as unable to mate can mate",
            predicate=I("cannot_mate"),
            domain=const("checked_player"),
            deriveExplicitNegative=True,
            snapshot="urn:t:snapshot:2024-01-01",
            completeAsOf="2024-01-01T00:00:00Z",
        ),
        node(
            "touched/external",
            "external_decl",
            "the touch was intentional",
            symbol=I("touched"),
            authority=const("ArbiterAuthority"),
            capability="judgment:Arbiter",
            effect="judgment",
        ),
        # Provenance
        node("LAWS", "source_work", "Laws", authority=const("Assembly"), sourceKind=I("regulation")),
        node("LAWS_2024", "source_edition", "Laws 2024", work=I("LAWS")),
        node("LAWS_2024_EN", "publication", None, edition=I("LAWS_2024"), uri="https://example.org/laws"),
        node(
            "ART_1",
            "fragment",
            None,
            edition=I("LAWS_2024"),
            fragmentKind="article",
            locator="article/1",
            texts=[{"language": "en", "status": "official", "text": ARTICLE, "contentHash": text_hash(ARTICLE)}],
        ),
    ]
    return {
        "schemaVersion": "law.core.ir/0.2",
        "package": {"name": "t.ui", "namespace": NS, "version": "0.1.0", "semanticHash": "sha256:" + "0" * 64},
        "semanticHash": "sha256:" + "1" * 64,
        "semanticVersion": "0.1.0",
        "features": ["core-executable"],
        "imports": [],
        "strata": [],
        "metadata": {},
        "nodes": nodes,
    }


# ---------------------------------------------------------------- helpers for mutations


def find(pkg, local):
    for n in pkg["nodes"]:
        if n["id"] == I(local):
            return n
    raise KeyError(local)


def items(pkg, rule_local):
    return find(pkg, rule_local)["body"]["items"]


def add(pkg, *nodes):
    pkg["nodes"].extend(nodes)
    return pkg


def dump(pkg):
    """The package with one node per line: small files, and a diff names the node."""
    if not isinstance(pkg, dict) or not isinstance(pkg.get("nodes"), list):
        return json.dumps(pkg, indent=1, ensure_ascii=False) + "\n"
    head = {k: v for k, v in pkg.items() if k != "nodes"}
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    nodes = [f"    {json.dumps(n, ensure_ascii=False)}" for n in pkg["nodes"]]
    return "{\n" + "\n".join(lines) + '\n  "nodes": [\n' + ",\n".join(nodes) + "\n  ]\n}\n"


# ---------------------------------------------------------------- the cases
#
# Each function takes a fresh base package and returns either the mutated
# package (it is then re-hashed and written) or `Raw(text_or_bytes)` to write
# as is (for inputs that are not a hashed package).


class Raw:
    def __init__(self, data):
        self.data = data


CASES = {}


def case(name):
    def register(f):
        assert name not in CASES, name
        CASES[name] = f
        return f

    return register


# --- E00x: reading


@case("e001_malformed_json")
def _(p):
    text = dump(rehash(p))
    # A trailing comma after the last node.
    return Raw(text.replace("}\n  ]\n}", "},\n  ]\n}"))


@case("e001_truncated_file")
def _(p):
    text = dump(rehash(p))
    return Raw(text[: len(text) // 2])


@case("e001_invalid_utf8")
def _(p):
    data = dump(rehash(p)).encode("utf-8")
    return Raw(data.replace(b'"t.ui"', b'"t.\xff\xfeui"', 1))


@case("e001_lone_leading_surrogate")
def _(p):
    # Half of a UTF-16 pair, with no other half after it: no character.
    data = dump(rehash(p))
    return Raw(data.replace('"t.ui"', '"t.\\ud800ui"', 1))


@case("e001_lone_trailing_surrogate")
def _(p):
    data = dump(rehash(p))
    return Raw(data.replace('"t.ui"', '"t.\\udc00ui"', 1))


@case("e002_nesting_10000_deep")
def _(p):
    return Raw("[" * 10000 + "]" * 10000 + "\n")


@case("e003_schema_version")
def _(p):
    p["schemaVersion"] = "law.core.ir/0.3"
    return p


@case("e004_missing_head")
def _(p):
    del find(p, "ResignationEnds")["head"]
    return p


@case("e004_package_is_an_array")
def _(p):
    return Raw(dump([rehash(p)]))


@case("e005_unknown_node_kind")
def _(p):
    return add(p, node("Deadline", "deadline_decl", "a deadline", days=3))


@case("e004_derogation_rules_not_an_array")
def _(p):
    return add(p, node("NoResignation", "derogation", "resignation rules replaced",
                       rules={"kind": "rule_ref", "id": I("ResignationEnds")}, anchors=[I("ART_1")]))


@case("e006_derogation_lists_a_const_ref")
def _(p):
    return add(p, node("NoResignation", "derogation", "resignation rules replaced",
                       rules=[{"kind": "const_ref", "id": I("ResignationEnds")}], anchors=[I("ART_1")]))


@case("e006_unknown_body_item_kind")
def _(p):
    items(p, "ResignationEnds")[0]["kind"] = "disjunction"
    return p


@case("e006_unknown_term_kind")
def _(p):
    items(p, "ResignationEnds")[0]["formula"]["args"][0] = {"kind": "function_call", "name": "opponent"}
    return p


@case("e006_unknown_operator")
def _(p):
    items(p, "SeventyFiveMoves")[1]["op"] = "approximately"
    return p


@case("e006_not_over_a_comparison")
def _(p):
    items(p, "TouchMove")[2] = not_(cmp(var("p"), "eq", const("Arbiter")))
    return p


@case("e007_content_hash_mismatch")
def _(p):
    rehash(p)
    # Changed after hashing: the rule now says something else.
    find(p, "ResignationLoses")["strength"] = "defeasible"
    return Raw(dump(p))


@case("e004_missing_content_hash")
def _(p):
    rehash(p)
    del find(p, "Game")["contentHash"]
    return Raw(dump(p))


@case("e008_fragment_text_hash_mismatch")
def _(p):
    t = find(p, "ART_1")["texts"][0]
    t["text"] = ARTICLE.replace("loses", "wins")  # hash left as the official text's
    return p


@case("e004_fragment_text_hash_not_a_string")
def _(p):
    find(p, "ART_1")["texts"][0]["contentHash"] = 0
    return p


@case("e004_import_entry_incomplete")
def _(p):
    p["imports"] = [{"package": "fide.laws.chess", "version": "0.1.0"}]
    return p


@case("e100_import_read_without_a_file")
def _(p):
    # Read from bytes (as this harness does), a package has no directory to
    # search: the import is not found, and the error says why.
    p["imports"] = [
        {
            "name": "fide.laws.chess",
            "namespace": "urn:fide:laws:clir:chess",
            "version": "0.1.0",
            "semanticHash": "sha256:4c92dc6ccf68aba3e0e7d752b4fd0d2755a3a6d9d9d08df00b2f4c497fcc950c",
        }
    ]
    return p


@case("e009_non_empty_strata")
def _(p):
    p["strata"] = [[I("game_over")], [I("drawn")]]
    return p


@case("e009_non_empty_interpretations")
def _(p):
    find(p, "ResignationEnds")["interpretations"] = [{"kind": "teleological", "text": "spirit of the law"}]
    return p


@case("e009_priority_kind_transitive")
def _(p):
    find(p, "LossOverDraw")["priorityKind"] = "transitive"
    return p


@case("e009_scope_not_boolean_true")
def _(p):
    find(p, "ResignationEnds")["scope"] = {"kind": "jurisdiction", "value": I("International")}
    return p


@case("e009_scope_boolean_false")
def _(p):
    find(p, "ResignationEnds")["scope"] = {"kind": "boolean", "value": False}
    return p


@case("e009_priority_condition_not_boolean")
def _(p):
    find(p, "LossOverDraw")["condition"] = {"kind": "literal", "predicate": I("resigned")}
    return p


@case("e009_type_kind_not_entity")
def _(p):
    find(p, "Game")["typeKind"] = "enumeration"
    return p


# --- E01x: names


@case("e010_duplicate_node_id")
def _(p):
    dup = copy.deepcopy(find(p, "player_of"))
    dup["labels"] = label("the player of a game (again)")
    return add(p, dup)


@case("e010_predicates_share_a_local_name")
def _(p):
    # Facts and conclusions key predicates by local name: `drawn` would be ambiguous.
    other = relation("drawn", "empirical", "Game")
    other["id"] = "urn:other#drawn"
    return add(p, other)


@case("e010_types_share_a_name")
def _(p):
    other = type_decl("Player")
    other["id"] = I("Competitor")
    return add(p, other)


@case("e011_dangling_predicate")
def _(p):
    items(p, "ResignationEnds")[0]["formula"]["predicate"] = I("has_resigned")
    return p


@case("e012_dangling_type")
def _(p):
    find(p, "resigned")["parameters"][0]["type"]["name"] = I("Competitor")
    return p


@case("e012_dangling_variable_type_reported_once")
def _(p):
    # The variable's type is unknown: that is the one error; its uses are not
    # "undeclared".
    find(p, "ResignationEnds")["variables"][1]["type"]["name"] = I("Competitor")
    return p


@case("e013_dangling_constant")
def _(p):
    items(p, "TouchMove")[2]["right"] = const("Black")
    return p


@case("e014_dangling_rule_in_priority")
def _(p):
    find(p, "LossOverDraw")["lower"] = const("SeventyFiveMoveDraw")
    return p


@case("e015_dangling_anchor")
def _(p):
    find(p, "ResignationLoses")["anchors"] = [I("ART_2")]
    return p


@case("e015_dangling_edition")
def _(p):
    find(p, "ART_1")["edition"] = I("LAWS_2023")
    return p


@case("e016_predicate_is_a_type")
def _(p):
    items(p, "ResignationEnds")[0]["formula"]["predicate"] = I("Player")
    return p


@case("e016_type_is_a_relation")
def _(p):
    # A parameter typed by a relation declared later in the file.
    find(p, "resigned")["parameters"][0]["type"]["name"] = I("game_over")
    return p


@case("e016_anchor_is_an_edition")
def _(p):
    find(p, "ResignationEnds")["anchors"] = [I("LAWS_2024")]
    return p


# --- E02x: types


@case("e020_wrong_arity")
def _(p):
    items(p, "ResignationEnds")[1]["formula"]["args"].append(var("p"))
    return p


@case("e021_argument_type_mismatch")
def _(p):
    f = items(p, "ResignationEnds")[1]["formula"]
    f["args"] = [var("p"), var("g")]
    return p


@case("e021_integer_constant")
def _(p):
    find(p, "White")["returnType"] = {"name": INT}
    return p


@case("e022_integer_compared_with_entity")
def _(p):
    items(p, "SeventyFiveMoves")[1]["right"] = var("g")
    return p


@case("e022_order_comparison_on_entities")
def _(p):
    items(p, "TouchMove")[2]["op"] = "lt"
    return p


@case("e023_undeclared_variable")
def _(p):
    items(p, "ResignationEnds")[0]["formula"]["args"] = [var("q")]
    return p


@case("e024_variable_declared_twice")
def _(p):
    find(p, "ResignationEnds")["variables"].append({"id": "g", "type": {"name": I("Game")}})
    return p


@case("e025_bad_value_string_for_integer")
def _(p):
    items(p, "SeventyFiveMoves")[1]["right"] = val(INT, "seventy-five")
    return p


@case("e025_bad_value_out_of_i64_range")
def _(p):
    items(p, "SeventyFiveMoves")[1]["right"] = val(INT, 2**63)
    return p


# --- E03x: safety


@case("e030_head_variable_not_bound")
def _(p):
    r = find(p, "ResignationEnds")
    r["head"]["args"] = [var("h")]
    r["variables"].append({"id": "h", "type": {"name": I("Game")}})
    return p


@case("e031_comparison_variable_not_bound")
def _(p):
    r = find(p, "SeventyFiveMoves")
    r["body"]["items"][1]["left"] = var("m")
    r["variables"].append({"id": "m", "type": {"name": INT}})
    return p


@case("e032_not_item_variable_not_bound")
def _(p):
    # `q` is compared and negated but bound by no literal.
    r = find(p, "TouchMove")
    r["variables"].append({"id": "q", "type": {"name": I("Player")}})
    r["body"]["items"][1] = not_(est(lit("resigned", var("q"))))
    r["body"]["items"].append(cmp(var("q"), "ne", var("p")))
    return p


@case("e033_head_is_empirical")
def _(p):
    find(p, "ResignationEnds")["head"] = lit("resigned", var("p"))
    return p


@case("e033_head_is_a_judgment")
def _(p):
    find(p, "TouchMove")["head"] = lit("touched", var("p"))
    return p


# --- E04x: priorities


@case("e040_priority_heads_do_not_conflict")
def _(p):
    find(p, "LossOverDraw")["higher"] = const("ResignationEnds")
    return p


@case("e040_priority_same_polarity")
def _(p):
    # Both rules conclude `drawn`: nothing to decide between.
    add(
        p,
        rule(
            "FivefoldDraw",
            lit("drawn", var("g")),
            [est(lit("move_count", var("g"), var("n"))), cmp(var("n"), "ge", val(INT, 5))],
            [("g", "Game"), ("n", INT)],
        ),
    )
    find(p, "LossOverDraw")["higher"] = const("FivefoldDraw")
    return p


@case("e041_priority_cycle")
def _(p):
    back = copy.deepcopy(find(p, "LossOverDraw"))
    back["id"] = I("DrawOverLoss")
    back["higher"], back["lower"] = back["lower"], back["higher"]
    return add(p, back)


# --- E05x: closures


@case("e050_closure_over_institutional")
def _(p):
    c = find(p, "MateClosure")
    c["predicate"] = I("must_move")
    return p


@case("e050_closure_over_judgment")
def _(p):
    find(p, "MateClosure")["predicate"] = I("touched")
    return p


@case("e051_closure_domain_wrong_type")
def _(p):
    find(p, "MateClosure")["domain"] = const("game_over")
    return p


# --- E06x: judgments


@case("e060_judgment_without_external_decl")
def _(p):
    p["nodes"] = [n for n in p["nodes"] if n["id"] != I("touched/external")]
    return p


@case("e061_external_decl_on_empirical")
def _(p):
    other = copy.deepcopy(find(p, "touched/external"))
    other["id"] = I("resigned/external")
    other["symbol"] = I("resigned")
    return add(p, other)


@case("e061_second_external_decl")
def _(p):
    second = copy.deepcopy(find(p, "touched/external"))
    second["id"] = I("touched/external2")
    second["authority"] = const("ChiefArbiter")
    return add(p, second)


# --- E07x: strata


@case("e070_attack_through_recursion")
def _(p):
    # ~drawn is concluded from game_lost_by; make game_lost_by depend on drawn.
    r = find(p, "ResignationLoses")
    r["body"]["items"].append(est(lit("drawn", var("g"), neg=True)))
    return p


@case("e070_not_item_through_recursion")
def _(p):
    # forfeits reads `not must_move`, and must_move now reads forfeits:
    # negation as failure through recursion.
    add(
        p,
        relation("forfeits", "institutional", "Player"),
        rule(
            "ForfeitIfNotMoving",
            lit("forfeits", var("p")),
            [est(lit("checked_player", var("p"))), not_(est(lit("must_move", var("p"))))],
            [("p", "Player")],
        ),
    )
    items(p, "TouchMove")[1] = est(lit("forfeits", var("p")))
    return p


@case("e070_self_attack")
def _(p):
    # ~drawn is concluded from drawn itself.
    items(p, "LossIsNoDraw")[0] = est(lit("drawn", var("g")))
    find(p, "LossIsNoDraw")["variables"] = [{"id": "g", "type": {"name": I("Game")}}]
    return p


# --- hostile names and ids


HOSTILE = '"); std::process::exit(1); //'


def hostile_names(p):
    """`fn` and a code-injection string are valid predicate names."""
    add(
        p,
        relation("fn", "institutional", "Game"),
        relation(HOSTILE, "institutional", "Player"),
        rule(
            "KeywordRule",
            lit("fn", var("g")),
            [est(lit("game_over", var("g")))],
            [("g", "Game")],
        ),
        rule(
            "InjectionRule",
            lit(HOSTILE, var("p")),
            [est(lit("resigned", var("p")))],
            [("p", "Player")],
        ),
    )
    return p


@case("e020_hostile_but_valid_names")
def _(p):
    hostile_names(p)
    # The real errors: wrong arity on `fn`, wrong type on the other one.
    items(p, "KeywordRule")[0] = est(lit("fn", var("g"), var("g")))
    find(p, "InjectionRule")["variables"].append({"id": "g", "type": {"name": I("Game")}})
    items(p, "InjectionRule").append(est(lit("player_of", var("g"), var("p"))))
    items(p, "InjectionRule").append(est(lit(HOSTILE, var("g"))))
    return p


@case("e011_id_with_newline_and_comment_end")
def _(p):
    bad = "bad\n*/ error[E000]: forged line"
    r = find(p, "ResignationEnds")
    r["id"] = I("ResignationEnds\n*/")
    r["body"]["items"][0]["formula"]["predicate"] = I(bad)
    return p


@case("e010_duplicate_id_with_control_characters")
def _(p):
    a = find(p, "drawn")
    a["id"] = I("drawn\r\n\u001b[31m*/")
    dup = copy.deepcopy(a)
    dup["labels"] = label("again")
    p["nodes"].append(dup)
    # Keep the rules pointing at the renamed predicate.
    for n in p["nodes"]:
        if n["kind"] == "rule" and n["head"]["predicate"] == I("drawn"):
            n["head"]["predicate"] = a["id"]
    return p


def rename(p, local, new):
    """Renames the node `local` to `new` everywhere it is named."""
    old = json.dumps(I(local))
    text = json.dumps(p, ensure_ascii=False).replace(old, json.dumps(I(new), ensure_ascii=False))
    p.clear()
    p.update(json.loads(text))
    return p


# --- E017-E019: names a reviewer can trust (Unicode TR #39)


@case("e017_bidi_override_in_predicate_name")
def _(p):
    # Displays as `drawn`: the override reverses `nward`.
    return rename(p, "drawn", "\u202enward\u202c")


@case("e017_zero_width_space_in_variable")
def _(p):
    r = find(p, "ResignationEnds")
    text = json.dumps(r, ensure_ascii=False).replace('"p"', '"p\u200b"')
    r.clear()
    r.update(json.loads(text))
    return p


@case("e018_cyrillic_letter_in_predicate_name")
def _(p):
    # The `а` is U+0430 CYRILLIC SMALL LETTER A.
    return rename(p, "drawn", "dr\u0430wn")


@case("e019_cyrillic_lookalike_of_a_predicate")
def _(p):
    # `сору` is all Cyrillic (one script), but reads as the Latin `copy`.
    return add(
        p,
        relation("copy", "empirical", "Game"),
        relation("\u0441\u043e\u0440\u0443", "empirical", "Game"),
    )


def scripts_and_hidden_characters(p):
    """Names in one script each, of several scripts; labels and texts with
    bidi controls, zero-width characters and terminal escapes (shown
    visibly by every rendering, never refused)."""
    rename(p, "drawn", "ничья")
    rename(p, "game_lost_by", "\u03b7\u03c4\u03c4\u03b1")
    rename(p, "must_move", "\u624b\u756a")
    # Accepted: an ASCII pair with one skeleton (`rn`/`m`), and a name in one
    # script that reads as Latin, with no Latin twin.
    add(
        p,
        relation("corner", "empirical", "Game"),
        relation("comer", "empirical", "Game"),
        relation("\u0441\u043e\u0440\u0443", "empirical", "Game"),
    )
    hidden = "\u202eeud_enif\u202c \u200b\u2066x\u2069 \u001b]8;;http://x\u0007link\u001b]8;;\u0007 \u001b[2J\u009b31m"
    for n in p["nodes"]:
        if "labels" in n:
            n["labels"] = label(n["labels"][0]["text"] + " " + hidden)
        if n["kind"] == "fragment":
            n["locator"] = "article/1\u001b[8m\u202e"
            text = n["texts"][0]["text"] + "\n" + hidden
            n["texts"] = [{"language": "en", "status": "official", "text": text, "contentHash": text_hash(text)}]
    p["package"]["name"] = "t.ui\u001b]0;title\u0007"
    p["package"]["version"] = '1"""; import os; os.system("touch pwned"); """ \\N{BULLET} \u202e'
    return p


@case("e150_duplicate_key_in_a_node")
def _(p):
    # The node hash is taken over the value kept (the last); a tool that
    # keeps the first would show the reviewer a defeater.
    text = dump(rehash(p))
    line = next(l for l in text.split("\n") if '"strength": "strict"' in l)
    twice = line.replace('"strength": "strict"', '"strength": "defeater", "strength": "strict"', 1)
    return Raw(text.replace(line, twice, 1))
# ---------------------------------------------------------------- editions


def edition(local, work="LAWS", lifecycle=()):
    return node(local, "source_edition", local, work=I(work), lifecycle=list(lifecycle))


def in_force(day):
    return {"status": "in_force", "extent": day}


@case("e015_edition_of_an_unknown_work")
def _(p):
    find(p, "LAWS_2024")["work"] = I("LAWS_OLD")
    return p


@case("e120_lifecycle_extent_not_a_date")
def _(p):
    find(p, "LAWS_2024")["lifecycle"] = [in_force("2024-02-30")]
    return p


@case("e121_unknown_lifecycle_status")
def _(p):
    find(p, "LAWS_2024")["lifecycle"] = [in_force("2024-01-01"), {"status": "suspended", "extent": "2024-06-01"}]
    return p


@case("e122_two_editions_in_force_the_same_day")
def _(p):
    find(p, "LAWS_2024")["lifecycle"] = [in_force("2024-01-01")]
    add(p, edition("LAWS_2024_BIS", lifecycle=[in_force("2024-01-01")]))
    return p


@case("e123_undated_edition_beside_a_dated_one")
def _(p):
    find(p, "LAWS_2024")["lifecycle"] = [in_force("2024-01-01")]
    add(p, edition("LAWS_DRAFT"))
    return p


VALID = {
    "minimal": lambda p: p,
    "hostile_but_valid_names": hostile_names,
    "scripts_and_hidden_characters": scripts_and_hidden_characters,
}


def main():
    os.makedirs(os.path.join(HERE, "valid"), exist_ok=True)
    wanted = set()
    for name, f in sorted(CASES.items()):
        out = f(base())
        data = out.data if isinstance(out, Raw) else dump(rehash(out))
        if isinstance(data, str):
            data = data.encode("utf-8")
        path = os.path.join(HERE, name + ".json")
        wanted.add(name + ".json")
        with open(path, "wb") as fh:
            fh.write(data)
    for name, f in sorted(VALID.items()):
        with open(os.path.join(HERE, "valid", name + ".json"), "w", encoding="utf-8") as fh:
            fh.write(dump(rehash(f(base()))))
    # Cases removed from this script must not linger on disk.
    stale = [f for f in os.listdir(HERE) if f.endswith(".json") and f not in wanted]
    for f in stale:
        os.remove(os.path.join(HERE, f))
        print(f"removed stale {f}", file=sys.stderr)
    print(f"{len(CASES)} cases, {len(VALID)} valid packages written to {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()
