"""Timing helpers shared by the benchmark commands: medians of repeated timed runs."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import click

__all__ = ["Rate", "measure_rate", "report"]


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


def report(result: dict, as_json: bool, text: str) -> None:
    """Print the result as one JSON object, or as a line of text."""
    click.echo(json.dumps(result, sort_keys=True) if as_json else text)
