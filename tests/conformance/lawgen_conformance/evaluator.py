"""Run `lawgen eval` on translated cases and map its docs/reference.md#the-canonical-output output to the suite's models."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Iterable

from datalog_conformance.schema import (
    DefeasibleModel,
    DefeasibleTheory,
    Model,
    Policy,
    Program,
)

from .syntax import ArithmeticUnsupported, ParseError, parse_rule_text, parse_theory_rule
from .translate import INPUT_SUFFIX, RuleSpec, Translation, Unsupported, canonical_json, translate

REPO_ROOT = Path(__file__).resolve().parents[3]
SUPPORTED_POLICIES = {Policy.BLOCKING: "blocking", Policy.PROPAGATING: "propagating"}
CLOSURE_POLICIES = {Policy.RATIONAL_CLOSURE, Policy.LEXICOGRAPHIC_CLOSURE, Policy.RELEVANT_CLOSURE}


def lawgen_bin() -> Path:
    env = os.environ.get("LAWGEN_BIN")
    return Path(env) if env else REPO_ROOT / "target" / "debug" / "lawgen"


# ---------------------------------------------------------------------------------------
# errors


class ErrorCode(str):
    """A lawgen diagnosis category, equal to each name the suite uses for it.

    The suite's error names come from different upstream engines: the same diagnosis
    (a head variable not bound by the body) is ``unbound_variable`` in one case,
    ``safety_violations`` (Crepe) in another and ``SafetyViolationError`` in a third.
    ``runner._matches_expected_error`` compares ``exc.code == expected``; this string
    compares equal to every alias of its category, and to nothing else.
    """

    aliases: frozenset[str]

    def __new__(cls, primary: str, aliases: Iterable[str] = ()) -> "ErrorCode":
        obj = super().__new__(cls, primary)
        obj.aliases = frozenset(aliases) | {primary}
        return obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and str.__str__(other) in self.aliases

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


# lawgen diagnostic code -> (category, suite aliases)
_CATEGORIES: dict[str, tuple[str, tuple[str, ...]]] = {
    # range restriction / safety
    "E030": ("unbound_variable", ("safety_violations", "SafetyViolationError", "unsafe_variable")),
    "E031": ("unbound_variable", ("safety_violations", "SafetyViolationError", "unsafe_variable")),
    "E032": ("unbound_variable", ("safety_violations", "SafetyViolationError", "unsafe_variable")),
    # arity (in a rule literal, or in a fact row)
    "E020": ("arity_mismatch", ("ArityMismatchError",)),
    "E082": ("arity_mismatch", ("ArityMismatchError",)),
    # no stratification (negation through recursion)
    "E070": ("cyclic_negation", ("unstratifiable", "StratificationError")),
}


class LawgenRejected(Exception):
    """`lawgen eval` rejected the package or facts with ``error[E...]`` diagnostics."""

    def __init__(self, stderr: str, codes: list[str]) -> None:
        self.stderr = stderr
        self.codes = codes
        cats = [_CATEGORIES[c] for c in codes if c in _CATEGORIES]
        if cats:
            primary, aliases = cats[0]
            self.code: str = ErrorCode(primary, aliases)
        else:
            self.code = codes[0] if codes else "lawgen_error"
        super().__init__(f"lawgen rejected the package [{', '.join(codes)}]:\n{stderr.strip()}")


class LawgenFailed(RuntimeError):
    """`lawgen eval` failed without diagnostics (crash, bad CLI, unparsable output)."""


# ---------------------------------------------------------------------------------------
# scope


def _skip(reason: str) -> None:
    try:
        import pytest
    except ImportError:  # pragma: no cover
        raise NotImplementedError(reason)
    pytest.skip(reason)


def theory_rule_specs(theory: DefeasibleTheory) -> list[RuleSpec]:
    specs: list[RuleSpec] = []
    for strength, rules in (("strict", theory.strict_rules), ("defeasible", theory.defeasible_rules),
                            ("defeater", theory.defeaters)):
        for r in rules:
            specs.append(RuleSpec(r.id, strength, parse_theory_rule(r.head, r.body)))
    return specs


def program_rule_specs(program: Program) -> list[RuleSpec]:
    return [RuleSpec(f"r{i}", "strict", parse_rule_text(text)) for i, text in enumerate(program.rules)]


def out_of_scope_reason(path: Any, case: Any) -> str | None:
    """Why a suite case is out of scope for lawgen, or None if it is in scope."""

    parts = set(Path(str(path)).parts)
    tags = set(case.tags)
    if "closure" in parts or "closure" in tags:
        return "out of scope: rational/lexicographic/relevant closure semantics (not defeasible logic)"
    if "klm" in parts or "klm" in tags or case.klm_property is not None:
        return "out of scope: KLM postulate checks (closure semantics)"
    if case.expect_per_policy and any(p not in ("blocking", "propagating") for p in case.expect_per_policy):
        return "out of scope: expectations under closure policies"
    try:
        if case.program is not None:
            program_rule_specs(case.program)
        elif case.theory is not None:
            theory_rule_specs(case.theory)
    except ArithmeticUnsupported as exc:
        return f"out of scope: needs arithmetic ({exc})"
    except ParseError:
        return None  # let the evaluator report it
    return None


# ---------------------------------------------------------------------------------------
# running lawgen

_CACHE: dict[str, dict[str, Any]] = {}


def run_lawgen(tr: Translation, policy: str) -> dict[str, Any]:
    pkg_text = canonical_json(tr.package)
    facts_text = canonical_json(tr.facts)
    key = hashlib.sha256(f"{policy}\0{pkg_text}\0{facts_text}".encode()).hexdigest()
    if key in _CACHE:
        cached = _CACHE[key]
        if "rejected" in cached:
            raise LawgenRejected(cached["rejected"], cached["codes"])
        return cached
    binary = lawgen_bin()
    if not binary.exists():
        raise LawgenFailed(f"lawgen binary not found at {binary} (build it, or set LAWGEN_BIN)")
    keep = os.environ.get("LAWGEN_CONFORMANCE_KEEP")
    with tempfile.TemporaryDirectory(prefix="lawgen-conf-") as tmp:
        base = Path(keep) / key[:16] if keep else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        pkg_path, facts_path = base / "package.ir.json", base / "facts.json"
        pkg_path.write_text(json.dumps(tr.package, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
        facts_path.write_text(json.dumps(tr.facts, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        cmd = [str(binary), "eval", str(pkg_path), "--facts", str(facts_path), "--policy", policy]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=float(os.environ.get("LAWGEN_CONFORMANCE_TIMEOUT", "600")))
        except subprocess.TimeoutExpired as exc:
            raise LawgenFailed(f"lawgen eval timed out after {exc.timeout}s: {' '.join(cmd)}") from exc
        if keep:
            (base / f"stdout.{policy}.json").write_text(proc.stdout, encoding="utf-8")
            (base / f"stderr.{policy}.txt").write_text(proc.stderr, encoding="utf-8")
    if proc.returncode != 0:
        import re

        codes = list(dict.fromkeys(re.findall(r"error\[(E\d+)\]", proc.stderr)))
        if codes:
            _CACHE[key] = {"rejected": proc.stderr, "codes": codes}
            raise LawgenRejected(proc.stderr, codes)
        raise LawgenFailed(f"lawgen eval exited {proc.returncode} without diagnostics:\n{proc.stderr[-4000:]}")
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise LawgenFailed(f"lawgen eval printed no JSON object: {exc}\n{proc.stdout[:2000]}") from exc
    _CACHE[key] = out
    return out


# ---------------------------------------------------------------------------------------
# output mapping


def _local(key: str) -> tuple[str, bool]:
    neg = key.startswith("~")
    name = key[1:] if neg else key
    if "#" in name:
        name = name.split("#", 1)[1]
    return name, neg


def _section(out: dict[str, Any], name: str, tr: Translation) -> dict[str, set[tuple[Any, ...]]]:
    result: dict[str, set[tuple[Any, ...]]] = {}
    for key, rows in (out.get(name) or {}).items():
        base, neg = _local(key)
        if base.endswith(INPUT_SUFFIX) and base in tr.input_preds:
            continue
        conv = set()
        for row in rows:
            conv.add(tuple(tr.back_map.get(v, v) if isinstance(v, str) else v for v in row))
        if conv:
            result[("~" if neg else "") + base] = conv
    return result


class ComplementSection(dict):  # type: ignore[type-arg]
    """``not_defeasibly``: every ground literal of the theory's language that is not +∂.

    The language is the Herbrand base over the constants the theory mentions, typed by
    column (entity columns range over the entity constants, integer columns over the
    integer constants), for every predicate of the theory in both polarities.  It is
    computed per predicate on lookup, because the runner only asks for the predicates a
    case lists, and the full base of the large Souffle cases would not fit in memory.
    """

    def __init__(self, tr: Translation, defeasibly: dict[str, set[tuple[Any, ...]]]) -> None:
        super().__init__()
        self._tr = tr
        self._defeasibly = defeasibly

    def _compute(self, key: str) -> set[tuple[Any, ...]]:
        base, _ = _local(key)
        types = self._tr.col_types.get(base)
        if types is None:
            return set()
        ents = sorted(self._tr.back_map.get(e, e) for e in self._tr.entity_domain)
        ints = sorted(self._tr.int_domain)
        doms = [ints if t == "int" else ents for t in types]
        size = 1
        for d in doms:
            size *= len(d)
        if size > 5_000_000:
            raise LawgenFailed(f"not_defeasibly[{key}] would enumerate {size} ground literals")
        everything = set(itertools.product(*doms))
        return everything - self._defeasibly.get(key, set())

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if not dict.__contains__(self, key):
            dict.__setitem__(self, key, self._compute(key))
        return dict.__getitem__(self, key)

    def __getitem__(self, key: str) -> Any:
        return self.get(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and _local(key)[0] in self._tr.col_types


def defeasible_sections(out: dict[str, Any], tr: Translation) -> dict[str, dict[str, set[tuple[Any, ...]]]]:
    definitely = _section(out, "definitely", tr)
    defeasibly = _section(out, "defeasibly", tr)
    supported = _section(out, "supported", tr)
    pending = _section(out, "pending", tr)
    undecided = {p: rows - defeasibly.get(p, set()) for p, rows in supported.items()}
    undecided = {p: rows for p, rows in undecided.items() if rows}
    return {
        "definitely": definitely,
        "defeasibly": defeasibly,
        "supported": supported,
        "pending": pending,
        "undecided": undecided,
        "not_defeasibly": ComplementSection(tr, defeasibly),
    }


# ---------------------------------------------------------------------------------------
# translation entry points


def translate_program(program: Program, name: str = "program") -> Translation:
    try:
        specs = program_rule_specs(program)
        return translate(name, program.facts, specs)
    except ArithmeticUnsupported as exc:
        _skip(f"out of scope: needs arithmetic ({exc})")
        raise
    except Unsupported as exc:
        _skip(f"out of scope: {exc}")
        raise


def translate_theory(theory: DefeasibleTheory, name: str = "theory") -> Translation:
    for a, b in theory.conflicts:
        if not (a == "~" + b or b == "~" + a):
            _skip(f"out of scope: conflict pair {a!r}/{b!r} is not a literal and its complement")
    try:
        specs = theory_rule_specs(theory)
        return translate(name, theory.facts, specs, theory.superiority)
    except ArithmeticUnsupported as exc:
        _skip(f"out of scope: needs arithmetic ({exc})")
        raise
    except Unsupported as exc:
        _skip(f"out of scope: {exc}")
        raise


class LawgenEvaluator:
    """Both suite protocols: ``evaluate(program)`` and ``evaluate(theory, policy)``."""

    def evaluate(self, subject: Program | DefeasibleTheory, policy: Policy | None = None) -> Any:
        if isinstance(subject, Program):
            return self.evaluate_program(subject)
        if isinstance(subject, DefeasibleTheory):
            return self.evaluate_theory(subject, policy or Policy.BLOCKING)
        raise TypeError(f"cannot evaluate {type(subject).__name__}")

    def evaluate_program(self, program: Program) -> Model:
        tr = translate_program(program)
        out = run_lawgen(tr, "blocking")
        facts = {p: rows for p, rows in _section(out, "definitely", tr).items() if not p.startswith("~")}
        return Model(facts=facts)

    def evaluate_theory(self, theory: DefeasibleTheory, policy: Policy) -> DefeasibleModel:
        if policy in CLOSURE_POLICIES:
            _skip(f"out of scope: policy {policy.value}")
        tr = translate_theory(theory)
        out = run_lawgen(tr, SUPPORTED_POLICIES[policy])
        return DefeasibleModel(sections=defeasible_sections(out, tr))


LawgenDatalogEvaluator = LawgenEvaluator
LawgenDefeasibleEvaluator = LawgenEvaluator
