"""What the benchmarks share: medians of repeated timed runs, and the error of one that cannot run."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Rate", "measure_rate", "BenchError"]


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
