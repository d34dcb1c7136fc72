"""KataGo's forced playouts and policy target pruning (Wu, "Accelerating Self-Play Learning in Go",
arXiv 1902.10565, section 3.1).

During self-play every root child that has been visited at least once is given at least
``n_forced(c) = sqrt(k * P(c) * sum_c' N(c'))`` visits (``k = 2``, ``P`` the root's noised priors),
so that Dirichlet noise actually gets moves explored. Those visits say nothing about how good the
move is, so the recorded policy target takes them back where the search did not earn them.

Conventions (those of :class:`engine.search.mcts.SearchResult` and :mod:`engine.search.tree`):
per-action arrays are ``[A]`` with ``A = N*N + 1`` (points, then pass); ``q[a]`` is the mean value
of the subtree under ``a`` from the side to move at the root; the PUCT value of a child with ``n``
visits is tree.py's

    ``PUCT(c, n) = Q(c) + c_puct * sqrt(max(parent_visits, 1)) * P(c) / (1 + n)``

with ``parent_visits`` the root's visit count. Pruning only ever compares children that keep at
least one visit (a child cut to one or none is dropped from the target), so tree.py's first-play
urgency for unvisited children never enters and is not a parameter here.
"""

from __future__ import annotations

import numpy as np

__all__ = ["forced_visits", "pruned_visits", "prune_policy_target"]

_SLACK = 1e-9  # float rounding must not cost a child a visit it earned exactly


def forced_visits(priors: np.ndarray, total_visits: float, k: float = 2.0) -> np.ndarray:
    """``sqrt(k * P(c) * total_visits)`` per action (``float64[A]``), ``total_visits`` being the sum of the
    root children's visits: the floor the root's selection keeps for every child already visited."""
    return np.sqrt(k * np.asarray(priors, dtype=np.float64) * total_visits)


def pruned_visits(visits: np.ndarray, priors: np.ndarray, q: np.ndarray, *, parent_visits: float,
                  c_puct: float, k: float = 2.0) -> np.ndarray:
    """The root's visit counts less the forced visits PUCT would not have spent (``float64[A]``).

    The most-visited child ``b`` keeps its visits. Every other child ``c`` keeps the fewest visits
    ``n' <= N(c)`` with ``PUCT(c, n') <= PUCT(b, N(b))`` (the visits PUCT would have given it anyway),
    but gives back no more than ``floor(n_forced(c))``; a child left with a single visit is then
    dropped. Unvisited children stay at 0.
    """
    visits = np.asarray(visits, dtype=np.float64)
    priors = np.asarray(priors, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if visits.sum() <= 0:
        raise ValueError("the root has no visits to make a policy target from")
    best = int(np.argmax(visits))
    explore = c_puct * np.sqrt(max(parent_visits, 1.0))
    best_puct = q[best] + explore * priors[best] / (1.0 + visits[best])
    # Solving Q + explore * P / (1 + n) = best_puct for n; where Q alone reaches best_puct every visit was earned.
    gap = best_puct - q
    with np.errstate(divide="ignore", invalid="ignore"):
        earned = np.where(gap > 0, explore * priors / gap - 1.0, np.inf)
    floor = np.ceil(np.maximum(earned, 0.0) - _SLACK)
    keep = visits - np.floor(forced_visits(priors, visits.sum(), k))
    result = np.minimum(visits, np.maximum(floor, keep))
    result[result <= 1] = 0.0
    result[best] = visits[best]
    return result


def prune_policy_target(visits: np.ndarray, priors: np.ndarray, q: np.ndarray, *, parent_visits: float,
                        c_puct: float, k: float = 2.0) -> np.ndarray:
    """The policy target of a self-play search with forced playouts: :func:`pruned_visits`, normalised
    (``float32[A]``, sums to 1, 0 on illegal and unvisited actions)."""
    kept = pruned_visits(visits, priors, q, parent_visits=parent_visits, c_puct=c_puct, k=k)
    return (kept / kept.sum()).astype(np.float32)
