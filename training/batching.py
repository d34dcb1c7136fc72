"""Many searches, one network call per step: the scheduler shared by self-play and matches.

Each game in flight owns a :class:`SearchJob` (one move's search, driven
through :class:`~engine.search.mcts.Search`'s stepwise API). :func:`step` gathers a
leaf batch from every unfinished job, concatenates the leaves of the jobs that
share an evaluator into one :class:`~engine.core.position.PositionBatch`, calls
that evaluator once, and hands each job its rows of the evaluation.
With K games of batch size B the network sees up to K*B positions per call.
:func:`play_in_flight` keeps K games in flight until all are played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import numpy as np

from engine import Evaluation, Evaluator, PositionBatch, Search, SearchResult

__all__ = ["SearchJob", "step", "InFlight", "play_in_flight"]


class SearchJob:
    """One move's search: ``search`` run until its root has ``visits`` visits (reused ones count)."""

    def __init__(self, search: Search, evaluator: Evaluator, visits: int, noise: bool = False) -> None:
        self.search = search
        self.evaluator = evaluator
        self.visits = visits
        self.simulations = 0
        self._stalled = False
        self._open = search.begin(noise, visits)

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

    def complete(self, evaluation: Evaluation) -> None:
        self.search.complete(evaluation)

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


class InFlight(Protocol):
    """A game in flight: ``job`` is its current move's search, None once the game is over."""

    job: SearchJob | None

    def play_searched(self) -> None:
        """Play the move the finished ``job`` found, then start the next search (or end the game)."""


_Game = TypeVar("_Game", bound=InFlight)


def play_in_flight(start: Callable[[int], _Game], games: int, parallel: int, on_over: Callable[[_Game], None],
                   stop: Callable[[], bool] | None = None) -> tuple[int, list[_Game]]:
    """Play ``games`` games, at most ``parallel`` at a time; ``start(i)`` makes game i, its first search begun.

    Every step advances each search by one leaf batch (:func:`step`); a game whose
    search finished plays its move, and ``on_over(game)`` receives each game as it
    ends. ``stop()``, checked every step, ends the run early. Returns the evaluator
    calls made and the games a stop left in flight.
    """
    active: list[_Game] = []
    begun = calls = 0
    while begun < games or active:
        if stop is not None and stop():
            break
        while len(active) < parallel and begun < games:
            active.append(start(begun))
            begun += 1
        calls += step([game.job for game in active if game.job is not None])
        for game in list(active):
            if game.job is not None and game.job.finished:
                game.play_searched()
            if game.job is None:
                active.remove(game)
                on_over(game)
    return calls, active
