"""Tiny models and fake evaluators for the training tests (b1c8 networks, 5x5 Go and 6x6 Gomoku)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.core.board import TO_PLAY
from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.core.types import WHITE
from engine.search.evaluator import Evaluation, Evaluator, UniformEvaluator
from training.chunks import Samples
from training.loop import LoopConfig
from training.match_config import MatchConfig
from training.models import BootstrapConfig, bootstrap
from training.selfplay_config import SelfPlayConfig
from training.settings import replace_paths
from training.train import TrainConfig

GO5 = Rules.go(5)
GOMOKU6 = Rules.gomoku(6, 4)


def tiny_loop(bootstrap_config: BootstrapConfig, games: int, holdout_share: float, steps: int,
              **options: object) -> LoopConfig:
    """A loop of b1c8 networks at 8 visits a move: ``games`` self-play games a generation, all played at once."""
    small_search = {"player.visits": 8, "player.search.batch_size": 4}
    return LoopConfig(
        bootstrap=bootstrap_config, games_per_generation=games,
        selfplay=replace_paths(SelfPlayConfig(cheap_readouts=2, full_search_share=1.0, parallel_games=games,
                                              holdout_share=holdout_share, seed=0), small_search),
        train=TrainConfig(steps=steps, batch_size=8, checkpoint_every=2),
        match=replace_paths(MatchConfig(games=0, parallel_games=min(games, 4)), small_search),
        runtime="eager", **options)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def go5_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bootstrap(tmp_path_factory.mktemp("models") / "go5.safetensors",
                     BootstrapConfig("go", 5, blocks=1, filters=8, seed=1))


@pytest.fixture(scope="session")
def gomoku6_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bootstrap(tmp_path_factory.mktemp("models") / "gomoku6.safetensors",
                     BootstrapConfig("gomoku", 6, blocks=1, filters=8, seed=2))


def write_version1_chunk(path: Path, samples: Samples) -> Path:
    """``samples`` written as a format version 1 chunk (planes, pi and z only), as gather wrote them before."""
    meta = {**samples.info.to_dict(), "format_version": 1}
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), planes=samples.planes, policy=samples.policy,
                        value=samples.value)
    return path


def eager_evaluator(model: Path, rules: Rules) -> Evaluator:
    """The model's NetEvaluator, eager (compiling takes seconds) and without a cache."""
    from engine.nn.loading import EvaluatorOptions, load_evaluator

    return load_evaluator(rules, model, EvaluatorOptions(runtime="eager", random_symmetry=True, seed=0,
                                                         cache_size=0))


class Counting:
    """Wraps an evaluator and records the size of every batch it is asked for."""

    def __init__(self, inner: object | None = None) -> None:
        self.inner = inner or UniformEvaluator()
        self.batches: list[int] = []

    def evaluate(self, positions: PositionBatch, legal: np.ndarray | None = None) -> Evaluation:
        self.batches.append(len(positions))
        return self.inner.evaluate(positions, legal)  # type: ignore[attr-defined]


class BlackIsLost:
    """Uniform priors; black is lost: -0.95 for black to move, +0.95 for white to move."""

    def evaluate(self, positions: PositionBatch, legal: np.ndarray | None = None) -> Evaluation:
        priors = UniformEvaluator().evaluate(positions, legal).priors
        batch = PositionBatch.stack(positions)
        return Evaluation(priors, np.where(batch.info[:, TO_PLAY] == WHITE, 0.95, -0.95).astype(np.float32))
