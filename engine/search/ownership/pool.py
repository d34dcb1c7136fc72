"""``OwnershipPool``: the network's ownership averaged over a search tree.

The pool holds every evaluated node's ownership row once, from black's view in float16 (``2*N*N`` bytes a
row: 722 bytes on 19x19, where a tree row per node would cost 362 times more, once per child). A subtree's
ownership is the mean of the rows of the nodes evaluated in it, each counted once.
"""

from __future__ import annotations

import numpy as np

from engine.core.types import BLACK
from engine.search.tree import root_children_of

__all__ = ["OwnershipPool"]


class OwnershipPool:
    """Row ``k`` of ``rows`` (``float16[R, N*N]``, black's view: +1 black's point) is the ownership of tree node
    ``nodes[k]`` (``int64[R]``); the first ``len(pool)`` rows are in use. The rows grow as needed."""

    def __init__(self, points: int) -> None:
        self.rows = np.zeros((0, points), dtype=np.float16)
        self.nodes = np.zeros(0, dtype=np.int64)
        self._used = 0

    def __len__(self) -> int:
        return self._used

    def clear(self) -> None:
        self._used = 0

    def add(self, ownership: np.ndarray, to_play: np.ndarray, nodes: np.ndarray) -> None:
        """Keep the ownership (``[L, N*N]``, row ``l`` from ``to_play[l]``'s view) of the tree nodes ``nodes``."""
        used, added = self._used, len(nodes)
        if used + added > len(self.rows):
            size = max(2 * used + added, 64)
            rows = np.zeros((size, self.rows.shape[1]), dtype=np.float16)
            owners = np.zeros(size, dtype=np.int64)
            rows[:used], owners[:used] = self.rows[:used], self.nodes[:used]
            self.rows, self.nodes = rows, owners
        black = np.where(to_play == BLACK, 1.0, -1.0)[:, None]
        self.rows[used:used + added] = black * ownership
        self.nodes[used:used + added] = nodes
        self._used += added

    def renumber(self, old_of_new: np.ndarray, nodes: int) -> None:
        """Keep the rows of the nodes a re-rooted tree kept (new node ``k`` was ``old_of_new[k]``, ``k < nodes``;
        see :meth:`engine.search.tree.Tree.reroot`), under their new numbers."""
        if not self._used:
            return
        new_of_old = np.full(old_of_new.shape[0], -1, dtype=np.int64)
        new_of_old[old_of_new[:nodes]] = np.arange(nodes)
        renumbered = new_of_old[self.nodes[:self._used]]
        kept = renumbered >= 0
        self._used = int(kept.sum())
        self.rows[:self._used] = self.rows[:kept.size][kept]
        self.nodes[:self._used] = renumbered[kept]

    def mean(self) -> np.ndarray | None:
        """The mean row (``float32[N*N]``, black's view) of the whole tree; None when the pool is empty."""
        return _mean(self.rows[:self._used])

    def subtree_mean(self, ints: np.ndarray, child: int) -> np.ndarray | None:
        """The mean row of the nodes under the root's child ``child`` in the tree ``ints``; None when none is there."""
        return _mean(self._subtree(ints, child))

    def stdev(self) -> np.ndarray | None:
        """The standard deviation (``float32[N*N]``, in [0, 1]) of the rows of the whole tree, point by point."""
        return _stdev(self.rows[:self._used])

    def subtree_stdev(self, ints: np.ndarray, child: int) -> np.ndarray | None:
        """:meth:`stdev` of the nodes under the root's child ``child``; None when none is there."""
        return _stdev(self._subtree(ints, child))

    def _subtree(self, ints: np.ndarray, child: int) -> np.ndarray:
        owners = np.empty(self._used, dtype=np.int64)
        root_children_of(ints, self.nodes[:self._used], owners)
        return self.rows[:self._used][owners == child]


def _mean(rows: np.ndarray) -> np.ndarray | None:
    if not len(rows):
        return None
    return rows.mean(axis=0, dtype=np.float64).astype(np.float32)  # float32 sums drift over 1e5 rows


def _stdev(rows: np.ndarray) -> np.ndarray | None:
    if not len(rows):
        return None
    return rows.std(axis=0, dtype=np.float64).astype(np.float32)
