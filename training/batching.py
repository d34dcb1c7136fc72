"""Many searches, one network call per step: the scheduler shared by self-play and matches.

Each game in flight owns a :class:`SearchJob` (one move's search, driven
through :class:`~engine.search.mcts.Search`'s stepwise API). :func:`step` gathers a
leaf batch from every unfinished job, concatenates the leaves of the jobs that
share an evaluator into one :class:`~engine.core.position.PositionBatch`, calls
that evaluator once, and hands each job its slice of the priors and values.
With K games of batch size B the network sees up to K*B positions per call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine import Evaluator, PositionBatch, Search, SearchResult

__all__ = ["SearchJob", "step"]


class SearchJob:
    """One move's search: ``search`` run until its root has ``visits`` visits (reused ones count)."""

    def __init__(self, search: Search, evaluator: Evaluator, visits: int, noise: bool = False) -> None:
        self.search = search
        self.evaluator = evaluator
        self.visits = visits
        self.simulations = 0
        self._stalled = False
        self._open = search.begin(noise)

    @property
    def finished(self) -> bool:
        """Nothing left to do: the visit limit is reached, the tree is full or the game is over."""
        search = self.search
        return (not self._open or self._stalled or search.is_full
                or search.budget(self.visits, None, self.simulations) <= 0)

    def gather(self) -> tuple[PositionBatch, np.ndarray]:
        """The next leaf batch (possibly empty) and its legal masks."""
        budget = self.search.budget(self.visits, None, self.simulations)
        leaves, legal, done = self.search.gather(budget)
        self.simulations += len(leaves) + done
        self._stalled = len(leaves) == 0 and done == 0
        return leaves, legal

    def complete(self, priors: np.ndarray, values: np.ndarray) -> None:
        self.search.complete(priors, values)

    def result(self) -> SearchResult:
        return self.search.result(0.0, self.simulations)


def step(jobs: Sequence[SearchJob]) -> int:
    """Advance every unfinished job by one leaf batch; return the number of evaluator calls made.

    Jobs are grouped by evaluator (by identity); each group's leaves go to its
    evaluator in one call. All positions in a group have one game and size.
    """
    groups: dict[int, list[tuple[SearchJob, PositionBatch, np.ndarray]]] = {}
    for job in jobs:
        if job.finished:
            continue
        leaves, legal = job.gather()
        if len(leaves):
            groups.setdefault(id(job.evaluator), []).append((job, leaves, legal))
    for group in groups.values():
        evaluator = group[0][0].evaluator
        if len(group) == 1:
            job, leaves, legal = group[0]
            job.complete(*evaluator.evaluate(leaves, legal))
            continue
        batch = PositionBatch(group[0][1].rules, np.concatenate([leaves.cells for _, leaves, _ in group]),
                              np.concatenate([leaves.info for _, leaves, _ in group]))
        legal = np.concatenate([mask for _, _, mask in group])
        priors, values = evaluator.evaluate(batch, legal)
        start = 0
        for job, leaves, _ in group:
            stop = start + len(leaves)
            job.complete(priors[start:stop], values[start:stop])
            start = stop
    return len(groups)
