"""datalog-conformance evaluators backed by `lawgen eval`.

``LawgenEvaluator`` implements both protocols of the suite (``evaluate(program)`` for core
Datalog and ``evaluate(theory, policy)`` for defeasible theories), so one import path serves
the whole corpus: ``--datalog-evaluator=lawgen_conformance.LawgenEvaluator``.
``LawgenDatalogEvaluator`` / ``LawgenDefeasibleEvaluator`` are the same class under the
protocol names, for readers who want them separate.
"""

from .evaluator import (
    LawgenDatalogEvaluator,
    LawgenDefeasibleEvaluator,
    LawgenEvaluator,
    LawgenRejected,
    out_of_scope_reason,
)

__all__ = [
    "LawgenDatalogEvaluator",
    "LawgenDefeasibleEvaluator",
    "LawgenEvaluator",
    "LawgenRejected",
    "out_of_scope_reason",
]
