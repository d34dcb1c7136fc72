"""Many searches, one evaluator call per step: the scheduler that self-play, matches and the analysis engine share.

Each search in flight is a :class:`SearchJob` (one position's search, driven
through :class:`~engine.search.mcts.Search`'s stepwise API). :func:`step` gathers a
leaf batch from every unfinished job, concatenates the leaves of the jobs that
share an evaluator into one :class:`~engine.core.position.PositionBatch`, calls
that evaluator once, and hands each job its rows of the evaluation.
With K jobs of batch size B the network sees up to K*B positions per call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.search.evaluator import Evaluation, Evaluator
from engine.search.mcts import Search, SearchResult

__all__ = ["SearchJob", "step"]


class SearchJob:
    """One search: ``search`` run until its root has ``visits`` visits (reused ones count), ``playouts`` new
    simulations ran, ``seconds`` passed since its first step, or :meth:`stop` was called; None: no such limit."""

    def __init__(self, search: Search, evaluator: Evaluator, visits: int | None, noise: bool = False, *,
                 playouts: int | None = None, seconds: float | None = None) -> None:
        if visits is None and playouts is None and seconds is None:
            raise ValueError("give a visit, playout or time limit")
        self.search = search
        self.evaluator = evaluator
        self.visits = visits
        self.playouts = playouts
        self.seconds = seconds
        self.simulations = 0
        self.started: float | None = None  # time.monotonic() of the first step
        self._stalled = False
        self._stopped = False
        self._open = search.begin(noise, visits)

    @property
    def finished(self) -> bool:
        """Nothing left to do: a limit is reached, the job was stopped, the tree is full or the game is over."""
        search = self.search
        if not self._open or self._stalled or self._stopped or search.is_full:
            return True
        if self.seconds is not None and self.started is not None and self.elapsed >= self.seconds:
            return True
        return search.budget(self.visits, self.playouts, self.simulations) <= 0

    @property
    def elapsed(self) -> float:
        """Seconds since the first step (0 before it)."""
        return 0.0 if self.started is None else time.monotonic() - self.started

    def stop(self) -> None:
        """Finish now: the result is what the search found so far."""
        self._stopped = True

    def gather(self) -> tuple[PositionBatch, np.ndarray]:
        """The next leaf batch (possibly empty) and its legal masks."""
        if self.started is None:
            self.started = time.monotonic()
        budget = self.search.budget(self.visits, self.playouts, self.simulations)
        leaves, legal, done = self.search.gather(budget)
        self.simulations += len(leaves) + done
        self._stalled = len(leaves) == 0 and done == 0
        return leaves, legal

    def complete(self, evaluation: Evaluation) -> None:
        self.search.complete(evaluation)

    def result(self) -> SearchResult:
        return self.search.result(self.elapsed, self.simulations)


def step(jobs: Sequence[SearchJob]) -> int:
    """Advance every unfinished job by one leaf batch; return the number of evaluator calls made.

    Jobs are grouped by evaluator (by identity) and rules, since a batch holds
    positions of one game and size; each group's leaves go to its evaluator in one call.
    """
    groups: dict[tuple[int, Rules], list[tuple[SearchJob, PositionBatch, np.ndarray]]] = {}
    for job in jobs:
        if job.finished:
            continue
        leaves, legal = job.gather()
        if len(leaves):
            groups.setdefault((id(job.evaluator), leaves.rules), []).append((job, leaves, legal))
    for group in groups.values():
        evaluator = group[0][0].evaluator
        if len(group) == 1:
            job, leaves, legal = group[0]
            job.complete(evaluator.evaluate(leaves, legal))
            continue
        batch = PositionBatch(group[0][1].rules, np.concatenate([leaves.cells for _, leaves, _ in group]),
                              np.concatenate([leaves.info for _, leaves, _ in group]))
        legal = np.concatenate([mask for _, _, mask in group])
        evaluation = evaluator.evaluate(batch, legal)
        start = 0
        for job, leaves, _ in group:
            stop = start + len(leaves)
            job.complete(evaluation.rows(start, stop))
            start = stop
    return len(groups)
