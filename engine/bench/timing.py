"""What the benchmark commands share: medians of repeated timed runs, the report, and the options
that name a network and say how it runs (also used by the training commands, which may import this module)."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from engine.nn.config import DTYPES

__all__ = ["Rate", "measure_rate", "report", "network_options", "runtime_options", "runtime_options_with_numpy",
           "dtype_option"]

_Command = TypeVar("_Command", bound=Callable[..., Any])


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


def _options(command: _Command, options: list[Callable[[Any], Any]]) -> _Command:
    for option in reversed(options):
        command = option(command)
    return command


def network_options(command: _Command) -> _Command:
    """--model, --blocks, --filters: a model file, or a random network of that size (speed does not
    depend on the weights)."""
    return _options(command, [
        click.option("--model", "model_path", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="A model file; otherwise a random network of --blocks x --filters."),
        click.option("--blocks", type=click.IntRange(0), default=6, show_default=True, help="Residual blocks."),
        click.option("--filters", type=click.IntRange(1), default=64, show_default=True, help="Filters per layer."),
    ])


def runtime_options(command: _Command) -> _Command:
    """--device, --dtype, --runtime, --threads: how a network runs (``EvaluatorOptions``, and the
    process's torch threads, which the command sets with ``set_cpu_threads``)."""
    return _runtime_options(command, ["auto", "eager", "compile"])


def runtime_options_with_numpy(command: _Command) -> _Command:
    """:func:`runtime_options` with ``--runtime numpy`` too (the numpy forward pass; ``--threads`` are then
    numpy's BLAS's), for the commands that can run it."""
    return _runtime_options(command, ["auto", "eager", "compile", "numpy"])


dtype_option = click.option(
    "--dtype", type=click.Choice(DTYPES), default="auto", show_default=True,
    help="The network's arithmetic. auto: bf16 where the hardware has it natively, else fp32. int8: the residual "
         "blocks quantized, on the cpu, eager (about twice bf16's speed on big networks such as Leela Zero's).")
"""``--dtype`` (``EvaluatorOptions.dtype``), for every command that runs a network."""


def _runtime_options(command: _Command, runtimes: list[str]) -> _Command:
    numpy = " numpy: the numpy forward pass (float32, cpu, no torch)." if "numpy" in runtimes else ""
    return _options(command, [
        click.option("--device", default=None, help="cpu, cuda, mps [default: cuda, then mps, else cpu]."),
        dtype_option,
        click.option("--runtime", type=click.Choice(runtimes), default="auto", show_default=True,
                     help="auto: torch.compile on a CPU (10-25 s once per process), else eager." + numpy),
        click.option("--threads", type=click.IntRange(1), default=None,
                     help="Torch CPU threads [default: every core]; 1 can be faster when other work shares them."),
    ])
