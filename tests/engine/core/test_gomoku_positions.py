"""Gomoku and renju regression positions as data: a diagram, one move, and the verdict the rules give.

Positions are set up with ``Game.setup`` and the move goes through ``Game.play``
/ ``Game.check``. Diagrams: ``X`` black, ``O`` white, ``.`` empty, top row
first (GTP row N). Every expected verdict was derived by hand from the rules of
freestyle, standard (exactly five) and renju (black may not make an overline,
a double four or a double three unless the move makes exactly five; a three
whose only straight-four points are forbidden to black is no three).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from engine.core.coords import gtp_to_action, rowcol_to_action
from engine.core.game import Game
from engine.core.position import NO_PASS, REASONS
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE, Color, IllegalMoveError, Outcome
from engine.formats.diagram import game_from_diagram


def start(rules_text: str, diagram: str, to_play: str = "B") -> Game:
    """A game under ``rules_text`` (board size taken from the diagram) holding the diagram's stones."""
    return game_from_diagram(diagram, rules_text, to_play)


def snapshot(game: Game) -> tuple[np.ndarray, np.ndarray, int]:
    return game.position.cells.copy(), game.position.info.copy(), len(game.moves)


def assert_rejected(game: Game, action: int, color: int, reason: str) -> None:
    """The move raises IllegalMoveError with ``reason``, is masked out, and changes nothing."""
    before = snapshot(game)
    with pytest.raises(IllegalMoveError) as info:
        game.play(action, color)
    assert info.value.reason == reason
    cells, state, moves = snapshot(game)
    np.testing.assert_array_equal(cells, before[0])
    np.testing.assert_array_equal(state, before[1])
    assert moves == before[2]
    assert not game.legal_mask(color)[action]


# ------------------------------------------------------ lines of k in a row
DIRECTIONS = {"horizontal": (0, 1), "vertical": (1, 0), "diagonal": (1, 1), "anti-diagonal": (1, -1)}


def edge_lines(size: int, k: int, step: tuple[int, int]) -> list[list[tuple[int, int]]]:
    """Lines of k cells along ``step`` that start or end on an edge or in a corner, and some in the middle."""
    dr, dc = step
    n = size - 1
    anchors = sorted({0, k - 1, n - k + 1, n, n // 2})
    lines = []
    for r in anchors:
        for c in anchors:
            cells = [(r + i * dr, c + i * dc) for i in range(k)]
            if all(0 <= a <= n and 0 <= b <= n for a, b in cells):
                lines.append(cells)
    return lines


def completing_indices(size: int, k: int) -> tuple[int, ...]:
    """Which stone of the line is played last: end, centre and start on a few sizes, the end elsewhere."""
    return (0, k // 2, k - 1) if size in (5, 9, 15) or k != 5 else (k - 1,)


LINE_CASES = [(size, k, name, index)
              for size, k in [(n, 5) for n in range(5, 16)] + [(6, 4)]
              for name in DIRECTIONS
              for index in completing_indices(size, k)]


@pytest.mark.parametrize("color", [BLACK, WHITE])
@pytest.mark.parametrize("size, k, direction, index", LINE_CASES)
def test_k_in_a_row_wins(size: int, k: int, direction: str, index: int, color: int) -> None:
    """k in a row along each direction, at corners, edges and the middle, completed at its end or centre."""
    for variant in ("freestyle", "standard", "renju"):
        for line in edge_lines(size, k, DIRECTIONS[direction]):
            game = Game(Rules.parse(f"{variant} size={size} k={k}"))
            stones = [rowcol_to_action(r, c, size) for r, c in line]
            played = stones.pop(index)
            game.setup(**{"black" if color == BLACK else "white": stones}, to_play=color)
            game.play(played, color)
            assert game.is_over, (variant, line)
            assert game.outcome() == Outcome(Color(color), None, "five")
            empty = int(np.flatnonzero(game.position.board().reshape(-1) == 0)[0])
            assert_rejected(game, empty, 3 - color, "game over")


def test_edge_lines_reach_corners_and_edges() -> None:
    """The line generator itself: corner-to-corner diagonals and lines along all four edges."""
    assert [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)] in edge_lines(5, 5, (1, 1))
    assert [(0, 4), (1, 3), (2, 2), (3, 1), (4, 0)] in edge_lines(5, 5, (1, -1))
    assert [(4, 0), (4, 1), (4, 2), (4, 3), (4, 4)] in edge_lines(5, 5, (0, 1))
    assert [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)] in edge_lines(5, 5, (1, 0))
    assert [(0, 5), (1, 4), (2, 3), (3, 2)] in edge_lines(6, 4, (1, -1))
    assert [(14, 10), (14, 11), (14, 12), (14, 13), (14, 14)] in edge_lines(15, 5, (0, 1))
    assert [(10, 14), (11, 13), (12, 12), (13, 11), (14, 10)] in edge_lines(15, 5, (1, -1))


# ------------------------------------------------------------- verdicts
@dataclass(frozen=True)
class Verdict:
    """``move`` ("B E5") on ``board`` under ``rules``: ``reason`` if illegal, else whether it ``wins``."""

    name: str
    rules: str
    board: str
    move: str
    reason: str | None = None
    wins: bool = False


OVERLINE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X X X . X X . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
OVERLINE_WHITE = OVERLINE.replace("X", "O")
# On 6x6 with k=4, C4 makes five in a row: an overline.
OVERLINE_K4 = """
    . . . . . .
    . . . . . .
    X X . X X .
    . . . . . .
    . . . . . .
    . . . . . .
    """
FIVE_ON_EDGE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    X X . X X O . . .
    """
# E5 makes a vertical and a horizontal open three.
DOUBLE_THREE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . X . . . .
    . . . . X . . . .
    . . X X . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# E5 makes a vertical three and a split three (C5 _ E5 F5 -> straight four at D5).
DOUBLE_THREE_SPLIT = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . X . . . .
    . . . . X . . . .
    . . X . . X . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# E5 makes an open four (B5-E5) and a vertical three.
FOUR_THREE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . X . . . .
    . . . . X . . . .
    . X X X . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# E5 makes two fours, each blocked at one end by white.
DOUBLE_FOUR = """
    . . . . O . . . .
    . . . . X . . . .
    . . . . X . . . .
    . . . . X . . . .
    O X X X . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# Two fours on one line: E5 makes X.XXX.X (fives at C5 and G5).
LINE_FOUR_FOUR_A = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X . X . X . X .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# D5 makes XX.XX.XX (fives at C5 and F5).
LINE_FOUR_FOUR_B = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    X X . . X . X X .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# E5 makes XXX.X.XXX (fives at D5 and F5).
LINE_FOUR_FOUR_C = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    X X X . . . X X X
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# E5 makes exactly five A5-E5, and at the same time fours on the column and the anti-diagonal.
FIVE_AND_DOUBLE_FOUR = """
    . . . . . . . . .
    . . . . X . . X .
    . . . . X . X . .
    . . . . X X . . .
    X X X X . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    """
# F8 would make a vertical three (F8-F10) and a horizontal three (F8-H8) whose only straight-four point
# is J8 (E8 is blocked by white D8 for a straight four). Alone, that is a double three.
THREES_AT_F8 = """
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . X . . . . . . . . .
    . . . . . X . . . . . . . . .
    . . . O . . X X . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    """
# As above, but black at J8 would make six on the J column (J6-J11): the horizontal three is false.
FALSE_THREE_OVERLINE = """
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . X . . . . . .
    . . . . . X . . X . . . . . .
    . . . . . X . . X . . . . . .
    . . . O . . X X . . . . . . .
    . . . . . . . . X . . . . . .
    . . . . . . . . X . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    """
# As above, but black at J8 would make a second four on the anti-diagonal J8-M11: again a false three.
FALSE_THREE_DOUBLE_FOUR = """
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . X . . .
    . . . . . X . . . . X . . . .
    . . . . . X . . . X . . . . .
    . . . O . . X X . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    """
# As THREES_AT_F8, plus J9 and J10: black at J8 would make a straight four and a three, which is
# allowed, so the horizontal three is real and F8 is a double three.
FOUR_THREE_AT_FOUR_POINT = """
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . X . . X . . . . . .
    . . . . . X . . X . . . . . .
    . . . O . . X X . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    """
# D6 makes a vertical three and X..XXX..X across: neither four that the row allows is straight
# (each open end is next to a black stone and would give six), so the row holds no three.
NO_ROOM_THREE = """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . X . . . . . . .
    . . . X . . . . . . .
    X . . . X X . . X . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    """
# The same without the far stones: a double three.
ROOM_THREE = """
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . X . . . . . . .
    . . . X . . . . . . .
    . . . . X X . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    """
FORBIDDEN = "forbidden in renju"

VERDICTS = [
    Verdict("overline wins in freestyle", "freestyle", OVERLINE, "B E5", wins=True),
    Verdict("overline does not win in standard", "standard", OVERLINE, "B E5"),
    Verdict("white overline does not win in standard", "standard", OVERLINE_WHITE, "W E5"),
    Verdict("black overline is forbidden in renju", "renju", OVERLINE, "B E5", FORBIDDEN),
    Verdict("white overline wins in renju", "renju", OVERLINE_WHITE, "W E5", wins=True),
    Verdict("k=4: five wins in freestyle", "freestyle k=4", OVERLINE_K4, "B C4", wins=True),
    Verdict("k=4: five does not win in standard", "standard k=4", OVERLINE_K4, "B C4"),
    Verdict("five blocked at one end still wins (standard)", "standard", FIVE_ON_EDGE, "B C1", wins=True),
    Verdict("five blocked at one end still wins (renju)", "renju", FIVE_ON_EDGE, "B C1", wins=True),
    Verdict("double three is forbidden", "renju", DOUBLE_THREE, "B E5", FORBIDDEN),
    Verdict("double three with a split three is forbidden", "renju", DOUBLE_THREE_SPLIT, "B E5", FORBIDDEN),
    Verdict("double three is fine in freestyle", "freestyle", DOUBLE_THREE, "B E5"),
    Verdict("white may make a double three", "renju", DOUBLE_THREE.replace("X", "O"), "W E5"),
    Verdict("four-three is allowed", "renju", FOUR_THREE, "B E5"),
    Verdict("double four is forbidden", "renju", DOUBLE_FOUR, "B E5", FORBIDDEN),
    Verdict("white may make a double four", "renju", DOUBLE_FOUR.replace("X", "#").replace("O", "X")
            .replace("#", "O"), "W E5"),
    Verdict("two fours on one line X.XXX.X", "renju", LINE_FOUR_FOUR_A, "B E5", FORBIDDEN),
    Verdict("two fours on one line XX.XX.XX", "renju", LINE_FOUR_FOUR_B, "B D5", FORBIDDEN),
    Verdict("two fours on one line XXX.X.XXX", "renju", LINE_FOUR_FOUR_C, "B E5", FORBIDDEN),
    Verdict("two fours on one line are fine for white", "renju", LINE_FOUR_FOUR_A.replace("X", "O"), "W E5"),
    Verdict("exactly five wins even with a double four", "renju", FIVE_AND_DOUBLE_FOUR, "B E5", wins=True),
    Verdict("double three with one straight-four point", "renju", THREES_AT_F8, "B F8", FORBIDDEN),
    Verdict("false three: its four point is an overline", "renju", FALSE_THREE_OVERLINE, "B F8"),
    Verdict("a three with one of two four points forbidden is real", "renju",
            FALSE_THREE_OVERLINE.replace(". . . O . . X X", ". . . . . . X X"), "B F8", FORBIDDEN),
    Verdict("false three: its four point is a double four", "renju", FALSE_THREE_DOUBLE_FOUR, "B F8"),
    Verdict("a three whose four point is a four-three is real", "renju", FOUR_THREE_AT_FOUR_POINT, "B F8",
            FORBIDDEN),
    Verdict("four-three at the four point is allowed", "renju", FOUR_THREE_AT_FOUR_POINT.replace(
        ". . . O . . X X", ". . . O . X X X"), "B J8"),
    Verdict("a three with no room for a straight four", "renju", NO_ROOM_THREE, "B D6"),
    Verdict("the same three with room", "renju", ROOM_THREE, "B D6", FORBIDDEN),
]


@pytest.mark.parametrize("case", VERDICTS, ids=[c.name for c in VERDICTS])
def test_verdict(case: Verdict) -> None:
    """A rejected move names its reason; an accepted one wins or hands the turn over."""
    color_text, vertex = case.move.split()
    color = Color.parse(color_text)
    game = start(case.rules, case.board, color_text)
    move = gtp_to_action(vertex, game.rules.size)
    if case.reason is not None:
        assert_rejected(game, move, color, case.reason)
        return
    assert game.legal_mask(color)[move]
    game.play(move, color)
    assert game.position.board()[divmod(move, game.rules.size)] == color
    if case.wins:
        assert game.outcome() == Outcome(color, None, "five")
    else:
        assert not game.is_over
        assert game.outcome() is None
        assert game.to_play == color.opponent


def test_forbidden_points_do_not_bind_white() -> None:
    """The same empty point can be forbidden to black and open to white."""
    game = start("renju", DOUBLE_THREE)
    e5 = gtp_to_action("E5", 9)
    assert not game.legal_mask(BLACK)[e5]
    assert game.legal_mask(WHITE)[e5]
    game.play(e5, WHITE)
    assert game.to_play == Color.BLACK


# ---------------------------------------------------------- end of game
FULL_BUT_ONE = """
    X X O O X
    O O X X O
    X X O O X
    O O X X O
    X X O O .
    """


@pytest.mark.parametrize("variant", ["freestyle", "standard"])
def test_full_board_is_a_draw(variant: str) -> None:
    game = start(variant, FULL_BUT_ONE)
    game.play(gtp_to_action("E1", 5), BLACK)
    assert game.is_over
    outcome = game.outcome()
    assert outcome == Outcome(None, 0.0, "full-board")
    assert outcome.to_sgf() == "0"


@pytest.mark.parametrize("variant", ["freestyle", "standard", "renju"])
def test_pass_is_not_a_move(variant: str) -> None:
    game = Game(Rules.parse(f"{variant} size=9"))
    game.play(gtp_to_action("E5", 9))
    assert_rejected(game, game.rules.pass_action, WHITE, REASONS[NO_PASS])


def test_occupied_and_off_board() -> None:
    game = Game(Rules.parse("renju size=9"))
    game.play(gtp_to_action("E5", 9))
    assert_rejected(game, gtp_to_action("E5", 9), WHITE, "occupied")
    with pytest.raises(IllegalMoveError) as info:
        game.play(-1, WHITE)
    assert info.value.reason == "off board"
