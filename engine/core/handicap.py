"""Where handicap stones go: GTP's fixed patterns and the engine's free placement.

Both functions return actions (row 0 at the top); put the stones on the board
with :meth:`engine.core.game.Game.place_handicap`.

Fixed handicap (GTP 2 draft, section 4.1.1; GNU Go 3.8 answers the same
sets, listed in board order, on every board it accepts). The stones stand on
the star lines: the 3rd line from each edge on boards up to 11x11, the 4th
line on 12x12 and larger, plus the centre lines. In GTP's order, with 19x19
names:

======  =============================================
stones  points
======  =============================================
2       D4 Q16 (lower left, upper right)
3       + D16 (upper left)
4       + Q4 (lower right)
5       the four corners + K10 (centre)
6       the four corners + D10 Q10 (left, right middle)
7       the six + K10
8       the six + K4 K16 (lower, upper middle)
9       the eight + K10
======  =============================================

The rule for which requests are refused (:class:`HandicapError`): fewer than 2
or more than 9 stones; boards smaller than 7x7; more than 4 stones on boards
with an even size (no centre line) or on 7x7 (its middle lines would touch the
corner stones). Boards from 20x20 to 25x25, beyond GTP's table, follow the
same rule on the 4th line.
"""

from __future__ import annotations

import numpy as np

from engine.core.rules import MAX_SIZE
from engine.core.types import EngineError

__all__ = ["HandicapError", "fixed_handicap", "free_handicap", "max_fixed_handicap"]


class HandicapError(EngineError, ValueError):
    """A handicap request that cannot be met (bad count or board size)."""


def max_fixed_handicap(size: int) -> int:
    """The largest fixed handicap on an N x N board: 9, 4, or 0 where there is none."""
    if size < 7 or size > MAX_SIZE:
        return 0
    return 9 if size % 2 == 1 and size > 7 else 4


def _star_line(size: int) -> int:
    """0-based index of the line the corner stones stand on (3rd line to 11x11, then 4th)."""
    return 2 if size <= 11 else 3


def fixed_handicap(stones: int, size: int) -> list[int]:
    """GTP's fixed handicap placement of ``stones`` on an N x N board, in GTP's order.

    Raises :class:`HandicapError` for the requests the module docstring lists.
    """
    limit = max_fixed_handicap(size)
    if limit == 0:
        raise HandicapError(f"no fixed handicap on a {size}x{size} board (sizes 7..{MAX_SIZE} have one)")
    if not 2 <= stones <= limit:
        raise HandicapError(f"invalid handicap {stones}: a {size}x{size} board takes 2 to {limit} fixed stones")
    lo = _star_line(size)
    hi = size - 1 - lo
    mid = size // 2
    corners = [(hi, lo), (lo, hi), (lo, lo), (hi, hi)]
    if stones <= 4:
        points = corners[:stones]
    else:
        sides = [(mid, lo), (mid, hi), (hi, mid), (lo, mid)][:stones - stones % 2 - 4]
        points = corners + sides + ([(mid, mid)] if stones % 2 else [])
    return [row * size + col for row, col in points]


def free_handicap(stones: int, size: int) -> list[int]:
    """The engine's own placement of ``stones`` handicap stones (GTP ``place_free_handicap``).

    The fixed pattern where one exists. Otherwise the largest fixed pattern
    for the board (none below 7x7) is extended greedily: each further stone
    goes on the point farthest (Euclidean) from every stone already placed,
    ties broken towards the edge, then by the lowest action. Points are drawn
    from the square inside the star lines, widened towards the edge while a
    checkerboard on that square would hold fewer than ``stones`` points.
    At most ``N*N // 2`` stones are placed: GTP 4.1.2 lets an engine return
    fewer stones than asked when more cannot matter, and half the board is
    already an unlosable lead.
    Raises :class:`HandicapError` for fewer than 2 or more than ``N*N - 1``.
    """
    if not 2 <= size <= MAX_SIZE:
        raise HandicapError(f"board size {size} is outside 2..{MAX_SIZE}")
    if not 2 <= stones <= size * size - 1:
        raise HandicapError(f"invalid handicap {stones}: a {size}x{size} board takes 2 to {size * size - 1} stones")
    stones = min(stones, size * size // 2)
    if stones <= max_fixed_handicap(size):
        return fixed_handicap(stones, size)
    chosen = fixed_handicap(max_fixed_handicap(size), size) if max_fixed_handicap(size) else []
    lo = max(0, min(_star_line(size), (size - 3) // 2))
    while lo > 0 and ((size - 2 * lo + 1) // 2) ** 2 < stones:
        lo -= 1
    rows, cols = np.divmod(np.arange(size * size), size)
    inside = (np.minimum(rows, cols) >= lo) & (np.maximum(rows, cols) <= size - 1 - lo)
    centre = (size - 1) / 2
    from_centre = (rows - centre) ** 2 + (cols - centre) ** 2
    nearest = np.full(size * size, np.inf)
    for action in chosen:
        nearest = np.minimum(nearest, (rows - rows[action]) ** 2 + (cols - cols[action]) ** 2)
    while len(chosen) < stones:
        # lexsort sorts by its last key first: the greatest distance, then off-centre, then the lowest action
        order = np.lexsort((np.arange(size * size), -from_centre, -np.where(inside, nearest, -1.0)))
        action = int(order[0])
        chosen.append(action)
        nearest = np.minimum(nearest, (rows - rows[action]) ** 2 + (cols - cols[action]) ** 2)
    return chosen
