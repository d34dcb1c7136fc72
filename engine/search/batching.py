"""Many searches, one evaluator call per step: the scheduler that self-play, matches and the analysis engine share.

Each search in flight is a :class:`~engine.search.mcts.SearchJob` (one position's
search, driven to its limits). :func:`step` gathers a leaf batch from every
unfinished job, concatenates the leaves of the jobs that share an evaluator into
one :class:`~engine.core.position.PositionBatch`, calls that evaluator once, and
hands each job its rows of the evaluation.
With K jobs of batch size B the network sees up to K*B positions per call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.search.mcts import SearchJob

__all__ = ["step"]


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
