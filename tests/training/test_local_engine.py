"""Baselines in place of GTP engines: in this process, and in a child process a job for parallel matches."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from engine import load_sgf_file
from engine.core.rules import Rules
from training.gtp_client import GTPEngineError, GTPError
from training.gtp_games import GtpMatchConfig, play_gtp_match
from training.local_engine import LocalEngine, LocalEngineProcess

pytest.importorskip("libs.ai", reason="gomokubench is a dev dependency")

RULES = Rules.gomoku(9, 5, "freestyle")
OPENING = ["boardsize 9", "clear_board", "play b E5", "play w D4", "play b F6"]


def test_a_child_process_answers_as_the_player_in_this_process_and_survives_a_refusal() -> None:
    here = LocalEngine("gomokubench:standard", RULES, seed=3, name="here")
    with LocalEngineProcess("gomokubench:standard", RULES, seed=3, name="there") as there:
        assert there.name == "there"
        assert there.send_many(OPENING) == here.send_many(OPENING)
        with pytest.raises(GTPError, match="refused 'boardsize 7': this baseline plays on 9x9"):
            there.send("boardsize 7")
        with pytest.raises(GTPError, match="unknown command"):
            there.send("showboard")
        assert there.send("genmove w") == here.send("genmove w")   # the refusals changed nothing
        assert there.genmoves == 1 and there.genmove_seconds > 0
        child = there._process
        assert child.pid != os.getpid() and child.is_alive()
        child.kill()
        child.join()
        with pytest.raises(GTPEngineError, match="there .*(exited|stopped)"):
            there.send("genmove b")
    assert not child.is_alive()


def test_a_player_that_cannot_start_in_its_child_says_why() -> None:
    with pytest.raises(GTPEngineError, match="gomokubench plays five in a row only"):
        LocalEngineProcess("gomokubench:hard", Rules.go(9, "chinese"), name="B")
    assert not [child for child in multiprocessing.active_children() if child.name.startswith("local engine")]


def test_parallel_jobs_play_their_baselines_in_child_processes_and_the_same_games(tmp_path: Path) -> None:
    children_seen: list[int] = []

    def match(jobs: int) -> list[tuple[list[int], object]]:
        folder = tmp_path / f"jobs{jobs}"
        config = GtpMatchConfig(games=4, rules=RULES, random_moves=2, seed=4, jobs=jobs)
        play_gtp_match("gomokubench:standard", "gomokubench:standard", config, folder, lambda _: children_seen.append(
            sum(child.name.startswith("local engine") for child in multiprocessing.active_children())))
        records = [load_sgf_file(folder / f"game-{i:04d}.sgf") for i in range(1, 5)]
        return [([move.action for move in record.moves], record.result) for record in records]

    in_threads = match(1)
    assert children_seen == [0] * 4
    children_seen.clear()
    assert match(2) == in_threads   # deterministic players: the same four games, whichever job played each
    # two jobs, two players each, all in child processes (one job may have finished by the last game)
    assert max(children_seen) == 4 and min(children_seen) >= 2
    assert not [child for child in multiprocessing.active_children() if child.name.startswith("local engine")]
