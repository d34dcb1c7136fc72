"""Match players in this process and in a child process a job for parallel matches."""

from __future__ import annotations

import multiprocessing
import os
from functools import partial
from pathlib import Path

import pytest

from engine import load_sgf_file
from engine.core.coords import gtp_to_action
from engine.core.rules import Rules
from engine.core.types import Color
from training.errors import PlayerError
from training.match import contestant, make_agent, play_match
from training.match_config import MatchConfig
from training.player_process import PlayerProcess
from training.players import LocalPlayer, play_through

pytest.importorskip("libs.ai", reason="gomokubench is a dev dependency")

RULES = Rules.gomoku(9, 5, "freestyle")
OPENING = [(Color.BLACK, "E5"), (Color.WHITE, "D4"), (Color.BLACK, "F6")]


def _children() -> list[multiprocessing.Process]:
    return [child for child in multiprocessing.active_children() if child.name.startswith("match player")]


def test_a_child_process_answers_as_the_player_in_this_process_and_survives_a_refusal() -> None:
    build = partial(make_agent, "gomokubench:standard", RULES, MatchConfig())
    here = LocalPlayer(build(), "here")
    there = PlayerProcess(build, "there")
    try:
        assert there.name == "there"
        for player in (here, there):
            player.new_game(RULES, 3)
            for color, vertex in OPENING:
                player.play(color, gtp_to_action(vertex, 9))
        with pytest.raises(PlayerError, match="there refused play: .*occupied"):
            there.play(Color.WHITE, gtp_to_action("E5", 9))
        assert play_through(there.genmove(Color.WHITE)) == play_through(here.genmove(Color.WHITE))  # nothing changed
        assert there.genmoves == 1 and there.genmove_seconds > 0
        child = there._process
        assert child.pid != os.getpid() and child.is_alive()
        child.kill()
        child.join()
        with pytest.raises(PlayerError, match="there .*(exited|stopped)"):
            play_through(there.genmove(Color.BLACK))
    finally:
        there.close()
    assert not child.is_alive()


def test_a_player_that_cannot_start_in_its_child_says_why() -> None:
    with pytest.raises(PlayerError, match="gomokubench plays five in a row only"):
        PlayerProcess(partial(make_agent, "gomokubench:hard", Rules.go(9, "chinese"), MatchConfig()), "B")
    assert not _children()


def test_parallel_jobs_play_their_baselines_in_child_processes_and_the_same_games(tmp_path: Path) -> None:
    children_seen: list[int] = []

    def match(jobs: int) -> list[tuple[list[int], object]]:
        folder = tmp_path / f"jobs{jobs}"
        config = MatchConfig(games=4, random_moves=2, seed=4, jobs=jobs)
        a = contestant("gomokubench:easy", "A", RULES, config)
        b = contestant("gomokubench:easy", "B", RULES, config)
        play_match(a, b, RULES, config, folder, lambda _: children_seen.append(len(_children())))
        records = [load_sgf_file(folder / f"game-{i:04d}.sgf") for i in range(1, 5)]
        return [([move.action for move in record.moves], record.result) for record in records]

    in_threads = match(1)
    assert children_seen == [0] * 4
    children_seen.clear()
    assert match(2) == in_threads   # seeded players: the same four games, whichever job played each
    # two jobs, two players each, all in child processes (one job may have finished by the last game)
    assert max(children_seen) == 4 and min(children_seen) >= 2
    assert not _children()
