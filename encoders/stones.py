"""Encoders that read only the stones: ``oneplane`` and ``gomoku4``.

``oneplane`` (1 plane, ``int8``)
    0: +1 on the side to move's stones, -1 on the opponent's, 0 on empty points.
``gomoku4`` (AlphaZero Gomoku, 4 planes, ``uint8``)
    0: the side to move's stones; 1: the opponent's stones;
    2: the last move (one point; empty before the first move);
    3: ones when black is to move.
"""

from __future__ import annotations

import numpy as np

from encoders.base import Encoder
from engine.core.board import LAST, STONES, TO_PLAY
from engine.core.jit import njit
from engine.core.types import BLACK

__all__ = ["OnePlaneEncoder", "Gomoku4Encoder"]


@njit(cache=True)
def split_colors(stones, size, me, own_plane, their_plane):
    """Write ``me``'s stones into ``own_plane[N*N]`` and the opponent's into ``their_plane[N*N]``
    (0/1), reading the padded ``stones`` row by row: contiguous and branch-free, so it vectorises."""
    width = size + 2
    opp = 3 - me
    for row in range(size):
        src = (row + 1) * width + 1
        dst = row * size
        for col in range(size):
            s = stones[src + col]
            own_plane[dst + col] = s == me
            their_plane[dst + col] = s == opp


@njit(cache=True)
def oneplane_kernel(cells, info, size, out):
    """``out[B, 1, N*N]``: +1 own stones, -1 opponent stones, 0 elsewhere."""
    width = size + 2
    for b in range(cells.shape[0]):
        me = info[b, TO_PLAY]
        opp = 3 - me
        stones = cells[b, STONES]
        plane = out[b, 0]
        for row in range(size):  # row by row: contiguous, branch-free, so it vectorises
            src = (row + 1) * width + 1
            dst = row * size
            for col in range(size):
                s = stones[src + col]
                plane[dst + col] = np.int8(s == me) - np.int8(s == opp)


@njit(cache=True)
def gomoku4_kernel(cells, info, size, point_action, out):
    """``out[B, 4, N*N]`` (zeroed): own, opponent, last move, black to move."""
    for b in range(cells.shape[0]):
        me = info[b, TO_PLAY]
        split_colors(cells[b, STONES], size, me, out[b, 0], out[b, 1])
        last = info[b, LAST]
        if last > 0:  # -1 before the first move, 0 (PASS_POINT) for a pass
            out[b, 2, point_action[last]] = 1
        if me == BLACK:
            out[b, 3, :] = 1


class OnePlaneEncoder(Encoder):
    """+1 own stones, -1 opponent stones."""

    name = "oneplane"
    num_planes = 1
    dtype = np.dtype(np.int8)
    games = ("go", "gomoku")
    rows = STONES + 1

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        oneplane_kernel(cells, info, self.size, out)


class Gomoku4Encoder(Encoder):
    """Own stones, opponent stones, last move, ones if black to move (AlphaZero Gomoku)."""

    name = "gomoku4"
    num_planes = 4
    games = ("gomoku",)
    rows = STONES + 1

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        gomoku4_kernel(cells, info, self.size, self.geo.point_action, out)
