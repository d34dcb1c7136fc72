"""Pass-alive chains and area (engine/core/pass_alive.py): Benson's algorithm on hand-read diagrams.

Expected chains and points were read off the diagrams by hand (two vital regions make a chain
pass-alive; a region is vital when every empty point, under suicide every point, is a liberty).
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.board import geometry
from engine.core.coords import action_to_gtp
from engine.core.pass_alive import area, pass_alive_for
from engine.core.types import BLACK, EMPTY, WHITE
from engine.formats.diagram import game_from_diagram, parse_diagram

# Black's chain has two one-point eyes, A7 and C7 (and E7 is walled in too).
TWO_EYES = """
    . X . X O . .
    X X X X O . .
    O O O O O . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""
# One eye (A7): white can fill every other liberty from outside.
ONE_EYE = """
    . X X X O . .
    X X X X O . .
    O O O O O . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""
# Two black chains, {B7 C7 D7 C6 D6} and {A6 A5 B5}, touch only diagonally and share the eyes A7 and
# B6, each a liberty of both: neither eye can be filled, so both chains live.
SHARED_EYES = """
    . X X X O . .
    X . X X O . .
    X X O O O . .
    O O O . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""
# The eye A7-B7-A6 holds a white stone at A7 that touches no black stone: the region is vital
# (its empty points B7 and A6 are liberties) unless multi-stone suicide is legal.
STONE_IN_EYE = """
    O . X . X O .
    . X X X X O .
    X X O O O O .
    O O O . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""
DIAGRAMS = [TWO_EYES, ONE_EYE, SHARED_EYES, STONE_IN_EYE]


def _marked(board: np.ndarray, player: int, suicide: bool = False) -> set[str]:
    """The vertices ``pass_alive_for`` marks with ``player`` on the N x N ``board``."""
    size = board.shape[0]
    cells = game_from_diagram(_diagram(board), "tromp-taylor").position.cells
    geo = geometry(size)
    result = np.zeros(cells.shape[1], np.int16)
    pass_alive_for(cells, geo.width, player, suicide, result)
    return {action_to_gtp(a, size) for a in range(size * size) if result[geo.action_point[a]] == player}


def _diagram(board: np.ndarray) -> str:
    return "\n".join(" ".join(".XO"[int(c)] for c in row) for row in board)


def _stones(board: np.ndarray, player: int) -> set[str]:
    size = board.shape[0]
    return {action_to_gtp(a, size) for a in range(size * size) if board.flat[a] == player}


def _area_grid(board: np.ndarray, suicide: bool = False) -> np.ndarray:
    """``area`` as an N x N grid of owners."""
    size = board.shape[0]
    cells = game_from_diagram(_diagram(board), "tromp-taylor").position.cells
    geo = geometry(size)
    return area(cells, geo.width, suicide)[geo.action_point].reshape(size, size)


@pytest.mark.parametrize("diagram,eyes", [(TWO_EYES, {"A7", "C7"}), (SHARED_EYES, {"A7", "B6"})],
                         ids=["one-chain", "two-chains-sharing-the-eyes"])
def test_two_eyes_are_pass_alive_and_the_eyes_are_its_area(diagram: str, eyes: set[str]) -> None:
    board = parse_diagram(diagram)
    marked = _marked(board, BLACK)
    assert _stones(board, BLACK) <= marked
    assert eyes <= marked


def test_one_eye_is_not_pass_alive() -> None:
    board = parse_diagram(ONE_EYE)
    assert not _stones(board, BLACK) & _marked(board, BLACK)
    assert not _stones(board, WHITE) & _marked(board, WHITE)


@pytest.mark.parametrize("eye", [(0, 0), (1, 1)])
def test_a_shared_eye_filled_leaves_no_chain_alive(eye: tuple[int, int]) -> None:
    """Filling either shared eye joins the chains around the other eye alone: one vital region."""
    board = parse_diagram(SHARED_EYES)
    board[eye] = BLACK
    assert not _stones(board, BLACK) & _marked(board, BLACK)


def test_opponent_stone_in_the_eye_counts_only_under_suicide() -> None:
    board = parse_diagram(STONE_IN_EYE)
    black = _stones(board, BLACK)
    without_suicide = _marked(board, BLACK, suicide=False)
    assert black <= without_suicide
    assert {"A7", "B7", "A6", "D7"} <= without_suicide  # the dead white stone's point is black's area
    assert not black & _marked(board, BLACK, suicide=True)


def test_empty_board_has_nothing_pass_alive() -> None:
    board = np.zeros((7, 7), np.int8)
    assert _marked(board, BLACK) == set()
    assert _marked(board, WHITE) == set()
    assert (_area_grid(board) == EMPTY).all()


def test_each_colour_is_read_on_its_own() -> None:
    """White's chain in TWO_EYES has no eye: black's life marks nothing for white."""
    board = parse_diagram(TWO_EYES)
    assert not _stones(board, WHITE) & _marked(board, WHITE)
    assert not _marked(board, WHITE) & _marked(board, BLACK)


def test_area_gives_pass_alive_eyes_and_every_other_stone_to_its_owner() -> None:
    board = parse_diagram(TWO_EYES)
    grid = _area_grid(board)
    assert grid[0, 0] == BLACK and grid[0, 2] == BLACK
    stones = board != EMPTY
    np.testing.assert_array_equal(grid[stones], board[stones])


def _swap(board: np.ndarray) -> np.ndarray:
    swapped = board.copy()
    swapped[board == BLACK] = WHITE
    swapped[board == WHITE] = BLACK
    return swapped


@pytest.mark.parametrize("diagram", DIAGRAMS)
@pytest.mark.parametrize("suicide", [False, True])
def test_swapping_colours_swaps_the_results(diagram: str, suicide: bool) -> None:
    board = parse_diagram(diagram)
    swapped = _swap(board)
    assert _marked(swapped, WHITE, suicide) == _marked(board, BLACK, suicide)
    assert _marked(swapped, BLACK, suicide) == _marked(board, WHITE, suicide)
    np.testing.assert_array_equal(_area_grid(swapped, suicide), _swap(_area_grid(board, suicide)))


@pytest.mark.parametrize("diagram", DIAGRAMS)
@pytest.mark.parametrize("turns", [1, 2, 3])
def test_rotating_the_board_rotates_the_area(diagram: str, turns: int) -> None:
    board = parse_diagram(diagram)
    for suicide in (False, True):
        rotated = _area_grid(np.rot90(board, turns).copy(), suicide)
        np.testing.assert_array_equal(rotated, np.rot90(_area_grid(board, suicide), turns))
