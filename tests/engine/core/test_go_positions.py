"""Go regression positions as data: a diagram, moves in GTP vertices, and what the rules say follows.

Every position is set up with ``Game.setup`` and played through ``Game.play`` /
``Game.check`` so that the checked path is the one under test. Diagrams: ``X``
black, ``O`` white, ``.`` empty, top row first (GTP row N). Expected boards,
capture counts, verdicts and scores were worked out by hand from the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from engine.core.board import STONES, geometry
from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.go import empty_neighbours
from engine.core.position import REASONS
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE, Color, EngineError, IllegalMoveError, Outcome
from engine.formats.diagram import game_from_diagram, parse_diagram
from tests.engine.core.consistency import check_consistency


# ---------------------------------------------------------------- helpers
def start(rules_text: str, diagram: str, to_play: str = "B") -> Game:
    """A game under ``rules_text`` (board size taken from the diagram) holding the diagram's stones."""
    return game_from_diagram(diagram, rules_text, to_play)


def action(game: Game, vertex: str) -> int:
    return gtp_to_action(vertex, game.rules.size)


def play(game: Game, move: str) -> None:
    """Play ``"B C3"`` / ``"W pass"`` through the checked path."""
    color, vertex = move.split()
    game.play(action(game, vertex), Color.parse(color))


def snapshot(game: Game) -> tuple[np.ndarray, np.ndarray, tuple]:
    return game.position.cells.copy(), game.position.info.copy(), tuple(game.moves)


def assert_unchanged(game: Game, before: tuple[np.ndarray, np.ndarray, tuple]) -> None:
    cells, info, moves = snapshot(game)
    np.testing.assert_array_equal(cells, before[0])
    np.testing.assert_array_equal(info, before[1])
    assert moves == before[2]


def assert_rejected(game: Game, move: str, reason: str) -> None:
    """``move`` raises IllegalMoveError with ``reason`` and changes nothing."""
    color, vertex = move.split()
    before = snapshot(game)
    assert REASONS[game.check(action(game, vertex), Color.parse(color))] == reason
    with pytest.raises(IllegalMoveError) as info:
        play(game, move)
    assert info.value.reason == reason
    assert_unchanged(game, before)


# ------------------------------------------------------- legal sequences
# Black C4's last liberty is D4, which is also white E4's last liberty.
LAST_LIBERTY = """
    . . . . . . .
    . . . . . . .
    . . O O X . .
    . O X . O X .
    . . O O X . .
    . . . . . . .
    . . . . . . .
    """
# White's five stones have two liberties, B1 and C1; a black stone thrown in at C1 is taken at B1.
SNAPBACK = """
    . . . . . .
    . . . . . .
    . . . . . .
    X X X X . .
    X O O O X .
    X . . O X .
    """

# Black B5 has no liberty and captures nothing: suicide, of the two black stones with it.
SUICIDE_3 = """
    O . O . .
    O X O . .
    O X O . .
    . O . . .
    . . . . .
    """
SUICIDE_3_TAKEN = """
    O . O . .
    O . O . .
    O . O . .
    . O . . .
    . . . . .
    """
# Black A1 is a single-stone suicide: in the empty corner, and again (SUICIDE_1) beside a distant group.
CORNER = """
    . . . . .
    . . . . .
    . . . . .
    O . . . .
    . O . . .
    """
SUICIDE_1 = """
    . . . X .
    . . . . X
    . . . . .
    O . . . .
    . O . . .
    """


@dataclass(frozen=True)
class Case:
    """A regression position: ``moves`` (all legal) played under ``rules`` from the board ``before``."""

    name: str
    rules: str
    before: str
    moves: tuple[str, ...]


@dataclass(frozen=True)
class Sequence(Case):
    """``after`` is the board the moves leave, ``captured`` the (black, white) stones taken."""

    after: str
    captured: tuple[int, int]


SEQUENCES = [
    Sequence("capture in the middle", "chinese", """
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
        """, ("B D3",), """
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
        """, (0, 1)),
    Sequence("capture on the edge", "chinese", """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . X O X .
        """, ("B C2",), """
        . . . . .
        . . . . .
        . . . . .
        . . X . .
        . X . X .
        """, (0, 1)),
    Sequence("two stones captured in the corner", "japanese", """
        O O . . .
        X X . . .
        . . . . .
        . . . . .
        . . . . .
        """, ("B C5",), """
        . . X . .
        X X . . .
        . . . . .
        . . . . .
        . . . . .
        """, (0, 2)),
    Sequence("one stone takes two chains in the corner, with no liberty of its own", "chinese", """
        . . . . .
        . . . . .
        X . . . .
        O X . . .
        . O X . .
        """, ("B A1",), """
        . . . . .
        . . . . .
        X . . . .
        . X . . .
        X . X . .
        """, (0, 2)),
    Sequence("one stone takes four chains", "chinese", """
        . . . . . . .
        . . . X . . .
        . . X O X . .
        . X O . O X .
        . . X O X . .
        . . . X . . .
        . . . . . . .
        """, ("B D4",), """
        . . . . . . .
        . . . X . . .
        . . X . X . .
        . X . X . X .
        . . X . X . .
        . . . X . . .
        . . . . . . .
        """, (0, 4)),
    Sequence("filling the own last liberty is not suicide when it captures; the retake takes two", "chinese",
             LAST_LIBERTY, ("B D4", "W E4"), """
        . . . . . . .
        . . . . . . .
        . . O O X . .
        . O . . O X .
        . . O O X . .
        . . . . . . .
        . . . . . . .
        """, (2, 1)),
    Sequence("snapback", "chinese", SNAPBACK, ("B C1", "W B1", "B C1"), """
        . . . . . .
        . . . . . .
        . . . . . .
        X X X X . .
        X . . . X .
        X . X . X .
        """, (1, 5)),
    Sequence("ko: retaking after an exchange elsewhere", "chinese", """
        . . . . .
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        """, ("B C3", "W E1", "B E5", "W B3"), """
        . . . . X
        . X O . .
        X O . O .
        . X O . .
        . . . . O
        """, (1, 1)),
    Sequence("two stones taken: the single-stone retake is not a ko", "japanese", """
        . . . . .
        X . . . .
        O X . . .
        O X . . .
        . O . . .
        """, ("B A1", "W A2"), """
        . . . . .
        X . . . .
        . X . . .
        O X . . .
        . O . . .
        """, (1, 2)),
    *(Sequence(f"multi-stone suicide where it is allowed ({rules})", rules, SUICIDE_3, ("B B5",), SUICIDE_3_TAKEN,
               (3, 0)) for rules in ("tromp-taylor", "new-zealand")),
    Sequence("single-stone suicide under situational superko leaves the board as it was", "new-zealand", CORNER,
             ("B A1",), CORNER, (1, 0)),
]


@pytest.mark.parametrize("case", SEQUENCES, ids=[c.name for c in SEQUENCES])
def test_sequence(case: Sequence) -> None:
    game = start(case.rules, case.before)
    for move in case.moves:
        play(game, move)
        check_consistency(game.position)
    np.testing.assert_array_equal(game.position.board(), parse_diagram(case.after))
    assert (game.position.captures(BLACK), game.position.captures(WHITE)) == case.captured
    assert game.position.move_number == len(case.moves)
    assert game.to_play == Color.parse(case.moves[-1].split()[0]).opponent


# --------------------------------------------------------- rejected moves
@dataclass(frozen=True)
class Rejected(Case):
    """After the moves, ``move`` is illegal for ``reason``."""

    move: str
    reason: str


KO = """
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    """
LONE_CAPTURE = """
    . . . . .
    . X . . .
    X O . . .
    . X . . .
    . . . . .
    """
# Three kos, black to move: black can take at C9 and H9, white can take at B1.
TRIPLE_KO = """
    X O . O . X O . O
    . X O . . . X O .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X O . . . . . .
    X . X O . . . . .
    """
TRIPLE_KO_CYCLE = ("B C9", "W B1", "B H9", "W B9", "B C1")  # W G9 next recreates the start
# Two kos: black can take at C9, white at B1.
DOUBLE_KO = """
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X O . . . . . .
    X . X O . . . . .
    """
# After these, B C1 recreates the start board with white (not black) to move.
DOUBLE_KO_WITH_PASS = ("B C9", "W B1", "B pass", "W B9")

REJECTED = [
    Rejected("occupied point", "chinese", KO, (), "W B3", "occupied"),
    Rejected("multi-stone suicide (chinese)", "chinese", SUICIDE_3, (), "B B5", "suicide"),
    Rejected("multi-stone suicide (japanese)", "japanese", SUICIDE_3, (), "B B5", "suicide"),
    Rejected("single-stone suicide (chinese)", "chinese", SUICIDE_1, (), "B A1", "suicide"),
    Rejected("single-stone suicide (japanese)", "japanese", SUICIDE_1, (), "B A1", "suicide"),
    # The board after a single-stone suicide is the board before it: positional superko forbids it.
    Rejected("single-stone suicide repeats the board (tromp-taylor)", "tromp-taylor", SUICIDE_1, (), "B A1",
             "superko"),
    Rejected("second single-stone suicide repeats the situation (new-zealand)", "new-zealand", SUICIDE_1,
             ("B A1",), "W E5", "superko"),
    Rejected("immediate ko recapture (japanese)", "japanese", KO, ("B C3",), "W B3", "ko"),
    Rejected("immediate ko recapture (chinese)", "chinese", KO, ("B C3",), "W B3", "ko"),
    Rejected("immediate ko recapture (tromp-taylor)", "tromp-taylor", KO, ("B C3",), "W B3", "ko"),
    Rejected("the taken lone stone cannot come back: suicide, not ko", "chinese", LONE_CAPTURE, ("B C3",),
             "W B3", "suicide"),
    Rejected("triple ko cycle (chinese)", "chinese", TRIPLE_KO, TRIPLE_KO_CYCLE, "W G9", "superko"),
    Rejected("triple ko cycle (tromp-taylor)", "tromp-taylor", TRIPLE_KO, TRIPLE_KO_CYCLE, "W G9", "superko"),
    Rejected("triple ko cycle, same side to move (aga)", "aga", TRIPLE_KO, TRIPLE_KO_CYCLE, "W G9", "superko"),
    Rejected("board repeats with the other side to move (chinese)", "chinese", DOUBLE_KO, DOUBLE_KO_WITH_PASS,
             "B C1", "superko"),
    Rejected("board repeats with the other side to move (tromp-taylor)", "tromp-taylor", DOUBLE_KO,
             DOUBLE_KO_WITH_PASS, "B C1", "superko"),
]


@pytest.mark.parametrize("case", REJECTED, ids=[c.name for c in REJECTED])
def test_rejected(case: Rejected) -> None:
    game = start(case.rules, case.before)
    for move in case.moves:
        play(game, move)
    assert_rejected(game, case.move, case.reason)
    assert not game.legal_mask(Color.parse(case.move.split()[0]))[action(game, case.move.split()[1])]


def test_triple_ko_cycle_is_legal_under_simple_ko() -> None:
    game = start("japanese", TRIPLE_KO)
    for move in TRIPLE_KO_CYCLE + ("W G9",):
        play(game, move)
    np.testing.assert_array_equal(game.position.board(), parse_diagram(TRIPLE_KO))
    assert game.to_play == Color.BLACK
    assert (game.position.captures(BLACK), game.position.captures(WHITE)) == (3, 3)


def test_superko_is_invisible_to_the_simple_ko_mask() -> None:
    """Position knows only simple ko; the Game's mask adds positional superko."""
    game = start("chinese", TRIPLE_KO)
    for move in TRIPLE_KO_CYCLE:
        play(game, move)
    g9 = action(game, "G9")
    assert game.position.legal_mask()[g9]
    assert not game.legal_mask()[g9]


@pytest.mark.parametrize("rules", ["aga", "new-zealand", "japanese"])
def test_board_repeating_with_the_other_side_to_move_is_legal_unless_positional(rules: str) -> None:
    game = start(rules, DOUBLE_KO)
    for move in DOUBLE_KO_WITH_PASS + ("B C1",):
        play(game, move)
    np.testing.assert_array_equal(game.position.board(), parse_diagram(DOUBLE_KO))
    assert game.to_play == Color.WHITE


def test_ko_point_is_recorded_and_cleared() -> None:
    game = start("japanese", KO)
    play(game, "B C3")
    assert game.position.ko_action == action(game, "B3")
    play(game, "W E1")
    assert game.position.ko_action is None


@pytest.mark.parametrize("diagram, moves", [
    (LONE_CAPTURE, ("B C3",)),
    (LAST_LIBERTY, ("B D4",)),
    (SNAPBACK, ("B C1", "W B1")),
], ids=["capturer has liberties", "capturer is two stones", "snapback throw-in taken"])
def test_single_stone_captures_that_are_not_ko(diagram: str, moves: tuple[str, ...]) -> None:
    game = start("chinese", diagram)
    for move in moves:
        play(game, move)
    assert game.position.ko_action is None


# ---------------------------------------------------------------- scoring
COLUMNS_2_3 = """
    . X O . .
    . X O . .
    . X O . .
    . X O . .
    . X O . .
    """
COLUMNS_3_2 = """
    . . X O .
    . . X O .
    . . X O .
    . . X O .
    . . X O .
    """
HALVES_4 = """
    . X O .
    . X O .
    . X O .
    . X O .
    """
# Black's B6/B7 and white's E6/E7 share the two liberties D6, D7 and have no other: seki.
SEKI = """
    . O X . O X .
    . O X . O X .
    . O O O X X .
    . . . O X . .
    . . . O X . .
    . . . O X . .
    . . . O X . .
    """
# Black takes A4 with A3; E4 is a dead black stone inside white's area.
DEAD_STONE = """
    X X O . .
    O X O . X
    . X O . .
    . X O . .
    . X O . .
    """


@dataclass(frozen=True)
class Scored(Case):
    """After the moves (ending in two passes), with ``dead`` removed, black's lead is ``lead`` and the SGF
    result is ``result``."""

    dead: tuple[str, ...]
    lead: float
    result: str


SCORED = [
    # black 5 stones + 5 points, white 5 stones + 10 points
    Scored("area, tromp-taylor komi", "tromp-taylor", COLUMNS_2_3, ("B pass", "W pass"), (), -12.5, "W+12.5"),
    # black 15, white 10, komi 1.5
    Scored("area, black wins by 3.5", "chinese komi=1.5", COLUMNS_3_2, ("B pass", "W pass"), (), 3.5, "B+3.5"),
    # 8 against 8 without komi
    Scored("jigo", "tromp-taylor komi=0", HALVES_4, ("B pass", "W pass"), (), 0.0, "0"),
    # black 10 stones + 11 points, white 11 stones + 15 points; D6, D7 belong to nobody
    Scored("seki, area", "chinese komi=0", SEKI, ("B pass", "W pass"), (), -5.0, "W+5"),
    # black 11 points, white 15 points; no prisoners
    Scored("seki, territory", "japanese komi=0", SEKI, ("B pass", "W pass"), (), -4.0, "W+4"),
    # black 7 stones + A4, A2, A1; white 5 stones + 10 points once E4 is gone
    Scored("dead stone, area", "chinese", DEAD_STONE, ("B A3", "W pass", "B pass"), ("E4",), -12.5, "W+12.5"),
    # E4 alive: the right side touches both colours and is nobody's; black 8 stones + 3 points
    Scored("no dead stones, area", "chinese", DEAD_STONE, ("B A3", "W pass", "B pass"), (), -1.5, "W+1.5"),
    # black 3 points + 1 prisoner; white 10 points + the dead E4
    Scored("dead stone, territory", "japanese", DEAD_STONE, ("B A3", "W pass", "B pass"), ("E4",), -13.5,
           "W+13.5"),
    # black 3 points + 1 prisoner; white none
    Scored("no dead stones, territory", "japanese", DEAD_STONE, ("B A3", "W pass", "B pass"), (), -2.5, "W+2.5"),
]


@pytest.mark.parametrize("case", SCORED, ids=[c.name for c in SCORED])
def test_scored(case: Scored) -> None:
    game = start(case.rules, case.before)
    for move in case.moves:
        assert not game.is_over
        play(game, move)
    assert game.is_over
    dead = [action(game, v) for v in case.dead]
    assert game.score(dead=dead) == case.lead
    outcome = game.outcome(dead=dead)
    assert outcome == Outcome.from_lead(case.lead)
    assert outcome.to_sgf() == case.result


def test_seki_liberties_belong_to_nobody() -> None:
    game = start("chinese", SEKI)
    owners = game.ownership().reshape(7, 7)
    assert owners[0, 3] == 0 and owners[1, 3] == 0
    assert owners[0, 0] == WHITE and owners[0, 6] == BLACK
    assert owners[0, 2] == BLACK and owners[0, 4] == WHITE


def test_rules_outcome_without_agreement_counts_every_stone_alive() -> None:
    game = start("chinese", DEAD_STONE)
    for move in ("B A3", "W pass", "B pass"):
        play(game, move)
    assert game.position.outcome() == Outcome(Color.WHITE, 1.5, "score")


# --------------------------------------------------------------- game end
def test_two_passes_end_the_game() -> None:
    game = Game(Rules.parse("chinese size=5"))
    play(game, "B pass")
    assert not game.is_over
    play(game, "W C3")
    play(game, "B pass")
    assert not game.is_over
    play(game, "W pass")
    assert game.is_over
    assert_rejected(game, "B D4", "game over")
    assert_rejected(game, "B pass", "game over")


def test_move_cap_ends_the_game() -> None:
    game = Game(Rules.parse("chinese size=5 cap=3"))
    for move in ("B C3", "W D3", "B pass"):
        assert not game.is_over
        play(game, move)
    assert game.is_over
    assert_rejected(game, "W D4", "game over")
    # one stone each; every empty point touches both colours
    assert game.outcome() == Outcome(Color.WHITE, 7.5, "score")


def test_resignation() -> None:
    game = Game(Rules.parse("chinese size=9"))
    play(game, "B E5")
    game.resign(BLACK)
    assert game.is_over
    assert game.outcome() == Outcome(Color.WHITE, None, "resign")
    assert game.outcome().to_sgf() == "W+R"
    assert_rejected(game, "W C3", "game over")


def test_moves_out_of_turn_are_accepted() -> None:
    game = Game(Rules.parse("chinese size=5"))
    play(game, "W C3")
    play(game, "W D3")
    assert game.to_play == Color.BLACK
    np.testing.assert_array_equal(game.position.board(), parse_diagram("""
        . . . . .
        . . . . .
        . . O O .
        . . . . .
        . . . . .
        """))
    assert [m.color for m in game.moves] == [Color.WHITE, Color.WHITE]


# --------------------------------------------------------------- handicap
def test_handicap_stones_and_white_to_move() -> None:
    game = Game(Rules.parse("chinese size=9"))
    game.place_handicap([action(game, "C3"), action(game, "G7")])
    assert game.handicap == 2
    assert game.to_play == Color.WHITE
    np.testing.assert_array_equal(game.position.board(), parse_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . X . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """))
    assert game.position.move_number == 0
    play(game, "W E5")
    assert game.to_play == Color.BLACK


@pytest.mark.parametrize("vertices", [("C3",), ("C3", "C3")])
def test_bad_handicap_is_refused(vertices: tuple[str, ...]) -> None:
    game = Game(Rules.parse("chinese size=9"))
    with pytest.raises(EngineError):
        game.place_handicap([action(game, v) for v in vertices])


def test_handicap_needs_an_empty_board() -> None:
    game = Game(Rules.parse("chinese size=9"))
    play(game, "B E5")
    with pytest.raises(EngineError):
        game.place_handicap([action(game, "C3"), action(game, "G7")])


# ----------------------------------------------------- off board, bad input
@pytest.mark.parametrize("size", [5, 9, 19])
@pytest.mark.parametrize("offset", [-1, 1, 1000])
def test_off_board_actions(size: int, offset: int) -> None:
    game = Game(Rules.go(size))
    play(game, "B C3")
    bad = offset if offset < 0 else size * size + offset
    before = snapshot(game)
    with pytest.raises(IllegalMoveError) as info:
        game.play(bad)
    assert info.value.reason == "off board"
    assert_unchanged(game, before)


@pytest.mark.parametrize("vertex,empty", [("A1", 1), ("B1", 2), ("C2", 1), ("C4", 3), ("D4", 4), ("E5", 2)])
def test_empty_neighbours_counts_the_empty_points_beside_a_point_and_not_the_wall(vertex: str, empty: int) -> None:
    game = start("tromp-taylor", """
. . . . .
. . . . .
. . X . .
. O . X .
. X . . .
""")
    geo = geometry(5)
    point = geo.action_point[action(game, vertex)]
    assert empty_neighbours(game.position.cells[STONES], geo.width, point) == empty
