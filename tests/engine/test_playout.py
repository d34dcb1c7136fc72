"""The compiled random playouts play only legal moves, end properly and sample uniformly."""

from __future__ import annotations

import numpy as np
import pytest

from engine.bench.playouts import PlayoutBench
from engine.core.board import geometry
from engine.core.game import Game
from engine.core.playout import random_playout, seed_kernels
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.rules_kernels import pack_rules


@pytest.mark.parametrize("rules_text", ["japanese size=5", "japanese size=9", "new-zealand size=7 ko=simple",
                                        "freestyle size=9", "standard size=7 k=4", "renju size=9"])
def test_recorded_playouts_replay_through_checked_play(rules_text: str) -> None:
    """The kernels apply simple ko only, so the replay uses rules with simple ko (suicide both ways)."""
    rules = Rules.parse(rules_text)
    seed_kernels(3)
    bench = PlayoutBench(rules, Position(rules))
    for _ in range(10):
        actions = bench.record_game()
        replay = Game(bench.rules)
        for action in actions:
            replay.play(action)  # raises IllegalMoveError if the kernel chose an illegal move
        assert replay.is_over, "a playout stopped before the game ended"


def test_first_move_is_uniform_over_legal_actions() -> None:
    """Chi-square over the 26 legal first moves on 5x5 (25 points and pass)."""
    rules = Rules.go(5, "japanese")
    geo = geometry(5)
    seed_kernels(11)
    counts = np.zeros(26)
    empties = np.empty(25, dtype=np.int64)
    record = np.empty(1, dtype=np.int64)
    for _ in range(5200):
        position = Position(rules)
        random_playout(position.cells, position.info, geo.zobrist, geo.width, geo.action_point,
                       pack_rules(Rules.parse("japanese size=5 cap=1")), False, empties, record)
        point = int(record[0])
        counts[25 if point == 0 else geo.point_action[point]] += 1
    expected = counts.sum() / 26
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 52.6, f"chi-square {chi2:.1f} with 25 degrees of freedom (p < 0.001)"
