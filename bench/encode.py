"""``engine bench encode``: batch feature encoding, positions per second.

The workload is ``encode_batch`` on the same batch of realistic positions
again and again: each position is a uniformly random legal game of 100 to
200 moves (fewer if it ends first), so that stones, chains with few and many
liberties, captures and the history ring are all non-trivial. One core; the
stacking of the positions' arrays is part of the time, as it is in search.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bench.timing import measure_rate
from encoders.registry import ENCODERS, encoder_names, get_encoder
from engine.core.position import Position
from engine.core.rules import Rules

__all__ = ["measure_encode", "random_positions"]


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


def measure_encode(name: str, size: int, batch: int, seconds: float, runs: int, seed: int) -> dict[str, Any]:
    """Positions/s of ``encode_batch`` with the encoder ``name`` (median of ``runs`` runs of ``seconds``); ValueError
    for a name no encoder has."""
    cls = ENCODERS.get(name)
    if cls is None:
        raise ValueError(f"unknown encoder {name!r}: expected one of {', '.join(encoder_names())}")
    rules = Rules.default(cls.games[0], size)
    encoder = get_encoder(name, rules)
    positions = random_positions(rules, batch, seed)
    started = time.perf_counter()
    encoder.encode_batch(positions)  # compile or load the kernel
    warm_up = time.perf_counter() - started

    def step() -> float:
        encoder.encode_batch(positions)
        return float(batch)

    rate = measure_rate(step, seconds, runs)
    return {"encoder": name, "planes": cls.num_planes, "dtype": str(cls.dtype), "game": rules.game, "size": size,
            "batch": batch, "runs": runs, "seconds": seconds, "positions_per_s": rate.median,
            "positions_per_s_runs": rate.runs, "warm_up_s": warm_up}
