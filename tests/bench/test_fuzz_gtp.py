"""Fuzzing the GTP session: every fuzzed line gets one well-formed answer in order, the session lives on and
still plays a correct move (:mod:`bench.fuzz` writes the lines and reads the answers; hypothesis is the random
source). The regression tests name the failures the guard now answers."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.fuzz import GtpFuzz, Script, Verdict, make_script
from gtp.commands import build_registry
from gtp.errors import describe_error
from gtp.session import Session
from gtp.state import EngineState
from tests.gtp.helpers import front_end_config, fuzz_state, responses


@pytest.fixture(scope="module")
def state() -> EngineState:
    return fuzz_state()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where fuzzed ``loadsgf`` finds hostile SGF files and ``printsgf`` writes."""
    return tmp_path_factory.mktemp("scratch")


def fuzz(state: EngineState, script: Script) -> Verdict:
    out = io.BytesIO()
    Session(build_registry(), state, io.BytesIO(script.data()), out, describe_error).run()
    return GtpFuzz(build_registry().names()).check(script, out.getvalue().splitlines())


@given(st.randoms(use_true_random=False), st.integers(1, 16))
def test_fuzzed_lines_each_get_one_answer_and_a_correct_move_follows(state: EngineState, scratch: Path,
                                                                      rng: random.Random, count: int) -> None:
    front_end = GtpFuzz(build_registry().names(), scratch)
    verdict = fuzz(state, make_script(front_end, rng, count))
    assert verdict.clean and not verdict.internal_errors, verdict


def test_a_long_fuzzed_stream(state: EngineState, scratch: Path) -> None:
    front_end = GtpFuzz(build_registry().names(), scratch)
    verdict = fuzz(state, make_script(front_end, random.Random(41), 400))
    assert verdict.clean and not verdict.internal_errors and verdict.probes == 400, verdict


def test_the_check_finds_a_missing_and_a_wrong_answer(state: EngineState) -> None:
    front_end = GtpFuzz(build_registry().names())
    script = make_script(front_end, random.Random(0), 3)
    out = io.BytesIO()
    Session(build_registry(), state, io.BytesIO(script.data()), out, describe_error).run()
    blocks = out.getvalue().split(b"\n\n")
    dropped = b"\n\n".join(blocks[:1] + blocks[2:])   # the second response lost
    assert not front_end.check(script, dropped.splitlines()).clean
    for wrong in (re.sub(rb"=990000005 \w+", b"=990000005 E5", out.getvalue()),
                  out.getvalue().replace(b"=1000000001 2", b"=1000000001 3")):
        assert not front_end.check(script, wrong.splitlines()).clean
    assert front_end.check(script, out.getvalue().splitlines()).clean


class _BrokenRestore(EngineState):
    """A state whose restore fails, as a bug outside any handler would."""

    def restore(self, snapshot: object) -> None:
        raise KeyError("lost snapshot")


def test_a_failure_outside_the_handlers_is_answered_and_the_session_goes_on() -> None:
    state = _BrokenRestore(front_end_config(size=9, visits=8, batch=4, seed=3))
    state.start(background=False)
    out = io.BytesIO()
    data = b"1 boardsize 9\n2 play b Z99\n3 play b E5\n4 name\n"
    Session(build_registry(), state, io.BytesIO(data), out, describe_error).run()
    assert responses(out.getvalue().decode()) == [("=", "1", ""), ("?", "2", "internal error: KeyError"),
                                                  ("=", "3", ""), ("=", "4", "engine")]


def test_loadsgf_of_a_hostile_file_fails_and_changes_nothing(state: EngineState, scratch: Path) -> None:
    files = [path for path in GtpFuzz(build_registry().names(), scratch).sgf_files
             if path.name not in ("game.sgf", "huge-comment.sgf")]   # these two are games
    lines = "boardsize 9\nclear_board\nkomi 6.5\nplay b D4\nshowboard\n" + "".join(
        f"loadsgf {path}\nshowboard\n" for path in files)
    out = io.BytesIO()
    Session(build_registry(), state, io.BytesIO(lines.encode()), out, describe_error).run()
    found = responses(out.getvalue().decode())
    board = found[4]
    for number, path in enumerate(files):
        failed, shown = found[5 + 2 * number:7 + 2 * number]
        assert failed == ("?", None, "cannot load file"), path
        assert shown == board, path
