"""Fuzzing the Gomocup brain: every fuzzed line gets at most the one answer its command calls for, in order,
each answer one line, and the brain still plays a legal move (:mod:`bench.fuzz`; hypothesis is the random
source). The regression tests name the failures the brain's guard now answers."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.fuzz import GomocupFuzz, Script, Verdict, make_script
from gtp.gomocup import GomocupBrain
from tests.gtp.helpers import front_end_config


def run_brain(data: bytes) -> bytes:
    out = io.BytesIO()
    GomocupBrain(front_end_config(game="gomoku", visits=8, batch=4, seed=1), io.BytesIO(data), out).run()
    return out.getvalue()


def fuzz(script: Script) -> Verdict:
    return GomocupFuzz().check(script, run_brain(script.data()).splitlines())


@given(st.randoms(use_true_random=False), st.integers(1, 16))
def test_fuzzed_lines_each_get_their_answer_and_a_legal_move_follows(rng: random.Random, count: int) -> None:
    verdict = fuzz(make_script(GomocupFuzz(), rng, count))
    assert verdict.clean and not verdict.internal_errors, verdict


def test_a_long_fuzzed_stream() -> None:
    verdict = fuzz(make_script(GomocupFuzz(), random.Random(41), 400))
    assert verdict.clean and not verdict.internal_errors and verdict.probes > 350, verdict


def test_the_check_finds_a_missing_an_extra_and_a_wrong_answer() -> None:
    script = make_script(GomocupFuzz(), random.Random(3), 4)
    lines = run_brain(script.data()).splitlines()
    assert GomocupFuzz().check(script, lines).clean
    assert not GomocupFuzz().check(script, lines[1:]).clean
    assert not GomocupFuzz().check(script, lines[:2] + [b"OK"] + lines[2:]).clean
    assert not GomocupFuzz().check(script, lines[:-3] + [b"7,7"] + lines[-2:]).clean   # on the stone at 7,7


def test_control_characters_of_a_command_stay_out_of_its_answer() -> None:
    answers = run_brain(b"START 15\nHEL\x1b[2JLO\x07\x00\rMESSAGE\nABOUT\n").decode().split("\n")
    assert answers[:2] == ["OK", "UNKNOWN command HEL [2JLO"]
    assert answers[2].startswith('name="engine"')
    assert answers[3:] == [""]


def test_a_failure_outside_the_known_errors_is_answered_and_the_brain_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GomocupBrain, "_about", lambda self, rest: {}["about"])
    answers = run_brain(b"START 15\nABOUT\nBEGIN\n").decode().splitlines()
    assert answers[:2] == ["OK", "ERROR internal error: KeyError"]
    assert GomocupFuzz().expectations([b"BEGIN"]) and answers[2].count(",") == 1


def test_a_board_with_more_lines_than_points_is_refused_in_bounded_memory() -> None:
    data = b"START 5\nBOARD\n" + b"0,0,1\n" * 100000 + b"DONE\nBOARD\n2,2,2\nDONE\n"
    answers = run_brain(data).decode().splitlines()
    assert answers[0] == "OK"
    assert answers[1] == "ERROR BOARD names a point twice"
    assert answers[2] != "2,2" and answers[2].count(",") == 1


def test_an_over_long_line_is_refused_and_the_next_one_read() -> None:
    answers = run_brain(b"START 15\nTURN " + b"7" * 200000 + b"\nABOUT\n").decode().splitlines()
    assert answers[:2] == ["OK", "ERROR line too long"]
    assert answers[2].startswith('name="engine"')
