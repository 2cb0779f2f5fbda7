"""Regenerate examples/: the IR package + facts file the adapter writes for a few small cases.

    PYTHONPATH=tests/conformance python tests/conformance/make_examples.py
"""

from __future__ import annotations

import json
from pathlib import Path

from datalog_conformance.plugin import discover_yaml_tests

from lawgen_conformance.evaluator import program_rule_specs, theory_rule_specs
from lawgen_conformance.translate import translate

EXAMPLES = [
    "transitive_closure",  # recursion
    "nemo_negation_projectedZ",  # not items, existential variable in a not
    "strict_and_defeasible_interaction",  # defeater + superiority
    "morris_example5_tweety_blocked_default",  # ~p facts on a derived predicate: p__input bridge
    "antoniou_ambiguous_attacker_blocks_only_in_propagating",  # zero-arity, policy difference
    "crepe_recursive_negation",  # error case: unstratifiable
    "souffle_flights_VAflies",  # string constants in rules
]

HERE = Path(__file__).resolve().parent


def main() -> None:
    wanted = set(EXAMPLES)
    for _path, case in discover_yaml_tests():
        if case.name not in wanted:
            continue
        wanted.discard(case.name)
        if case.program is not None:
            tr = translate(case.name, case.program.facts, program_rule_specs(case.program),
                           description=case.description)
        else:
            assert case.theory is not None
            tr = translate(case.name, case.theory.facts, theory_rule_specs(case.theory),
                           case.theory.superiority, description=case.description)
        out = HERE / "examples" / case.name
        out.mkdir(parents=True, exist_ok=True)
        (out / "package.ir.json").write_text(
            json.dumps(tr.package, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        (out / "facts.json").write_text(
            json.dumps(tr.facts, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(HERE)}")
    if wanted:
        raise SystemExit(f"cases not found: {sorted(wanted)}")


if __name__ == "__main__":
    main()
