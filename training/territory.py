"""The final board of a scored Go game: who owns each point, and the score.

A game "ends on the board" when two passes end it: not a resignation, not the
move cap. Only then do its final ownership map and score say something the
network can learn (the ``ownership`` and ``score`` heads). Both come from the
rules core's own scorer, :meth:`Game.ownership` and :meth:`Game.score`, with
the dead stones removed first, so a target is exactly the map the result was
scored from.

Dead stones reach an SGF file as standard territory markers on its last node
(``GameRecord.territory``, ``dump_sgf(territory=...)``): ``TB`` lists black's
territory, ``TW`` white's, and a dead stone is marked as territory of the side
that captures it (as CGoban and GNU Go's own SGF output mark them). Reading
them back, the dead stones are the stones that stand on the opponent's markers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from engine import BLACK, WHITE, Game

__all__ = ["FinalBoard", "ended_on_board", "final_board", "dead_from_territory"]


@dataclass(frozen=True)
class FinalBoard:
    """A scored final board: ``owners``, one per point (0 nobody, BLACK, WHITE; row-major, row 0 at the
    top, as actions count), and ``score``, black's lead in points with komi; dead stones removed."""

    owners: tuple[int, ...]
    score: float

    def ownership_for(self, color: int) -> np.ndarray:
        """``int8[N*N]`` from ``color``'s side: +1 its point, -1 the opponent's, 0 nobody's."""
        owners = np.asarray(self.owners)
        other = WHITE if color == BLACK else BLACK
        return (owners == color).astype(np.int8) - (owners == other).astype(np.int8)

    def score_for(self, color: int) -> float:
        """The score from ``color``'s side, in points (komi included)."""
        return self.score if color == BLACK else -self.score


def ended_on_board(game: Game) -> bool:
    """Whether two passes ended this Go game (so its board was scored), not a resignation or the cap."""
    return game.rules.game == "go" and game.resigned is None and game.position.passes >= 2


def final_board(game: Game, dead: Iterable[int] = ()) -> FinalBoard | None:
    """The scorer's own map and score of a game that ended on the board (``dead`` removed), else None."""
    if not ended_on_board(game):
        return None
    dead = list(dead)
    return FinalBoard(tuple(game.ownership(dead).tolist()), game.score(dead))


def dead_from_territory(game: Game, black: Iterable[int], white: Iterable[int]) -> list[int]:
    """The stones that stand on the other colour's territory markers: the dead ones (actions, sorted)."""
    board = game.position.board().reshape(-1)
    dead = {a for a in black if board[a] == WHITE} | {a for a in white if board[a] == BLACK}
    return sorted(dead)
