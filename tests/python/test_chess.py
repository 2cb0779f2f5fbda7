"""The Python module of the chess package against the chess scenarios and
`lawgen eval` / `lawgen explain`, its errors, and the Arrow layout.

Run by scripts/test-python.sh, which installs the module (`pip install` of
`lawgen build --python`) and sets LAWGEN to the lawgen binary.
"""

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.compute  # noqa: F401
import pytest

import fide_laws_chess as chess
from layout import facts_to_batch, has_rows, verdicts_to_outputs

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json"
SCENARIOS = ROOT / "tests/scenarios/chess"
LAWGEN = os.environ.get("LAWGEN", str(ROOT / "target/debug/lawgen"))
NAMES = sorted(p.name[: -len(".facts.json")] for p in SCENARIOS.glob("*.facts.json"))
INSTITUTIONAL = {
    n["name"]
    for n in json.loads(PACKAGE.read_text())["nodes"]
    if n["kind"] == "symbol_decl" and n.get("relationKind") == "institutional"
}


def lawgen(*args):
    r = subprocess.run([LAWGEN, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def facts(name):
    return (SCENARIOS / f"{name}.facts.json").read_text()


def expected(name):
    return json.loads((SCENARIOS / f"{name}.expected.json").read_text())


def test_the_module_names_its_package():
    assert (chess.PACKAGE, chess.VERSION, chess.ENGINES) == ("fide.laws.chess", "0.1.0", ("ascent",))
    assert "game_drawn(game: Game)" in chess.__doc__
    assert "the game is drawn" in chess.__doc__
    assert len(INSTITUTIONAL) == 20


@pytest.mark.parametrize("name", NAMES)
def test_scenario_matches_its_expected_conclusions(name):
    want = expected(name)
    got = chess.evaluate(json.loads(facts(name)), policy=want["policy"])
    for key in ["definitely", "defeasibly", "supported", "pending"]:
        mine = {lit: rows for lit, rows in got[key].items() if lit.lstrip("~") in INSTITUTIONAL}
        assert mine == (want.get(key) or {}), key
    assert got["requests"] == (want.get("requests") or [])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("policy", ["blocking", "propagating"])
def test_output_is_byte_equal_to_lawgen_eval(name, policy):
    code, out, err = lawgen("eval", str(PACKAGE), "--facts", str(SCENARIOS / f"{name}.facts.json"), "--policy", policy)
    assert code == 0, err
    assert chess.evaluate_json(facts(name), policy) == out
    assert chess.evaluate(facts(name).encode(), policy) == json.loads(out)


def test_evaluate_many_equals_evaluate_on_any_number_of_threads():
    cases = [json.loads(facts(n)) for n in NAMES] * 3
    want = [chess.evaluate(c) for c in cases]
    assert chess.evaluate_many(cases, "blocking", threads=1) == want
    assert chess.evaluate_many(cases, "blocking", threads=2) == want
    assert chess.evaluate_many(cases) == want
    assert chess.evaluate_many([]) == []


@pytest.mark.parametrize("name", ["checkmate_at_seventy_five_moves", "agreed_draw"])
def test_explain_is_what_lawgen_explain_prints(name):
    path = str(SCENARIOS / f"{name}.facts.json")
    code, text, err = lawgen("explain", str(PACKAGE), "--facts", path, "game_drawn(g1)")
    assert code == 0, err
    assert chess.explain(facts(name), "game_drawn(g1)") == text
    code, js, err = lawgen("explain", str(PACKAGE), "--facts", path, "game_drawn(g1)", "--format", "json")
    assert code == 0, err
    assert chess.explain(facts(name), "game_drawn(g1)", format="json") == json.loads(js)


UNKNOWN = (
    "invalid facts:\n"
    "error[E081]: unknown predicate `no_such_predicate`\n"
    "  --> node `no_such_predicate` at /facts/no_such_predicate\n"
    "  = help: use a predicate's local name (the part of its id after `#`) or its full id; "
    "`~` before it states the explicit negation\n\n"
    "error: 1 error found\n"
)


def test_bad_facts_raise_with_lawgen_diagnostics():
    with pytest.raises(chess.FactsError) as e:
        chess.evaluate({"facts": {"no_such_predicate": [["g1"]]}})
    assert str(e.value) == UNKNOWN
    assert isinstance(e.value, chess.LawgenError)
    with pytest.raises(chess.FactsError, match=r"`player_of` takes 2 value\(s\), this row has 1"):
        chess.evaluate({"facts": {"player_of": [["g1"]]}})
    with pytest.raises(chess.FactsError, match=r"`game_drawn` is institutional"):
        chess.evaluate({"facts": {"game_drawn": [["g1"]]}})
    with pytest.raises(chess.FactsError, match=r"value 2 of `moves_by_each_without_pawn_or_capture` must be an integer"):
        chess.evaluate({"facts": {"moves_by_each_without_pawn_or_capture": [["g1", "75"]]}})
    with pytest.raises(chess.FactsError) as e:
        chess.evaluate({"facts": {"draw_agreed": [["g1"]], "~draw_agreed": [["g1"]]}})
    assert str(e.value) == (
        "invalid facts:\n"
        "error[E085]: both `draw_agreed(g1)` and `~draw_agreed(g1)` are given\n"
        "  --> node `draw_agreed` at /facts/~0draw_agreed\n"
        "  = help: a fact and its explicit negation cannot both hold: remove the wrong one\n\n"
        "error: 1 error found\n"
    )
    with pytest.raises(chess.FactsError, match="the input is not valid JSON: key must be a string at line 1 column 2"):
        chess.evaluate("{not json")
    with pytest.raises(chess.FactsError) as e:
        chess.evaluate_many([{"facts": {}}, {"facts": {"no_such_predicate": [["g1"]]}}])
    assert str(e.value) == "case 1: " + UNKNOWN
    with pytest.raises(chess.QueryError, match="no_such"):
        chess.explain({"facts": {}}, "no_such(g1)")


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match=r'unknown policy `skeptical`: use "blocking"'):
        chess.evaluate({"facts": {}}, policy="skeptical")
    with pytest.raises(ValueError, match=r'unknown engine `direct`: this module was compiled with the engine\(s\) "ascent"'):
        chess.evaluate({"facts": {}}, engine="direct")
    with pytest.raises(ValueError, match="explanations in `de` are not available: this version of lawgen renders them in en, ru"):
        chess.explain({"facts": {}}, "game_drawn(g1)", lang="de")
    with pytest.raises(ValueError, match='unknown format `html`: use "text" or "json"'):
        chess.explain({"facts": {}}, "game_drawn(g1)", format="html")
    with pytest.raises(ValueError, match="threads must be at least 1"):
        chess.evaluate_many([], threads=0)
    with pytest.raises(TypeError, match="facts must be a dict, a JSON str or bytes"):
        chess.evaluate(42)


def test_explain_speaks_russian():
    facts = {"facts": {"moves_by_each_without_pawn_or_capture": [["g1", 75]]}}
    text = chess.explain(facts, "game_drawn(g1)", lang="ru")
    assert text.startswith("game_drawn(g1): установлено ОСПОРИМО"), text
    assert "дано как факт" in text, text
    assert chess.EXPLAIN_LANGUAGES == ("en", "ru")


def all_cases():
    return [json.loads(facts(n)) for n in NAMES]


@pytest.mark.parametrize("policy", ["blocking", "propagating"])
@pytest.mark.parametrize("strings", [pa.string(), pa.large_string(), pa.string_view()])
@pytest.mark.parametrize("dictionary", [False, True])
def test_arrow_round_trip_equals_evaluate(policy, strings, dictionary):
    cases = all_cases()
    keys = [1000 - 7 * i for i in range(len(cases))]
    batch = facts_to_batch(cases, chess.ARITY, keys=keys, strings=strings, dictionary=dictionary)
    out = chess.evaluate_arrow(batch, policy, threads=2, include_empirical=True)
    assert isinstance(out, pa.RecordBatch)
    assert out.schema.metadata[b"lawgen.policy"] == policy.encode()
    got = verdicts_to_outputs(out)
    # Cases in order of first appearance; a case without rows is not in the batch.
    assert list(got) == [k for k, c in zip(keys, cases) if has_rows(c)]
    assert not all(map(has_rows, cases))
    for k, c in zip(keys, cases):
        if has_rows(c):
            assert got[k] == chess.evaluate(c, policy)


def institutional_only(out):
    return {
        k: ({lit: rows for lit, rows in v.items() if lit.lstrip("~") in INSTITUTIONAL} if isinstance(v, dict) else v)
        for k, v in out.items()
    }


@pytest.mark.parametrize("policy", ["blocking", "propagating"])
def test_arrow_verdicts_are_the_institutional_conclusions_by_default(policy):
    cases = all_cases()
    out = chess.evaluate_arrow(facts_to_batch(cases, chess.ARITY), policy)
    assert set(out.column("literal").to_pylist()) - {None} <= INSTITUTIONAL | {"~" + p for p in INSTITUTIONAL} | {
        "piece_touched_intentionally",
        "case_not_precisely_regulated",
    }
    got = verdicts_to_outputs(out)
    assert list(got) == [i for i, c in enumerate(cases) if has_rows(c)]
    for i, c in enumerate(cases):
        if has_rows(c):
            assert got[i] == institutional_only(chess.evaluate(c, policy)), NAMES[i]
    # A case that concludes nothing still has a row.
    none = out.filter(pa.compute.equal(out.column("section"), "none"))
    assert none.num_rows > 0
    for k in none.column("case").to_pylist():
        mine = institutional_only(chess.evaluate(cases[k], policy))
        assert not mine["requests"] and not any(mine[s] for s in ["definitely", "defeasibly", "supported", "pending"])


def test_arrow_rows_of_a_case_may_be_interleaved():
    cases = all_cases()[:6]
    batch = facts_to_batch(cases, chess.ARITY)
    shuffled = batch.take(pa.array(list(range(batch.num_rows))[::-1]))
    got = verdicts_to_outputs(chess.evaluate_arrow(shuffled, threads=1, include_empirical=True))
    assert sorted(got) == list(range(6))
    for i, c in enumerate(cases):
        assert got[i] == chess.evaluate(c)


def test_arrow_columns_may_be_left_out():
    batch = pa.record_batch(
        {
            "case": pa.array([7, 7, 7, 7], pa.int64()),
            "predicate": ["player_of", "player_of", "checkmate_delivered", "moves_by_each_without_pawn_or_capture"],
            "e0": ["g1", "g1", "g1", "g1"],
            "e1": ["white", "black", "white", None],
            "n1": pa.array([None, None, None, 75], pa.int64()),
        }
    )
    got = verdicts_to_outputs(chess.evaluate_arrow(batch, include_empirical=True))
    assert got[7] == chess.evaluate(
        {
            "facts": {
                "player_of": [["g1", "white"], ["g1", "black"]],
                "checkmate_delivered": [["g1", "white"]],
                "moves_by_each_without_pawn_or_capture": [["g1", 75]],
            }
        }
    )


def test_a_malformed_case_fails_alone_with_lawgen_message():
    good = all_cases()[:3]
    bad = [
        {"facts": {"no_such_predicate": [["g1"]]}},
        {"facts": {"player_of": [["g1", "white", "black"]]}},
        {"facts": {"player_of": [["g1", None]]}},
        {"facts": {"moves_by_each_without_pawn_or_capture": [["g1", "many"]]}},
        {"facts": {"draw_agreed": [["g1"]], "~draw_agreed": [["g1"]]}},
        {"facts": {"game_drawn": [["g1"]]}},
        {"entities": {"NoSuchType": ["x"]}, "facts": {}},
    ]
    cases = good[:1] + bad + good[1:]
    got = verdicts_to_outputs(chess.evaluate_arrow(facts_to_batch(cases, chess.ARITY), include_empirical=True))
    for i, c in enumerate(cases):
        if c in bad:
            with pytest.raises(chess.FactsError) as e:
                chess.evaluate(c)
            assert got[i] == {"error": str(e.value)}, i
        else:
            assert got[i] == chess.evaluate(c)


def test_entities_are_declared_with_at_type_rows():
    # An undecided judgment on a declared situation is requested.
    c = {"entities": {"Situation": ["s1"]}, "facts": {}}
    want = chess.evaluate(c)
    assert want["requests"]
    got = verdicts_to_outputs(chess.evaluate_arrow(facts_to_batch([c], chess.ARITY), include_empirical=True))
    assert got[0] == want


def test_bad_batches_raise():
    ok = facts_to_batch(all_cases()[:1], chess.ARITY)
    with pytest.raises(ValueError, match="unexpected column `arg0`: a facts batch has the columns case, predicate, e0, n0"):
        chess.evaluate_arrow(ok.append_column("arg0", pa.array(["x"] * ok.num_rows)))
    with pytest.raises(ValueError, match="the facts batch has no column `case`"):
        chess.evaluate_arrow(ok.drop_columns(["case"]))
    with pytest.raises(TypeError, match="column `case` must be int64, not Utf8"):
        chess.evaluate_arrow(ok.set_column(0, "case", pa.array(["a"] * ok.num_rows)))
    with pytest.raises(TypeError, match="column `e0` must hold strings"):
        chess.evaluate_arrow(ok.set_column(2, "e0", pa.array([1] * ok.num_rows, pa.int64())))
    with pytest.raises(ValueError, match="column `case` has nulls"):
        chess.evaluate_arrow(ok.set_column(0, "case", pa.array([None] * ok.num_rows, pa.int64())))
    with pytest.raises(TypeError, match="evaluate_arrow takes a record batch"):
        chess.evaluate_arrow({"case": [1]})
    empty = chess.evaluate_arrow(ok.slice(0, 0))
    assert empty.num_rows == 0 and "message" in empty.schema.names
