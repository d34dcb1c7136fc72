"""Seki (engine/core/seki.py): the classic shapes as diagrams, GTP's three status lists on them, and
territory scoring against GNU Go's ``final_score`` under Japanese rules.

Every diagram is a finished 9x9 position with komi 0 whose walls are alive
and whose territories are closed, so that GNU Go (which judged the lists
below the same way) has nothing to read but the seki. Expected lists were
worked out by hand; chains are compared as sets of vertices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from engine.core.board import STONES, geometry
from engine.core.coords import action_to_gtp
from engine.core.scoring import seki_eye_points
from engine.core.seki import seki_stones
from engine.core.types import BLACK, Outcome
from engine.formats.diagram import game_from_diagram, parse_diagram
from tests.gtp.helpers import answers
from training.gtp_client import GTPClient, gnugo_argv

RULES = "japanese komi=0"


@dataclass(frozen=True)
class SekiCase:
    name: str
    diagram: str
    seki: tuple[str, ...]      # each chain's vertices, space-separated
    dead: tuple[str, ...]
    score: str                 # final_score under territory scoring, komi 0
    eye_points: tuple[int, int] = (0, 0)   # black's and white's seki eyes (no points under territory scoring)


CASES = [
    # Corner seki without eyes: the three white stones on the edge and the black chain under them share
    # A9 and E9; whoever fills one is captured (white's sacrifice of four stones leaves black a
    # straight five, black's of eight gives white more).
    SekiCase("corner", """
        . O O O . X O . .
        X X X X X X O . .
        O O O O O O O . .
        . . . . . . . . .
        O O O O O O O O O
        X X X X X X X X X
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """, ("B9 C9 D9", "F9 A8 B8 C8 D8 E8 F8"), (), "B+12"),
    # Seki with eyes: black's chain has the eye A9, white's the eye E9, and they share C9. Territory
    # scoring counts neither eye (area scoring would).
    SekiCase("eyes", """
        . X . O . O X . .
        X X X O O O X . .
        O O O X X X X . .
        . . O X . . . . .
        . . O X . . . . .
        . . O X . . . . .
        . . O X X X X X X
        . . O X . . . . .
        . . O X . . . . .
        """, ("B9 A8 B8 C8", "D9 F9 D8 E8 F8"), (), "B+19", (1, 1)),
    # Seki on the side: the white stones D9-F9 and the black chain around them share C9 and G9.
    SekiCase("side", """
        O X . O O O . X O
        O X X X X X X X O
        O O O O O O O O O
        . . . . . . . . .
        O O O O O O O O O
        X X X X X X X X X
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """, ("B9 H9 B8 C8 D8 E8 F8 G8 H8", "D9 E9 F9"), (), "B+18"),
    # Not seki: with a single white stone at B9 white throws in at A9 and the black chain, left with a
    # three-point eye after capturing two stones, dies (GNU Go agrees: black is dead, B9 alive).
    SekiCase("throw-in", """
        . O . X O . . . .
        X X X X O . . . .
        O O O O O . . . .
        . . . . . . . . .
        O O O O O O O O O
        X X X X X X X X X
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """, (), ("D9 A8 B8 C8 D8",), "W+6"),
]
IDS = [case.name for case in CASES]


def _chains(text: str) -> set[frozenset[str]]:
    """GTP status-list lines (one chain each) as a set of vertex sets."""
    return {frozenset(line.split()) for line in text.split("\n") if line.strip()}


def _plays(diagram: str) -> list[str]:
    """GTP ``play`` commands that build the diagram: black's stones, then white's (no capture on the way)."""
    board = parse_diagram(diagram).reshape(-1)
    size = int(np.sqrt(board.size))
    order = sorted(np.flatnonzero(board), key=lambda a: (board[a] != BLACK, a))
    return [f"play {'b' if board[a] == BLACK else 'w'} {action_to_gtp(int(a), size)}" for a in order]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_seki_stones(case: SekiCase) -> None:
    game = game_from_diagram(case.diagram, RULES)
    geo = geometry(9)
    found = seki_stones(game.position.cells[STONES], geo.width, geo.action_point)
    want = {vertex for chain in case.seki for vertex in chain.split()}
    assert {action_to_gtp(int(a), 9) for a in np.flatnonzero(found)} == want
    assert seki_eye_points(game.position.cells[STONES], geo.width, geo.action_point) == case.eye_points


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_final_status_lists_and_score(case: SekiCase) -> None:
    """GTP's three lists tell seki apart (the dead-stone estimate alone would break a seki at random)."""
    script = "\n".join(_plays(case.diagram) + [f"final_status_list {s}" for s in ("alive", "dead", "seki")]
                       + ["final_score"]) + "\n"
    *_, alive, dead, seki, score = answers(script, size=9, rules=RULES)
    assert _chains(seki) == _chains("\n".join(case.seki))
    assert _chains(dead) == _chains("\n".join(case.dead))
    stones = {action_to_gtp(int(a), 9) for a in np.flatnonzero(parse_diagram(case.diagram).reshape(-1))}
    assert set().union(*_chains(alive)) == stones - set().union(*_chains(seki), *_chains(dead))
    assert score == case.score


def test_territory_scoring_counts_seki_eyes_for_nobody_and_area_scoring_counts_them() -> None:
    eyes = next(case for case in CASES if case.name == "eyes")
    territory = game_from_diagram(eyes.diagram, RULES).score()
    area = game_from_diagram(eyes.diagram, "chinese komi=0").score()
    assert territory == 31 - 12  # black's 31 points of territory, white's 12; A9 and E9 are nobody's
    assert area == (31 + 17 + 4 + 1) - (12 + 9 + 5 + 1)  # territory, walls, seki stones and eye, each side


@pytest.mark.gnugo
def test_lists_and_territory_score_agree_with_gnugo(gnugo_path: str) -> None:
    with GTPClient(gnugo_argv(gnugo_path, rules="japanese")) as gnugo:
        for case in CASES:
            gnugo.send_many(["boardsize 9", "clear_board", "komi 0"] + _plays(case.diagram))
            assert Outcome.from_sgf(gnugo.send("final_score")) == Outcome.from_sgf(case.score), case.name
            for status, want in (("seki", case.seki), ("dead", case.dead)):
                assert _chains(gnugo.send(f"final_status_list {status}")) == _chains("\n".join(want)), case.name
