"""What the benchmarks share: medians of repeated timed runs, and the error of one that cannot run."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Rate", "measure_rate", "BenchError", "engine_process"]

_SOURCE_ROOT = Path(__file__).resolve().parents[1]


def engine_process(*arguments: str, **environment: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment (this one, plus ``environment``) that run ``engine ARGUMENTS`` in a new
    process from this source tree, as the benchmarks that time whole commands start it."""
    path = os.pathsep.join(filter(None, [str(_SOURCE_ROOT), os.environ.get("PYTHONPATH")]))
    return [sys.executable, "-m", "engine", *arguments], {**os.environ, **environment, "PYTHONPATH": path}


class BenchError(RuntimeError):
    """A measurement that cannot run: a peer that is not installed, an engine that failed to answer."""


@dataclass(frozen=True)
class Rate:
    """Work units per second: the median over runs, and every run's figure."""

    median: float
    runs: list[float]


def measure_rate(step: Callable[[], float], seconds: float, runs: int) -> Rate:
    """Call ``step`` (which returns the units of work it did) for ``seconds``, ``runs`` times."""
    rates = []
    for _ in range(runs):
        done = 0.0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < seconds:
            done += step()
            elapsed = time.perf_counter() - start
        rates.append(done / elapsed)
    return Rate(statistics.median(rates), rates)
