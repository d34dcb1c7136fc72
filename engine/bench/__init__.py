"""``engine bench``: speed benchmarks as commands, each printing a median of several runs."""

from __future__ import annotations

import click

from engine.cli import LazyGroup

__all__ = ["bench"]


@click.group(cls=LazyGroup,
             lazy={"rules": "engine.bench.rules:rules_command",
                   "encode": "encoders.bench:encode_command",
                   "net": "engine.bench.net:net_command",
                   "search": "engine.bench.search:search_command",
                   "genmove": "engine.bench.genmove:genmove_command",
                   "selfplay": "training.bench:selfplay_bench_command"},
             summaries={"rules": "Random playouts through the rules core: moves/s and playouts/s.",
                        "encode": "Batch feature encoding: positions/s.",
                        "net": "Network forward passes: positions/s.",
                        "search": "Tree search with a uniform evaluator: simulations/s.",
                        "genmove": "Whole genmoves with a network: visits/s, time outside the network.",
                        "selfplay": "Self-play with a network: positions/s and games/hour."})
def bench() -> None:
    """Measure the speed of the engine's parts (medians of several runs)."""
