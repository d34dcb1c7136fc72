"""The resignation rule: a side resigns once its root value stayed below a threshold for several of its moves.

One rule for every caller: the :class:`~engine.search.player.Player` resigns by it,
and self-play games that may not resign use it to learn who would have resigned
first (to measure false resignations).

Where the search has a score (a network with a score head), resigning also needs
the side's score lead to be more than ``min_score`` points behind: a win rate that
reads zero while a few points would turn the game is no reason to stop. In a
handicap game neither side resigns before :func:`earliest_resignation`: the side
giving stones starts far behind by design and must play on to catch up.
"""

from __future__ import annotations

from engine.core.game import Game
from engine.core.types import Color
from engine.search.mcts import SearchResult

__all__ = ["ResignationWatch", "earliest_resignation", "HANDICAP_MOVES_PER_STONE"]

HANDICAP_MOVES_PER_STONE = 1 / 18
"""In a handicap game, the moves before anyone may resign per handicap stone, as a share of the board's points:
20 a stone on 19x19 (180 moves after nine stones), 4 on 9x9."""


def earliest_resignation(game: Game) -> int:
    """The first move number (moves played, both colours) at which a side of ``game`` may resign: 0 in an even
    game, ``handicap * HANDICAP_MOVES_PER_STONE`` of the board's points after a handicap."""
    return round(game.handicap * HANDICAP_MOVES_PER_STONE * game.rules.num_points)


class ResignationWatch:
    """Counts, for each colour, its consecutive searches whose root value fell below ``threshold``.

    ``threshold`` None never resigns. A search counts as low when its value is below
    ``threshold`` and, where it has a score, that score (the side to move's lead in
    points) is below ``-min_score``. A search without visits (no legal move to
    search) neither counts nor breaks a run; one before :func:`earliest_resignation`
    of the game given breaks it. ``first`` is the first colour whose run reached
    ``consecutive``.
    """

    def __init__(self, threshold: float | None, consecutive: int, min_score: float = 0.0) -> None:
        if consecutive < 1:
            raise ValueError(f"consecutive must be at least 1, not {consecutive}")
        if min_score < 0:
            raise ValueError(f"min_score is a number of points behind, at least 0, not {min_score}")
        self.threshold = threshold
        self.consecutive = consecutive
        self.min_score = min_score
        self.low = {Color.BLACK: 0, Color.WHITE: 0}
        self.first: Color | None = None

    def reset(self) -> None:
        """A new game: forget every run."""
        self.low = {Color.BLACK: 0, Color.WHITE: 0}
        self.first = None

    def see(self, color: Color, result: SearchResult, game: Game | None = None) -> bool:
        """Count ``color``'s search of a position of ``game`` (None: an even game); whether ``color`` should
        resign now."""
        if self.threshold is None or result.visits.sum() == 0:
            return False
        low = result.value < self.threshold and (result.score_mean is None or result.score_mean < -self.min_score)
        if game is not None and len(game.moves) < earliest_resignation(game):
            low = False
        self.low[color] = self.low[color] + 1 if low else 0
        resigns = self.low[color] >= self.consecutive
        if resigns and self.first is None:
            self.first = color
        return resigns
