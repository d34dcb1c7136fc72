"""Encoders of the last eight boards: ``zero17`` (AlphaGo Zero) and ``lz18`` (Leela Zero).

Both read the boards after the last 8 moves, current first (``Position.history``),
coloured from the side to move *now*: "own" at every step means the stones of
the player about to move. Boards before the game's start (or before its setup
stones) are empty; a pass repeats the board, so history shifts through passes.

``zero17`` (17 planes, ``uint8``), AlphaGo Zero's interleaved order
    ``2t``: own stones ``t`` moves ago, ``2t + 1``: opponent stones ``t`` moves
    ago (``t = 0..7``); 16: ones when black is to move.
``lz18`` (18 planes, ``uint8``), Leela Zero's order
    ``t``: own stones ``t`` moves ago; ``8 + t``: opponent stones ``t`` moves ago;
    16: ones when black is to move; 17: ones when white is to move.
"""

from __future__ import annotations

import numpy as np

from encoders.base import Encoder
from encoders.stones import split_colors
from engine.core.board import HISTORY, HISTORY_LEN, RING, STONES, TO_PLAY
from engine.core.jit import njit
from engine.core.types import BLACK

__all__ = ["Zero17Encoder", "LZ18Encoder"]


@njit(cache=True)
def history_kernel(cells, info, size, interleaved, white_plane, out):
    """Fill ``out[B, C, N*N]`` (zeroed) with 8 own and 8 opponent history planes, then colour.

    ``interleaved``: own/opponent alternate (``2t``, ``2t+1``); otherwise own
    ``t`` and opponent ``8 + t``. Plane 16 is ones for black to move; with
    ``white_plane`` plane 17 is ones for white to move.
    """
    for b in range(cells.shape[0]):
        me = info[b, TO_PLAY]
        ring = info[b, RING]
        for t in range(HISTORY_LEN):
            board = STONES if t == 0 else HISTORY + (ring - t + HISTORY_LEN) % HISTORY_LEN
            own = 2 * t if interleaved else t
            split_colors(cells[b, board], size, me, out[b, own], out[b, own + 1 if interleaved else HISTORY_LEN + t])
        if me == BLACK:
            out[b, 2 * HISTORY_LEN, :] = 1
        elif white_plane:
            out[b, 2 * HISTORY_LEN + 1, :] = 1


class Zero17Encoder(Encoder):
    """Own / opponent stones of the last 8 boards, interleaved; ones if black to move (AlphaGo Zero)."""

    name = "zero17"
    num_planes = 17
    games = ("go", "gomoku")

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        history_kernel(cells, info, self.size, True, False, out)


class LZ18Encoder(Encoder):
    """Own stones of the last 8 boards, then opponent's; black to move; white to move (Leela Zero)."""

    name = "lz18"
    num_planes = 18
    games = ("go",)

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        history_kernel(cells, info, self.size, False, True, out)
