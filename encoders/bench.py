"""``engine bench encode``: batch feature encoding, positions per second.

The workload is ``encode_batch`` on the same batch of realistic positions
again and again: each position is a uniformly random legal game of 100 to
200 moves (fewer if it ends first), so that stones, chains with few and many
liberties, captures and the history ring are all non-trivial. One core; the
stacking of the positions' arrays is part of the time, as it is in search.
"""

from __future__ import annotations

import time

import click
import numpy as np

from encoders.registry import ENCODERS, get_encoder
from engine.bench.timing import measure_rate, report
from engine.core.position import Position
from engine.core.rules import Rules

__all__ = ["encode_command", "random_positions"]


def random_positions(rules: Rules, count: int, seed: int = 0, moves: tuple[int, int] = (100, 200)) -> list[Position]:
    """``count`` positions, each after a random legal game of ``moves`` (low, high) moves.

    Moves are uniform among the legal points; Go passes only when no point is
    legal, and a game that ends early stops there.
    """
    rng = np.random.default_rng(seed)
    positions = []
    for _ in range(count):
        position = Position(rules)
        for _ in range(int(rng.integers(moves[0], moves[1] + 1))):
            mask = position.legal_mask()
            points = np.flatnonzero(mask[:-1])
            if points.size:
                position.play_unchecked(int(rng.choice(points)))
            elif mask[-1]:
                position.play_unchecked(rules.pass_action)
            else:
                break
        positions.append(position)
    return positions


@click.command("encode")
@click.option("--encoder", "name", type=click.Choice(list(ENCODERS)), required=True, help="Encoder to time.")
@click.option("--size", type=click.IntRange(5, 25), default=19, show_default=True, help="Board size.")
@click.option("--batch", type=click.IntRange(1), default=64, show_default=True, help="Positions per call.")
@click.option("--seconds", type=click.FloatRange(0.01), default=1.0, show_default=True, help="Length of each run.")
@click.option("--runs", type=click.IntRange(1), default=5, show_default=True, help="Runs; the median is reported.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def encode_command(name: str, size: int, batch: int, seconds: float, runs: int, seed: int, as_json: bool) -> None:
    """Batch feature encoding: positions/s (median of several runs)."""
    cls = ENCODERS[name]
    rules = Rules.go(size) if "go" in cls.games else Rules.gomoku(size)
    encoder = get_encoder(name, rules)
    positions = random_positions(rules, batch, seed)
    started = time.perf_counter()
    encoder.encode_batch(positions)  # compile or load the kernel
    warm_up = time.perf_counter() - started

    def step() -> float:
        encoder.encode_batch(positions)
        return float(batch)

    rate = measure_rate(step, seconds, runs)
    result = {
        "encoder": name, "planes": cls.num_planes, "dtype": str(cls.dtype), "game": rules.game, "size": size,
        "batch": batch, "runs": runs, "seconds": seconds, "positions_per_s": rate.median,
        "positions_per_s_runs": rate.runs, "warm_up_s": warm_up,
    }
    text = (f"{name} ({cls.num_planes} planes, {rules.game} {size}x{size}, batches of {batch}): "
            f"{rate.median:,.0f} positions/s (median of {runs} runs of {seconds:g} s; first call {warm_up:.2f} s)")
    report(result, as_json, text)
