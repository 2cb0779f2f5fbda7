"""The datalog-conformance corpus, run against `lawgen eval`.

The datalog-conformance wheel ships the YAML corpus, the runner and a pytest plugin (which
parametrizes any test that takes the ``yaml_test_case`` fixture), but not the test function
itself (that lives in the project's sdist ``tests/test_conformance.py``), so
``pytest --pyargs datalog_conformance`` alone collects nothing.  This file is that test
function, plus the scope decisions of this adapter (README.md):

* ``test_yaml_conformance`` — each case exactly as the suite's runner defines it
  (``expect`` under ``blocking``; ``expect_per_policy`` under each listed policy);
* ``test_yaml_conformance_propagating`` — each defeasible ``expect`` case again under
  ``propagating``.  The suite's expectations were written for blocking, so the full
  expectation is asserted only where the two policies provably agree (the theory has no
  literal with rules or facts on both sides, hence no attacks); elsewhere the test checks
  what docs/reference.md#what-a-package-means fixes for every policy: ``definitely`` as expected and equal to blocking's,
  ``supported`` equal to blocking's, and (without ``not`` items) +∂ under propagation ⊆
  +∂ under blocking (ambiguity propagation is the more sceptical policy).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from datalog_conformance.runner import ConformanceFailure, YamlTestRunner
from datalog_conformance.schema import Policy
from datalog_conformance.schema import TestCase as SuiteCase

from lawgen_conformance import out_of_scope_reason
from lawgen_conformance.evaluator import theory_rule_specs
from lawgen_conformance.syntax import Atom


def _scope(yaml_test_case: tuple[Path, SuiteCase]) -> SuiteCase:
    path, case = yaml_test_case
    if case.skip is not None:
        pytest.skip(case.skip)
    reason = out_of_scope_reason(path, case)
    if reason:
        pytest.skip(reason)
    return case


@pytest.mark.conformance
def test_yaml_conformance(runner: YamlTestRunner, yaml_test_case: tuple[Path, SuiteCase]) -> None:
    case = _scope(yaml_test_case)
    runner.run_test_case(case)


def _conflict_free(case: SuiteCase) -> bool:
    assert case.theory is not None
    sides: dict[str, set[bool]] = {}
    for key in case.theory.facts:
        neg = key.startswith("~")
        sides.setdefault(key.lstrip("~"), set()).add(neg)
    for spec in theory_rule_specs(case.theory):
        h = spec.parsed.head
        sides.setdefault(h.predicate, set()).add(h.negative)
    return all(len(s) < 2 for s in sides.values())


def _has_naf(case: SuiteCase) -> bool:
    assert case.theory is not None
    return any(
        not isinstance(item, Atom)
        and type(item).__name__ == "Naf"
        for spec in theory_rule_specs(case.theory)
        for item in spec.parsed.body
    )


@pytest.mark.conformance
def test_yaml_conformance_propagating(runner: YamlTestRunner, yaml_test_case: tuple[Path, SuiteCase]) -> None:
    case = _scope(yaml_test_case)
    if case.theory is None:
        pytest.skip("core Datalog case: no policy")
    if case.expect_error is not None or case.expect is None:
        pytest.skip("covered by test_yaml_conformance (expect_per_policy or expect_error)")
    evaluator: Any = runner.evaluator
    prop = evaluator.evaluate(case.theory, Policy.PROPAGATING).sections
    expected: dict[str, Any] = case.expect  # type: ignore[assignment]
    if _conflict_free(case):
        runner._assert_sections(case.name, expected, prop, policy="propagating")  # noqa: SLF001
        return
    block = evaluator.evaluate(case.theory, Policy.BLOCKING).sections
    if "definitely" in expected:
        runner._assert_sections(case.name, {"definitely": expected["definitely"]}, prop,  # noqa: SLF001
                                policy="propagating")
    problems = []
    if prop["definitely"] != block["definitely"]:
        problems.append(f"definitely differs: propagating {prop['definitely']} vs blocking {block['definitely']}")
    if not _has_naf(case):
        if prop["supported"] != block["supported"]:
            problems.append(f"supported differs: propagating {prop['supported']} vs blocking {block['supported']}")
        for p, rows in prop["defeasibly"].items():
            extra = rows - block["defeasibly"].get(p, set())
            if extra:
                problems.append(f"+∂ under propagating but not blocking: {p} {sorted(extra)}")
    if problems:
        raise ConformanceFailure(f"{case.name} (propagating): " + "; ".join(problems))
