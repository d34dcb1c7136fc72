"""The shared scheduler: SearchJob limits and stopping, one evaluator call per step for many searches."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.game import Game
from engine.core.rules import Rules
from engine.search.batching import step
from engine.search.config import SearchConfig
from engine.search.evaluator import Evaluation, UniformEvaluator
from engine.search.mcts import Search, SearchJob

GO5 = Rules.go(5, "chinese")


class Counting(UniformEvaluator):
    """Uniform priors; remembers the size of every batch it was asked to evaluate."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def evaluate(self, positions, legal=None) -> Evaluation:  # type: ignore[no-untyped-def]
        self.batches.append(len(positions))
        return super().evaluate(positions, legal)


def _job(evaluator: Counting, visits: int | None, **limits: float | int) -> SearchJob:
    return SearchJob(Search(Game(GO5), evaluator, SearchConfig(batch_size=4), seed=0), evaluator, visits, **limits)


def _run(jobs: list[SearchJob]) -> int:
    calls = 0
    while not all(job.finished for job in jobs):
        calls += step(jobs)
    return calls


def test_jobs_sharing_an_evaluator_share_its_calls() -> None:
    counting = Counting()
    jobs = [_job(counting, 21) for _ in range(3)]
    assert _run(jobs) == len(counting.batches) == 6  # the roots, then 5 steps of 4 leaves per job
    assert counting.batches == [3] + [12] * 5
    assert all(job.result().visits.sum() == 20 for job in jobs)


def test_playout_and_time_limits_and_stop_end_a_job() -> None:
    counting = Counting()
    by_playouts = _job(counting, None, playouts=6)
    at_once = _job(counting, None, seconds=0.0)  # no time at all: one step, then it is over
    stopped = _job(counting, 1000)
    step([by_playouts, at_once, stopped])
    assert at_once.finished and not stopped.finished
    stopped.stop()
    assert stopped.finished and stopped.result().visits.sum() == 0  # only the root was evaluated
    _run([by_playouts])
    assert by_playouts.simulations == 6


def test_one_evaluator_gets_one_call_per_board_size() -> None:
    counting = Counting()
    jobs = [_job(counting, 5), SearchJob(Search(Game(Rules.go(7)), counting, SearchConfig(batch_size=4)), counting, 5)]
    assert _run(jobs) == len(counting.batches) == 2 * 2  # the roots, then one batch of 4: never mixed
    assert all(job.result().visits.sum() == 4 for job in jobs)


def test_a_job_needs_a_limit() -> None:
    with pytest.raises(ValueError, match="limit"):
        _job(Counting(), None)


def test_a_finished_game_is_finished_at_once() -> None:
    game = Game(GO5)
    game.play(GO5.pass_action)
    game.play(GO5.pass_action)
    job = SearchJob(Search(game, UniformEvaluator()), UniformEvaluator(), 10)
    assert job.finished and np.all(job.result().visits == 0)
