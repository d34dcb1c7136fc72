"""KataGo's v7 input features (encoders/katago.py) on diagrams, read against KataGo's fillRowV7.

Expected planes come from the diagrams and the moves played, never from the encoder's output.
"""

from __future__ import annotations

import numpy as np
import pytest

from encoders.katago import GLOBAL_FEATURES, SPATIAL_FEATURES, KataGoEncoder
from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE
from engine.formats.diagram import game_from_diagram, parse_diagram

SIZE = 7
RULES = f"tromp-taylor size={SIZE} komi=7.5"
# A7 (black) has one liberty, B7 (white) two, G4 (white, on the edge) three, D4 (black) four.
LIBERTIES = """
    X O . . . . .
    . . . . . . .
    . . . . . . .
    . . . X . . O
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""
# Black's D5 captures C5 and leaves a ko: white may not retake at C5 at once.
KO = """
    . . . . . . .
    . . X O . . .
    . X O . O . .
    . . X O . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""


def _flat(planes: np.ndarray) -> np.ndarray:
    """``[41, N*N]``: the planes indexed by action."""
    return planes.reshape(planes.shape[0], -1)


def _points(*vertices: str) -> set[int]:
    return {gtp_to_action(v, SIZE) for v in vertices}


def _ones(plane: np.ndarray) -> set[int]:
    return set(np.flatnonzero(plane).tolist())


def _encode(game: Game, friendly_pass: bool = True) -> np.ndarray:
    return _flat(KataGoEncoder(game.rules, friendly_pass=friendly_pass).encode(game))


def test_shape_and_the_on_board_plane() -> None:
    game = game_from_diagram(LIBERTIES, RULES)
    planes = KataGoEncoder(game.rules).encode(game)
    assert planes.shape == (SPATIAL_FEATURES + GLOBAL_FEATURES, SIZE, SIZE)
    assert (planes[0] == 1.0).all()


@pytest.mark.parametrize("to_play", ["B", "W"])
def test_own_and_opponent_stones_are_from_the_side_to_move(to_play: str) -> None:
    planes = _encode(game_from_diagram(LIBERTIES, RULES, to_play=to_play))
    black, white = _points("A7", "D4"), _points("B7", "G4")
    own, opponent = (black, white) if to_play == "B" else (white, black)
    assert _ones(planes[1]) == own
    assert _ones(planes[2]) == opponent


def test_liberty_planes_hold_chains_of_one_two_and_three_liberties() -> None:
    planes = _encode(game_from_diagram(LIBERTIES, RULES))
    assert _ones(planes[3]) == _points("A7")
    assert _ones(planes[4]) == _points("B7")
    assert _ones(planes[5]) == _points("G4")


def test_ko_plane_marks_the_retake_after_a_ko_capture() -> None:
    game = game_from_diagram(KO, RULES, to_play="B")
    assert _ones(_encode(game)[6]) == set()
    game.play(gtp_to_action("D5", SIZE))
    planes = _encode(game)
    assert _ones(planes[6]) == _points("C5")
    assert _ones(planes[3]) == _points("D5")  # the capturing stone is in atari


def test_history_planes_hold_the_last_five_moves_newest_first() -> None:
    game = Game(Rules.parse(RULES))
    moves = ["D4", "E5", "C3", "F6", "B2", "G7", "A1"]
    for vertex in moves:
        game.play(gtp_to_action(vertex, SIZE))
    planes = _encode(game)
    for t in range(5):
        assert _ones(planes[9 + t]) == _points(moves[-1 - t]), f"{t + 1} moves back"
    assert not planes[SPATIAL_FEATURES:SPATIAL_FEATURES + 5].any()  # no pass among them


def test_a_pass_is_a_global_not_a_history_point() -> None:
    game = Game(Rules.parse(RULES))
    game.play(gtp_to_action("D4", SIZE))
    game.play(SIZE * SIZE)  # pass
    planes = _encode(game, friendly_pass=False)
    assert (planes[SPATIAL_FEATURES + 0] == 1.0).all()
    assert (planes[SPATIAL_FEATURES + 14] == 1.0).all()  # a pass now would end the game
    assert not planes[9].any()
    assert _ones(planes[10]) == _points("D4")


def test_a_friendly_pass_under_area_scoring_hides_the_history() -> None:
    game = game_from_diagram(KO, RULES, to_play="B")
    for vertex in ("D5", "A1", "B1", "A2"):
        game.play(gtp_to_action(vertex, SIZE))
    game.play(SIZE * SIZE)  # pass: White may not yet retake the ko, Black's last moves are history
    shown, hidden = _encode(game, friendly_pass=False), _encode(game)
    assert shown[9:14].any() and shown[SPATIAL_FEATURES:SPATIAL_FEATURES + 5].any()
    assert not hidden[9:14].any()
    assert not hidden[SPATIAL_FEATURES:SPATIAL_FEATURES + 5].any()
    assert not hidden[SPATIAL_FEATURES + 14].any()
    # the ladder planes of the earlier boards are the board now's
    np.testing.assert_array_equal(hidden[15], hidden[14])
    np.testing.assert_array_equal(hidden[16], hidden[14])
    # everything else is read alike
    rest = [p for p in range(shown.shape[0]) if p not in (*range(9, 14), 15, 16, *range(22, 27), 36)]
    np.testing.assert_array_equal(hidden[rest], shown[rest])


def test_territory_scoring_shows_the_history_after_a_pass() -> None:
    game = Game(Rules.parse(f"japanese size={SIZE}"))
    game.play(gtp_to_action("D4", SIZE))
    game.play(SIZE * SIZE)
    planes = _encode(game)
    assert (planes[SPATIAL_FEATURES + 0] == 1.0).all()
    assert _ones(planes[10]) == _points("D4")


@pytest.mark.parametrize("to_play, sign", [("B", -1.0), ("W", 1.0)])
def test_komi_global_is_the_side_to_moves_komi_over_twenty(to_play: str, sign: float) -> None:
    """KataGo's selfKomi is +komi for white to move and -komi for black; the feature is selfKomi / 20."""
    planes = _encode(game_from_diagram(LIBERTIES, RULES, to_play=to_play))
    np.testing.assert_allclose(planes[SPATIAL_FEATURES + 5], sign * 7.5 / 20.0)


def test_colour_swapped_position_with_the_other_side_to_move_has_the_same_stone_planes() -> None:
    board = parse_diagram(LIBERTIES)
    swapped = board.copy()
    swapped[board == BLACK] = WHITE
    swapped[board == WHITE] = BLACK
    rules = Rules.parse(RULES)
    black_to_move = _encode(Game.from_board(rules, board, BLACK))
    white_to_move = _encode(Game.from_board(rules, swapped, WHITE))
    np.testing.assert_array_equal(black_to_move[:6], white_to_move[:6])
    np.testing.assert_array_equal(black_to_move[18:20], white_to_move[18:20])
