"""The loop's Ray backend: where ``engine loop --ray`` sends self-play and training, and how its files reach
the run directory (:class:`~training.cluster.storage.RunStore`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import Rules
from training.chunks import ChunkInfo
from training.cluster.pool import Layout
from training.cluster.storage import RunStore
from training.selfplay import FinishedGame, GameSummary, SelfPlayOutput, SelfPlaySummary
from training.selfplay_config import SelfPlayConfig
from training.train import TrainConfig, TrainResult

__all__ = ["RayCluster"]


class _Committed:
    """A self-play output whose files are uploaded to the run's URL as soon as they are written."""

    def __init__(self, output: SelfPlayOutput, store: RunStore) -> None:
        self.output = output
        self.store = store
        self.wants_sgf = output.wants_sgf

    def save(self, finished: FinishedGame) -> None:
        self.output.save(finished)
        self.store.commit(self.output.paths(finished))


@dataclass
class RayCluster:
    """Self-play actors and Ray Train jobs on the joined cluster, for a run kept in ``store``.

    ``cpu_seconds`` grows with the CPU time the cluster's processes spent for the run (the loop's budget).
    """

    store: RunStore
    layout: Layout = field(default_factory=Layout)
    threads: int | None = None
    cpu_seconds: float = 0.0

    def _tally(self, seconds: float) -> None:
        self.cpu_seconds += seconds

    def selfplay(self, model: Path, rules: Rules, config: SelfPlayConfig, games: int, output: SelfPlayOutput,
                 options: Any, on_game: Callable[[GameSummary], None] | None = None, desc: str = "self-play",
                 leave: bool = True) -> SelfPlaySummary:
        """:func:`~training.cluster.selfplay.play_on_ray`, each game uploaded as it is saved."""
        from training.cluster.selfplay import model_pool, play_on_ray

        with model_pool(model, rules, config, options, self.layout) as pool:
            return play_on_ray(pool, games, _Committed(output, self.store), on_game, self._tally, desc, leave)

    def train(self, model: Path, out_model: Path, chunk_dirs: list[Path], expect: ChunkInfo, generation: int,
              config: TrainConfig, logdir: Path | None) -> TrainResult:
        """:func:`~training.cluster.train.train_on_ray`."""
        from training.cluster.train import train_on_ray

        result, cpu = train_on_ray(self.store, model, out_model, chunk_dirs, expect, generation, config, logdir,
                                   self.threads)
        self._tally(cpu)
        return result

    def commit(self, paths: list[Path]) -> None:
        """Upload these files now."""
        self.store.commit(paths)

    def sync(self) -> None:
        """Upload every file written since the last upload (``state.json`` last)."""
        self.store.sync()
