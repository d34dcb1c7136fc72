"""Encoders of stones by liberty count: ``sevenplane`` and ``elevenplane`` (Go only).

``sevenplane`` (7 planes, ``uint8``)
    0-2: the side to move's stones whose chain has 1, 2, >=3 liberties;
    3-5: the opponent's stones likewise;
    6: the ko plane.
``elevenplane`` (11 planes, ``uint8``)
    0-3: the side to move's stones with 1, 2, 3, >=4 liberties;
    4-7: the opponent's stones likewise;
    8: ones when black is to move; 9: ones when white is to move;
    10: the ko plane.
``fifteenplane`` (15 planes, ``uint8``)
    0-10: as ``elevenplane``;
    11-14: where the last four moves were played, one plane each (the last
    move first; empty for a pass or before the game's first move). Human
    players answer the last moves far more often than anything else on the
    board, so a network that sees them predicts their moves much better.

The ko plane marks the points the side to move may not play because of ko:
the simple-ko point while that ko is active, plus the superko points of a
Game or of the caller's ``banned`` mask (see :mod:`encoders.base`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from encoders.base import Encoder
from engine.core.board import EMPTY, HEAD, HISTORY, HISTORY_LEN, KO, LIBS, RING, ROWS, STONES, TO_PLAY
from engine.core.jit import njit
from engine.core.types import BLACK

__all__ = ["SevenPlaneEncoder", "ElevenPlaneEncoder", "FifteenPlaneEncoder"]


@njit(cache=True)
def signed_liberties(cells, me, action_point, cap, code):
    """Fill ``code[N*N]`` from one board's ``cells``: the liberties of the chain on each point, at most
    ``cap``, positive on ``me``'s stones, negative on the opponent's, 0 where the point is empty."""
    stones = cells[STONES]
    head = cells[HEAD]
    libs = cells[LIBS]
    opp = 3 - me
    for a in range(action_point.shape[0]):
        p = action_point[a]
        s = stones[p]
        code[a] = min(libs[head[p]], cap) * (np.int16(s == me) - np.int16(s == opp))


@njit(cache=True)
def mark_ko(info, point_action, banned, b, plane):
    """Set ``plane[N*N]`` to 1 where board ``b``'s side to move may not play because of ko: its simple-ko
    point (in ``info[INFO_LEN]``) and its ``banned`` points (``bool[B, N*N]``, or ``bool[0, N*N]`` for none)."""
    ko = info[KO]
    if ko != 0:
        plane[point_action[ko]] = 1
    if banned.shape[0] > 0:
        for a in range(plane.shape[0]):
            if banned[b, a]:
                plane[a] = 1


@njit(cache=True)
def liberty_kernel(cells, info, action_point, point_action, banned, buckets, colour_planes, out):
    """Fill ``out[B, C, N*N]`` (zeroed).

    Own stones go to plane ``min(libs, buckets) - 1``, opponent stones to
    ``buckets + min(libs, buckets) - 1``; with ``colour_planes`` the next two
    planes are black-to-move and white-to-move; the last plane is ko.
    ``banned`` is ``bool[B, N*N]``, or ``bool[0, N*N]`` for none.
    """
    points = action_point.shape[0]
    ko_plane = out.shape[1] - 1
    code = np.empty(points, dtype=np.int16)  # +libs own stone, -libs opponent stone, 0 empty
    for b in range(cells.shape[0]):
        me = info[b, TO_PLAY]
        signed_liberties(cells[b], me, action_point, buckets, code)
        for n in range(1, buckets + 1):  # branch-free passes over contiguous planes vectorise
            own = out[b, n - 1]
            theirs = out[b, buckets + n - 1]
            for a in range(points):
                own[a] = code[a] == n
                theirs[a] = code[a] == -n
        if colour_planes:
            out[b, 2 * buckets + (0 if me == BLACK else 1), :] = 1
        mark_ko(info[b], point_action, banned, b, out[b, ko_plane])


@njit(cache=True)
def recent_moves_kernel(cells, info, action_point, first_plane, count, out):
    """Mark where each of the last ``count`` moves was played in ``out[B, first_plane + t - 1, N*N]``.

    The move ``t`` plies ago is the one point that holds a stone on the board
    ``t - 1`` plies ago and was empty on the board ``t`` plies ago (captures
    only empty points, so they never look like a move). A pass changes
    nothing; setup stones, which appear many at once, mark nothing.
    """
    for b in range(cells.shape[0]):
        ring = info[b, RING]
        for t in range(1, count + 1):
            newer = STONES if t == 1 else HISTORY + (ring - t + 1 + HISTORY_LEN) % HISTORY_LEN
            older = HISTORY + (ring - t + HISTORY_LEN) % HISTORY_LEN
            found = -1
            several = False
            for a in range(action_point.shape[0]):
                p = action_point[a]
                if cells[b, newer, p] != EMPTY and cells[b, older, p] == EMPTY:
                    several = several or found >= 0
                    found = a
            if found >= 0 and not several:
                out[b, first_plane + t - 1, found] = 1


class _LibertyEncoder(Encoder):
    """Stones by their chain's liberties (``buckets`` planes a side), then with ``colour_planes`` one plane per
    colour to move, then the ko plane: the planes of :func:`liberty_kernel`."""

    games = ("go",)
    uses_ko = True
    rows = LIBS + 1
    buckets: ClassVar[int]
    colour_planes: ClassVar[bool]

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        geo = self.geo
        liberty_kernel(cells, info, geo.action_point, geo.point_action, banned, self.buckets, self.colour_planes, out)


class SevenPlaneEncoder(_LibertyEncoder):
    """Own / opponent stones with 1, 2, >=3 liberties; ko."""

    name = "sevenplane"
    num_planes = 7
    buckets = 3
    colour_planes = False


class ElevenPlaneEncoder(_LibertyEncoder):
    """Own / opponent stones with 1, 2, 3, >=4 liberties; black to move; white to move; ko."""

    name = "elevenplane"
    num_planes = 11
    buckets = 4
    colour_planes = True


class FifteenPlaneEncoder(ElevenPlaneEncoder):
    """The eleven planes of ``elevenplane``, then where the last four moves were played."""

    name = "fifteenplane"
    num_planes = 15
    rows = ROWS               # the history boards, which show where each move was played
    recent_moves = 4

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        eleven = ElevenPlaneEncoder.num_planes   # the liberty kernel writes its ko plane last: give it eleven
        super()._fill(cells, info, banned, out[:, :eleven])
        recent_moves_kernel(cells, info, self.geo.action_point, eleven, self.recent_moves, out)
