"""The example's game generator (examples/distributed/chess_cases.py) is an
exact port of the bench generator: on the same seed, game i has the same
facts, and so the same docs/reference.md#the-canonical-output output, as `cases N` (benches/src/bin/cases.rs)
prints for it. CASES names that binary (scripts/test-python.sh builds it)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import fide_laws_chess as chess
from layout import verdicts_to_outputs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples/distributed"))
import chess_cases  # noqa: E402

CASES = os.environ.get("CASES", str(ROOT / "target/debug/cases"))
N = 500


def test_the_port_draws_the_bench_generator_games():
    lines = subprocess.run([CASES, str(N)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == N
    batch = chess_cases.partition(chess_cases.SEED, 0, N)
    got = verdicts_to_outputs(chess.evaluate_arrow(batch, include_empirical=True))
    for i, line in enumerate(lines):
        assert got[i] == chess.evaluate(json.loads(line)), i


def test_a_malformed_game_fails_alone():
    batch = chess_cases.partition(chess_cases.SEED, 10, 5, malformed=(12,))
    got = verdicts_to_outputs(chess.evaluate_arrow(batch))
    assert sorted(got) == [10, 11, 12, 13, 14]
    assert "must be an integer in the i64 range, found \"seventy-five\"" in got[12]["error"]
    assert all("error" not in got[i] for i in [10, 11, 13, 14])
