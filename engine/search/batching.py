"""Many searches, one evaluator call per step: the scheduler that self-play, matches and the analysis engine share.

Each search in flight is a :class:`~engine.search.mcts.SearchJob` (one position's
search, driven to its limits). :func:`step` gathers a leaf batch from every
unfinished job, concatenates the leaves of the jobs that share an evaluator into
one :class:`~engine.core.position.PositionBatch`, calls that evaluator once, and
hands each job its rows of the evaluation.
With K jobs of batch size B the network sees up to K*B positions per call.

A step comes in two halves, :func:`submit_step` and :meth:`Submitted.complete`: with an evaluator that runs
asynchronously (a network on a GPU: ``evaluator.asynchronous``), a caller can hand one set of jobs' leaves to
the network and walk another set's trees while it runs (``training.batching.play_in_flight``'s lanes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.search.evaluator import Evaluation, Positions
from engine.search.mcts import SearchJob

__all__ = ["step", "submit_step", "Submitted", "overlaps"]


class _Pending(Protocol):
    def result(self) -> Evaluation:
        ...


class _Done:
    """The pending form of an evaluation already made (an evaluator without ``submit``)."""

    def __init__(self, evaluation: Evaluation) -> None:
        self._evaluation = evaluation

    def result(self) -> Evaluation:
        return self._evaluation


def _submit(evaluator: Any, positions: Positions, legal: np.ndarray) -> _Pending:
    submit = getattr(evaluator, "submit", None)
    return submit(positions, legal) if submit is not None else _Done(evaluator.evaluate(positions, legal))


def overlaps(evaluator: Any) -> bool:
    """Whether ``evaluator`` returns from a submission before its network has run, so that walking other trees
    meanwhile pays."""
    return bool(getattr(evaluator, "asynchronous", False))


class Submitted:
    """One step's leaf batches in their evaluators' hands (:func:`submit_step`)."""

    def __init__(self, groups: list[tuple[list[tuple[SearchJob, int]], _Pending]]) -> None:
        self._groups = groups

    def complete(self) -> int:
        """Wait for each evaluation and hand every job its rows; return the number of evaluator calls."""
        for jobs, pending in self._groups:
            evaluation = pending.result()
            start = 0
            for job, leaves in jobs:
                job.complete(evaluation if len(jobs) == 1 else evaluation.rows(start, start + leaves))
                start += leaves
        return len(self._groups)


def submit_step(jobs: Sequence[SearchJob]) -> Submitted:
    """Gather a leaf batch from every unfinished job and hand each evaluator its jobs' leaves in one call.

    Jobs are grouped by evaluator (by identity) and rules, since a batch holds
    positions of one game and size. Until :meth:`Submitted.complete` the jobs wait for their leaves.
    """
    groups: dict[tuple[int, Rules], list[tuple[SearchJob, PositionBatch, np.ndarray]]] = {}
    for job in jobs:
        if job.finished:
            continue
        leaves, legal = job.gather()
        if len(leaves):
            groups.setdefault((id(job.evaluator), leaves.rules), []).append((job, leaves, legal))
    submitted = []
    for group in groups.values():
        evaluator = group[0][0].evaluator
        if len(group) == 1:
            _, batch, legal = group[0]
        else:
            batch = PositionBatch(group[0][1].rules, np.concatenate([leaves.cells for _, leaves, _ in group]),
                                  np.concatenate([leaves.info for _, leaves, _ in group]))
            legal = np.concatenate([mask for _, _, mask in group])
        submitted.append(([(job, len(leaves)) for job, leaves, _ in group], _submit(evaluator, batch, legal)))
    return Submitted(submitted)


def step(jobs: Sequence[SearchJob]) -> int:
    """Advance every unfinished job by one leaf batch; return the number of evaluator calls made."""
    return submit_step(jobs).complete()
