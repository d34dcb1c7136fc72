"""Resident memory of one full evaluation cache (its default 32,768 entries, every head of a network with score
and ownership heads, keyed as the evaluators key) on 9x9 and 19x19.

    python experiments/soak-memory/fill.py SIZE
"""

from __future__ import annotations

import os
import sys

import numpy as np

from bench.gtp_pipe import resident_bytes
from engine.nn.cached_evaluator import DEFAULT_CACHE_SIZE, RowCache
from engine.nn.config import NetOutput

BATCH = 64


def resident_mb() -> float:
    return resident_bytes(os.getpid()) / 2**20


def main(size: int) -> None:
    actions = size * size + 1
    before = resident_mb()
    cache = RowCache(DEFAULT_CACHE_SIZE)
    rng = np.random.default_rng(0)
    for _ in range(0, DEFAULT_CACHE_SIZE, BATCH):
        keys = [(int(key), 3, hash(int(key))) for key in rng.integers(0, 2**62, BATCH)]
        rows = NetOutput(np.zeros((BATCH, actions), np.float32), np.zeros(BATCH, np.float32),
                         np.zeros((BATCH, actions - 1), np.float32), np.zeros(BATCH, np.float32),
                         np.zeros(BATCH, np.float32))
        cache.store(keys, rows)
    print(f"{size}x{size}: {len(cache)} entries, {resident_mb() - before:.0f} MB")


if __name__ == "__main__":
    main(int(sys.argv[1]))
