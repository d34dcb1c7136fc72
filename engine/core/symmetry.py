"""The 8 symmetries of the square board as index tables: what the encoders' transforms
(:mod:`encoders.symmetry`) and the network evaluators' random symmetries share.

Symmetry ``k`` (0..7) first mirrors left-right when ``k >= 4``, then rotates
``k % 4`` quarter turns counter-clockwise (as ``np.rot90`` does, row 0 at the
top). A table maps flat cells of an ``n x n`` grid (``n*n`` entries, row-major).
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["NUM_SYMMETRIES", "INVERSES", "check_symmetry", "source_cells", "destination_cells"]

NUM_SYMMETRIES = 8
INVERSES = (0, 3, 2, 1, 4, 5, 6, 7)
"""The symmetry that undoes each: the rotations by a quarter turn undo each other, the rest undo themselves."""


def check_symmetry(k: int) -> int:
    """``k`` as an int, or ValueError when it names no symmetry."""
    if not 0 <= int(k) < NUM_SYMMETRIES:
        raise ValueError(f"symmetry must be 0..{NUM_SYMMETRIES - 1}, not {k!r}")
    return int(k)


@functools.lru_cache(maxsize=None)
def source_cells(k: int, n: int) -> np.ndarray:
    """``int64[n*n]`` (read-only): the input cell that lands on each output cell under ``k``."""
    grid = np.arange(n * n, dtype=np.int64).reshape(n, n)
    if k >= 4:
        grid = np.flip(grid, axis=1)
    source = np.ascontiguousarray(np.rot90(grid, k % 4)).reshape(-1)
    source.setflags(write=False)
    return source


@functools.lru_cache(maxsize=None)
def destination_cells(k: int, n: int) -> np.ndarray:
    """``int64[n*n]`` (read-only): the output cell each input cell moves to under ``k``."""
    source = source_cells(k, n)
    destination = np.empty_like(source)
    destination[source] = np.arange(n * n)
    destination.setflags(write=False)
    return destination
