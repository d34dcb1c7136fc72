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

from engine import BLACK, WHITE, Game, Outcome

__all__ = ["FinalBoard", "ended_on_board", "final_board", "dead_from_territory", "estimated_final_board"]


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


def estimated_final_board(game: Game, result: Outcome, playouts: int = 200, seed: int = 0,
                          tolerance: float = 2.0) -> FinalBoard | None:
    """The final board of a counted game whose record names no dead stones, or None.

    Collections of human games give the count (``result``) but not the dead
    stones. They are estimated here by random playouts (the stones of chains
    that the playouts mostly lose, seki kept), and the board is accepted only
    when the rules core's score of it agrees with the recorded count: same
    winner, and a margin within ``tolerance`` points (area and territory
    counts of one board differ by the difference in stones played, one point
    in an even game). None also for a game that two passes did not end.
    """
    from engine import playout_ownership, stone_status

    if not ended_on_board(game) or result.reason != "score" or result.margin is None or result.winner is None:
        return None
    status = stone_status(game, playout_ownership(game, playouts, seed))
    final = final_board(game, [action for chain in status.dead for action in chain])
    if final is None:
        return None
    recorded = result.margin if result.winner == BLACK else -result.margin
    if (final.score > 0) != (recorded > 0) or abs(final.score - recorded) > tolerance:
        return None
    return final
