"""The resignation rule: a side resigns once its root value stayed below a threshold for several of its moves.

One rule for every caller: the :class:`~engine.search.player.Player` resigns by it,
and self-play games that may not resign use it to learn who would have resigned
first (to measure false resignations).
"""

from __future__ import annotations

from engine.core.types import Color
from engine.search.mcts import SearchResult

__all__ = ["ResignationWatch"]


class ResignationWatch:
    """Counts, for each colour, its consecutive searches whose root value fell below ``threshold``.

    ``threshold`` None never resigns. A search without visits (no legal move
    to search) neither counts nor breaks a run. ``first`` is the first colour
    whose run reached ``consecutive``.
    """

    def __init__(self, threshold: float | None, consecutive: int) -> None:
        if consecutive < 1:
            raise ValueError(f"consecutive must be at least 1, not {consecutive}")
        self.threshold = threshold
        self.consecutive = consecutive
        self.low = {Color.BLACK: 0, Color.WHITE: 0}
        self.first: Color | None = None

    def reset(self) -> None:
        """A new game: forget every run."""
        self.low = {Color.BLACK: 0, Color.WHITE: 0}
        self.first = None

    def see(self, color: Color, result: SearchResult) -> bool:
        """Count ``color``'s search; whether ``color`` should resign now."""
        if self.threshold is None or result.visits.sum() == 0:
            return False
        self.low[color] = self.low[color] + 1 if result.value < self.threshold else 0
        resigns = self.low[color] >= self.consecutive
        if resigns and self.first is None:
            self.first = color
        return resigns
