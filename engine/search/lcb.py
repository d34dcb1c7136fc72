"""The root move by the lower confidence bound of its value (Leela Zero's and KataGo's move choice).

The most visited move is usually the best, but a move the search turned to late, or whose values still split, can
lead on visits while a well-read runner-up is surely better. So among the root moves with at least
``min_visit_share`` of the most visited move's visits the one whose value's lower bound ``q - stdevs * stdev /
sqrt(visits)`` is highest is played, ``stdev`` the spread of the values backed up through the move
(:func:`engine.search.tree.value_stdev`). Per-action arrays are :class:`engine.search.mcts.SearchResult`'s
(``[N*N+1]``, values from the root's side to move).
"""

from __future__ import annotations

import numpy as np

__all__ = ["lower_bounds", "lcb_action"]


def lower_bounds(visits: np.ndarray, q: np.ndarray, value_stdevs: np.ndarray, stdevs: float) -> np.ndarray:
    """Each visited move's lower bound ``q - stdevs * stdev / sqrt(visits)`` (``float32``, values' units; 0 where
    unvisited): what :func:`lcb_action` ranks and what the analysis reports as a move's ``lcb``."""
    n = visits.astype(np.float64)
    bounds = q.astype(np.float64) - stdevs * value_stdevs.astype(np.float64) / np.sqrt(np.maximum(n, 1.0))
    return np.where(n > 0, bounds, 0.0).astype(np.float32)


def lcb_action(visits: np.ndarray, q: np.ndarray, value_stdevs: np.ndarray, stdevs: float,
               min_visit_share: float) -> int:
    """The move with the highest lower bound among those with at least ``min_visit_share`` of the most visited
    move's visits; the most visited move unless another's bound is strictly higher. Some move has visits."""
    most = int(np.argmax(visits))
    n = visits.astype(np.float64)
    bounds = np.where(n >= min_visit_share * n[most], lower_bounds(visits, q, value_stdevs, stdevs), -np.inf)
    best = int(np.argmax(bounds))
    return best if bounds[best] > bounds[most] else most
