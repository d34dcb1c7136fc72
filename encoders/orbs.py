"""Chain Reaction's encoder: ``orbs8``.

``orbs8`` (8 planes, ``uint8``)
    0-2: the side to move's cells holding 1, 2 and 3 orbs (more, only in a finished game's last
    chain, count as 3); 3-5: the opponent's likewise; 6: ones when black is to move; 7: ones
    when white is to move.

The AlphaZero Chain Reaction tutorial's seven planes, with the side to move as two planes (Leela
Zero's way) instead of one: one of the two is all ones whoever moves, so the zero padding of the
first convolution shows the network where the board ends, which is where the critical masses
change, on any board size. With one plane, white to move would see no edge at all on an empty
board, and a size-independent network would have nothing to tell a corner from the middle.
"""

from __future__ import annotations

import numpy as np

from encoders.base import Encoder
from engine.core.board import ORBS, STONES, TO_PLAY
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY

__all__ = ["Orbs8Encoder"]


@njit(cache=True)
def orbs8_kernel(cells, info, action_point, out):
    """``out[B, 8, N*N]`` (zeroed): own cells by orbs (1, 2, >= 3), the opponent's, black to move, white to move."""
    for b in range(cells.shape[0]):
        me = info[b, TO_PLAY]
        stones = cells[b, STONES]
        orbs = cells[b, ORBS]
        for a in range(action_point.shape[0]):
            p = action_point[a]
            if stones[p] != EMPTY:
                plane = (0 if stones[p] == me else 3) + min(orbs[p], 3) - 1
                out[b, plane, a] = 1
        out[b, 6 if me == BLACK else 7, :] = 1


class Orbs8Encoder(Encoder):
    """Own and opponent cells by orb count, and the side to move as two planes (Chain Reaction)."""

    name = "orbs8"
    num_planes = 8
    games = ("chain-reaction",)
    rows = ORBS + 1

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        orbs8_kernel(cells, info, self.geo.action_point, out)
