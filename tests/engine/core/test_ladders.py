"""Ladders as KataGo's input features read them (engine/core/ladders.py), on diagram positions.

The white stone on D5 is in atari in every diagram; black chases it toward the lower left or lower right.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.board import geometry
from engine.core.coords import gtp_to_action
from engine.core.ladders import ladder_captured, ladder_features, ladder_working_moves
from engine.formats.diagram import game_from_diagram

WORKING = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X . . . . .
    . . X O X . . . .
    . . . . . . . . .
    . . . X . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
# White stones on both paths of the chase break it.
BROKEN = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X . . . . .
    . . X O X . . . .
    . . . . . . . . .
    . . . X . . . . .
    . O . . . O . . .
    . . . . . . . . .
"""
# Black's E5 is in atari: white escapes by taking it.
ESCAPE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . O . . . .
    . . . X O . . . .
    . . X O X O . . .
    . . . . . . . . .
    . . . X . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
# Two liberties (D4 and E5): black's E5 leaves a working ladder, D4 lets white out.
TWO_LIBERTIES = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X . . . . .
    . . X O . . . . .
    . . . . . . . . .
    . . . X . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def _point(vertex: str) -> int:
    geo = geometry(9)
    return int(geo.action_point[gtp_to_action(vertex, 9)])


def _captured(diagram: str, vertex: str = "D5") -> bool:
    game = game_from_diagram(diagram, "tromp-taylor", to_play="W")
    cells, info = game.position.cells.copy(), game.position.info.copy()
    geo = geometry(9)
    result = bool(ladder_captured(cells, info, geo.zobrist, geo.width, _point(vertex), True))
    np.testing.assert_array_equal(cells, game.position.cells)  # the chase leaves the board as it was
    np.testing.assert_array_equal(info, game.position.info)
    return result


@pytest.mark.parametrize(("diagram", "captured"), [(WORKING, True), (BROKEN, False), (ESCAPE, False)])
def test_a_stone_in_atari_is_laddered_unless_broken_or_it_captures(diagram: str, captured: bool) -> None:
    assert _captured(diagram) is captured


def test_one_breaker_leaves_the_chase_the_other_way() -> None:
    one_breaker = BROKEN.replace(". O . . . O . . .", ". O . . . . . . .")
    assert _captured(one_breaker)


def test_the_working_moves_of_a_two_liberty_chain() -> None:
    game = game_from_diagram(TWO_LIBERTIES, "tromp-taylor", to_play="B")
    geo = geometry(9)
    working = np.zeros(2, np.int64)
    cells, info = game.position.cells.copy(), game.position.info.copy()
    found = ladder_working_moves(cells, info, geo.zobrist, geo.width, _point("D5"), working)
    assert sorted(working[:found].tolist()) == [_point("E5")]


def test_features_mark_the_laddered_stones_and_the_working_moves() -> None:
    game = game_from_diagram(TWO_LIBERTIES, "tromp-taylor", to_play="B")
    geo = geometry(9)
    out = np.zeros((4, 81), np.float32)
    position = game.position
    ladder_features(position.cells, position.info, geo.zobrist, geo.empty_cells, geo.width, geo.action_point, 0,
                    out)
    d5, e5 = gtp_to_action("D5", 9), gtp_to_action("E5", 9)
    assert np.flatnonzero(out[0]).tolist() == [d5]
    assert np.flatnonzero(out[3]).tolist() == [e5]
    # no moves played: the boards one and two moves ago are this one
    np.testing.assert_array_equal(out[1], out[0])
    np.testing.assert_array_equal(out[2], out[0])
