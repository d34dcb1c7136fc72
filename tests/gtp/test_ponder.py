"""Pondering (``engine gtp --ponder``): after its own move the engine searches on the opponent's time, stops
when a command arrives, and the next genmove reuses that tree. Nothing here is timed: the test waits for
the pondering search to have evaluated a number of positions, whatever that takes."""

from __future__ import annotations

import io
import os
import threading
import time

from engine import Evaluation
from gtp.commands import build_registry
from gtp.errors import describe_error
from gtp.session import Session
from gtp.state import EngineState
from tests.gtp.helpers import front_end_config, responses

VISITS = 16
PONDERED = 2000  # positions the pondering search evaluates before the opponent "replies"
PATIENCE = 300.0  # seconds before the test gives up waiting (a stuck session), not a speed requirement


class _Conversation:
    """A session in a thread over a pipe, as a controller drives it: one command, then its answer."""

    def __init__(self, ponder: bool) -> None:
        self.state = EngineState(front_end_config(size=5, visits=VISITS, batch=8, seed=1, ponder=ponder))
        self.state.start(background=False)
        self.evaluated = 0
        self.searched: list[float] = []
        evaluate, choose = self.state.player.evaluator.evaluate, self.state.player.choose

        def counting_evaluate(positions, legal=None) -> Evaluation:  # type: ignore[no-untyped-def]
            self.evaluated += len(positions)
            return evaluate(positions, legal)

        def recording_choose(game, color, **kwargs):  # type: ignore[no-untyped-def]
            decision = choose(game, color, **kwargs)
            self.searched.append(float(decision.search.visits.sum()))
            return decision

        self.state.player.evaluator.evaluate = counting_evaluate  # type: ignore[method-assign]
        self.state.player.choose = recording_choose  # type: ignore[method-assign]
        read, self._write = os.pipe()
        self.out = io.BytesIO()
        session = Session(build_registry(), self.state, os.fdopen(read, "rb"), self.out, describe_error,
                          ponder=self.state.ponder_job if ponder else None)
        self._thread = threading.Thread(target=session.run, daemon=True)
        self._thread.start()

    def ask(self, command: str) -> str:
        count = len(responses(self.out.getvalue().decode()))
        os.write(self._write, command.encode() + b"\n")
        deadline = time.monotonic() + PATIENCE
        while len(found := responses(self.out.getvalue().decode())) == count:
            assert time.monotonic() < deadline, f"no answer to {command!r}"
            time.sleep(0.005)
        status, _id, text = found[-1]
        assert status == "=", text
        return text

    def wait_for_evaluations(self, count: int) -> None:
        deadline = time.monotonic() + PATIENCE
        while self.evaluated < count:
            assert time.monotonic() < deadline, f"pondering evaluated only {self.evaluated} positions"
            time.sleep(0.01)

    def close(self) -> None:
        os.write(self._write, b"quit\n")
        self._thread.join(PATIENCE)
        os.close(self._write)


def _reply_and_move(ponder: bool) -> tuple[_Conversation, float]:
    """genmove b, (pondering), the reply the engine expects played for white, genmove b: that search's visits."""
    talk = _Conversation(ponder)
    talk.ask("genmove b")
    if ponder:
        talk.wait_for_evaluations(talk.evaluated + PONDERED)
    expected = talk.ask("reg_genmove w")  # the most visited reply in the tree
    talk.ask(f"play w {expected}")
    talk.ask("genmove b")
    talk.close()
    return talk, talk.searched[-1]


def test_a_genmove_after_pondering_reuses_the_pondered_tree() -> None:
    _talk, plain = _reply_and_move(ponder=False)
    talk, pondered = _reply_and_move(ponder=True)
    assert plain <= VISITS
    assert pondered > 2 * VISITS, (plain, pondered)
    assert talk.state.game.moves[-1].color == 1 and len(talk.state.game.moves) == 3


def test_no_pondering_without_the_engine_s_own_move() -> None:
    """After a play (the engine's turn, not the opponent's) nothing searches: only genmove's evaluations count."""
    talk = _Conversation(ponder=True)
    talk.ask("play b C3")
    before = talk.evaluated
    talk.ask("showboard")
    talk.ask("komi 6.5")
    assert talk.evaluated == before
    assert talk.state.ponder_job() is None
    talk.close()


def test_pondering_waits_for_a_background_warm_up() -> None:
    """A compile in the background and a pondering search would slow each other and the answers."""
    talk = _Conversation(ponder=False)
    talk.ask("genmove b")
    running, release = threading.Event(), threading.Event()
    talk.state._background.run("a stand-in compile", lambda: (running.set(), release.wait(PATIENCE)))
    assert running.wait(PATIENCE)
    job = talk.state.ponder_job()
    assert job is not None
    stopped = threading.Event()
    pondering = threading.Thread(target=job, args=(stopped.is_set,), daemon=True)
    before = talk.evaluated
    pondering.start()
    pondering.join(0.5)
    assert pondering.is_alive() and talk.evaluated == before  # waiting, not searching
    release.set()
    talk.wait_for_evaluations(before + 50)  # the warm-up done, it searches
    stopped.set()
    pondering.join(PATIENCE)
    assert not pondering.is_alive()
    talk.close()
