"""Self-play in lanes: with an asynchronous evaluator one lane's leaves are evaluated while the other's trees
are walked, and the games are those of one lane."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.core.position import PositionBatch
from engine.search.evaluator import Evaluation, legal_masks
from tests.training.conftest import GOMOKU6
from training.records import list_records, read_record
from training.selfplay import SelfPlayOutput, play_games
from training.selfplay_config import SelfPlayConfig
from training.settings import replace_paths


class Deferred:
    """Priors and a value that depend on the position alone (its key), so that a game does not depend on how
    its leaves are batched. ``asynchronous``: a submission is evaluated only when its result is read, and the
    most submissions outstanding at once are counted."""

    def __init__(self, asynchronous: bool) -> None:
        self.asynchronous = asynchronous
        self.outstanding = self.most_outstanding = self.calls = 0

    def evaluate(self, positions: PositionBatch, legal: np.ndarray | None = None) -> Evaluation:
        batch = PositionBatch.stack(positions)
        masks = legal_masks(batch) if legal is None else legal
        keys = batch.keys().astype(np.uint64)
        weights = np.stack([np.random.default_rng(int(key)).random(masks.shape[1]) for key in keys]) * masks
        priors = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-9)
        priors[~masks.any(axis=1), -1] = 1.0
        values = ((keys % np.uint64(201)).astype(np.float32) - 100) / 100
        return Evaluation(priors.astype(np.float32), values)

    def submit(self, positions: PositionBatch, legal: np.ndarray) -> _Later:
        self.calls += 1
        self.outstanding += 1
        self.most_outstanding = max(self.most_outstanding, self.outstanding)
        return _Later(self, positions, legal)


class _Later:
    def __init__(self, evaluator: Deferred, positions: PositionBatch, legal: np.ndarray) -> None:
        self.evaluator, self.positions, self.legal = evaluator, positions, legal.copy()

    def result(self) -> Evaluation:
        self.evaluator.outstanding -= 1
        return self.evaluator.evaluate(self.positions, self.legal)


def _config() -> SelfPlayConfig:
    return replace_paths(SelfPlayConfig(), {"player.visits": 16, "player.search.batch_size": 4,
                                            "player.resign_threshold": None, "cheap_readouts": 4,
                                            "parallel_games": 5, "holdout_share": 0.0, "seed": 11})


def _games(evaluator: Deferred, folder: Path) -> list[tuple]:
    summary = play_games(evaluator, GOMOKU6, "000000-b1c8", _config(), 7, SelfPlayOutput(folder))
    assert summary.games == 7 and summary.evaluator_calls == evaluator.calls
    return sorted((r.actions, r.policy, r.targets) for r in map(read_record, list_records(folder)))


def test_two_lanes_overlap_and_play_the_games_one_lane_plays(tmp_path: Path) -> None:
    one_lane, two_lanes = Deferred(asynchronous=False), Deferred(asynchronous=True)
    assert _games(two_lanes, tmp_path / "two") == _games(one_lane, tmp_path / "one")
    assert one_lane.most_outstanding == 1
    assert two_lanes.most_outstanding == 2 and two_lanes.outstanding == 0


def test_a_stop_reads_every_evaluation_outstanding(tmp_path: Path) -> None:
    evaluator = Deferred(asynchronous=True)
    steps = iter(range(40))
    summary = play_games(evaluator, GOMOKU6, "000000-b1c8", _config(), 50, SelfPlayOutput(tmp_path),
                         stop=lambda: next(steps) == 39)
    assert evaluator.outstanding == 0 and evaluator.most_outstanding == 2
    assert summary.in_flight_games == 5 and summary.games < 50
