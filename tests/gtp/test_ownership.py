"""Monte-Carlo ownership (engine/core/ownership.py): eyes kept, settled groups certain, dead stones found."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.board import STONES, geometry
from engine.core.go import is_own_eye
from engine.core.ownership import playout_ownership, stone_status
from engine.core.types import BLACK, WHITE
from engine.formats.diagram import game_from_diagram

# Two-eyed groups on both sides (eyes A7, C7, A1, C1 and F7, F1); the white stone on B4 cannot live.
SETTLED = """
. X . X O . O
X X X X O O O
. . . X O . .
. O . X O . .
. . . X O . .
X X X X O O O
. X . X O . O
"""


def _point(game, vertex_row: int, col: int) -> int:
    size = game.rules.size
    return geometry(size).action_point[(size - vertex_row) * size + col]


@pytest.mark.parametrize("diagram,row,col,color,eye", [
    (". X .\nX . X\n. X .", 2, 1, BLACK, True),    # centre surrounded by black
    ("O X .\nX . X\n. X O", 2, 1, BLACK, False),   # two opponent diagonals: a false eye
    ("O X .\nX . X\n. X .", 2, 1, BLACK, True),    # one opponent diagonal in the middle is fine
    (". X .\nX . X\n. X .", 2, 1, WHITE, False),   # not white's eye
    ("X . X\nO X .\n. . .", 3, 1, BLACK, False),   # on the edge one opponent diagonal makes it false
    ("X . X\n. X .\n. . .", 3, 1, BLACK, True),    # edge eye
    (". . .\n. . .\n. . .", 2, 1, BLACK, False),
])
def test_own_eye(diagram: str, row: int, col: int, color: int, eye: bool) -> None:
    game = game_from_diagram(diagram, "chinese")
    stones = game.position.cells[STONES]
    assert bool(is_own_eye(stones, geometry(3).width, _point(game, row, col), color)) == eye


def test_settled_groups_are_certain_and_the_dead_stone_is_found() -> None:
    game = game_from_diagram(SETTLED, "chinese")
    ownership = playout_ownership(game, playouts=100, seed=5)
    assert ownership.shape == (49,) and ownership.dtype == np.float32
    board = game.position.board().reshape(-1)
    black, white = board == BLACK, board == WHITE
    white[3 * 7 + 1] = False  # B4
    assert (ownership[black] == 1).all() and (ownership[white] == -1).all()
    for eye in (0, 2, 5, 42, 44, 47):  # A7 C7 F7 A1 C1 F1
        assert abs(ownership[eye]) == 1
    assert ownership[3 * 7 + 1] > 0.5
    alive, dead, seki = stone_status(game, ownership)
    assert dead == [[22]] and seki == []
    assert sorted(len(chain) for chain in alive) == [13, 15]


def test_same_seed_same_estimate() -> None:
    game = game_from_diagram(". . . . .\n. X . . .\n. . . O .\n. . . . .\n. . . . .", "chinese")
    first = playout_ownership(game, playouts=50, seed=9)
    assert np.array_equal(first, playout_ownership(game, playouts=50, seed=9))
    assert ((first >= -1) & (first <= 1)).all()


def test_a_finished_game_is_still_played_out() -> None:
    """After two passes the playouts reset the pass count, so a lone stone on an open board is not 'owned'."""
    game = game_from_diagram(". . . . .\n. . . . .\n. . X . .\n. . . . .\n. . . . .", "chinese")
    game.play(25)
    game.play(25)
    assert game.is_over
    ownership = playout_ownership(game, playouts=60, seed=1)
    assert ownership.min() < 0.9  # the static count would give black everything


def test_ownership_is_for_go() -> None:
    game = game_from_diagram(". . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .", "freestyle k=4")
    with pytest.raises(ValueError, match="Go only"):
        playout_ownership(game, playouts=1)
