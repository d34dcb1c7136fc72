"""The self-play layout a machine gets unless told otherwise: processes, and games in flight in each.

On a CPU the network is most of a self-play step: one process, torch on every core, 16 games in flight.
On a GPU the network is a small part of it and the rest (the trees, encoding, batching) runs on the CPU, so
the cores each run a process, and each process keeps many games in flight so that its batches are large
(the measurements behind these numbers: docs/benchmarks.md, *Self-play*).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SelfPlayLayout", "default_layout", "CPU_LAYOUT", "GPU_PARALLEL_GAMES", "GPU_SPARE_CORES"]


@dataclass(frozen=True)
class SelfPlayLayout:
    workers: int
    parallel_games: int


CPU_LAYOUT = SelfPlayLayout(workers=1, parallel_games=16)
GPU_PARALLEL_GAMES = 64
"""Games in flight per process on a GPU."""
GPU_SPARE_CORES = 2
"""Cores a GPU machine keeps free of self-play processes: the command's own process and the GPU driver's."""


def default_layout(device_type: str, cores: int) -> SelfPlayLayout:
    """The layout for a network on ``device_type`` (``cuda``, ``mps``, ``cpu``) with ``cores`` cores."""
    if device_type == "cuda":
        return SelfPlayLayout(workers=max(1, cores - GPU_SPARE_CORES), parallel_games=GPU_PARALLEL_GAMES)
    return CPU_LAYOUT
