"""Gomoku kernels: k in a row under the freestyle, standard and renju variants.

Gomoku shares the board layout, stone placement, hashing and history ring with
Go (``engine.core.board``); it keeps no chains. A move wins when the line through
it reaches the winning length:

* freestyle: k or more in a row;
* standard: exactly k (an overline is a legal move that does not win);
* renju: black exactly k; white k or more. Black may not make an overline, a
  double four or a double three, unless the same move makes exactly five. A
  three counts only if the point that would make it a straight four is itself
  legal for black (so "false" double threes are allowed).
"""

from __future__ import annotations

from engine.core.board import FORBIDDEN, LEGAL, OCCUPIED, STONES, WINNER, line_length, put_stone, record_move
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["FREESTYLE", "STANDARD", "RENJU", "VARIANT_CODES", "gomoku_check", "gomoku_play",
           "gomoku_legal_mask", "gomoku_winning_point", "renju_forbidden", "is_winning_line", "wins_at", "may_play"]

FREESTYLE, STANDARD, RENJU = 0, 1, 2
VARIANT_CODES = {"freestyle": FREESTYLE, "standard": STANDARD, "renju": RENJU}
_MAX_RENJU_DEPTH = 8


@njit(cache=True)
def is_winning_line(length, color, k, variant):
    """Whether a run of ``length`` stones of ``color`` wins under the variant."""
    if variant == FREESTYLE or (variant == RENJU and color == WHITE):
        return length >= k
    return length == k


@njit(cache=True, inline="always")
def _next_empty(stones, p, step, k):
    """The first empty point from ``p`` along ``step`` past black stones only, within ``k - 1`` steps,
    else -1: the one point on that side where black can lengthen the run through ``p``."""
    q = p
    for _ in range(k - 1):
        q += step
        c = stones[q]
        if c == EMPTY:
            return q
        if c != BLACK:
            return -1
    return -1


@njit(cache=True, inline="always")
def _run_with_black_at(stones, p, d, q):
    """Black's run through ``p`` along ``d`` (> 0) with a black stone tried at ``q``: its length, and whether
    both ends are open as a straight four's are (empty, with no black stone just beyond)."""
    stones[q] = BLACK
    ahead = p + d
    while stones[ahead] == BLACK:
        ahead += d
    behind = p - d
    while stones[behind] == BLACK:
        behind -= d
    stones[q] = EMPTY
    open_ends = (stones[ahead] == EMPTY and stones[behind] == EMPTY
                 and stones[ahead + d] != BLACK and stones[behind - d] != BLACK)
    return (ahead - behind) // d - 1, open_ends


@njit(cache=True)
def _count_fours(stones, p, d, k):
    """Fours through the black stone at ``p`` along ``d``: points on either side that make exactly k,
    a straight four (both, k apart) counting once."""
    count = 0
    first = -1
    for step in (d, -d):
        q = _next_empty(stones, p, step, k)
        if q >= 0 and _run_with_black_at(stones, p, d, q)[0] == k:
            if first >= 0 and abs(q - first) == k * d:
                return 1
            first = q
            count += 1
    return count


# An explicit signature: numba can cache a recursive kernel (and its callers) only when it need
# not infer the recursive call's type.
@njit("boolean(int16[::1], int64, int64, int64, int64)", cache=True)
def renju_forbidden(stones, W, p, k, depth):
    """Whether black may not play at the empty point ``p`` (overline, 4-4 or 3-3).

    ``stones`` is changed during the call and restored before it returns.
    Threes are checked recursively (the straight-four point must itself be
    legal), down to a fixed depth beyond which a three is taken as real.
    """
    if depth > _MAX_RENJU_DEPTH:
        return False
    stones[p] = BLACK
    five = False
    overline = False
    for d in (1, W, W + 1, W - 1):
        n = line_length(stones, p, d, BLACK)
        if n == k:
            five = True
        elif n > k:
            overline = True
    if five or overline:
        stones[p] = EMPTY
        return not five
    fours = 0
    for d in (1, W, W + 1, W - 1):
        fours += _count_fours(stones, p, d, k)
    if fours >= 2:
        stones[p] = EMPTY
        return True
    threes = 0
    for d in (1, W, W + 1, W - 1):
        for step in (d, -d):
            q = _next_empty(stones, p, step, k)
            if q < 0:
                continue
            length, open_ends = _run_with_black_at(stones, p, d, q)
            if length == k - 1 and open_ends and not renju_forbidden(stones, W, q, k, depth + 1):
                threes += 1
                break
    stones[p] = EMPTY
    return threes >= 2


@njit(cache=True, inline="always")
def wins_at(stones, p, W, color, k, variant):
    """Whether a stone of ``color`` at ``p`` (empty, or already ``color``'s) completes a winning line."""
    for d in (1, W, W + 1, W - 1):
        if is_winning_line(line_length(stones, p, d, color), color, k, variant):
            return True
    return False


@njit(cache=True, inline="always")
def may_play(stones, W, p, color, k, variant):
    """Whether ``color`` may play the empty point ``p`` (renju forbids black some points)."""
    return not (variant == RENJU and color == BLACK and renju_forbidden(stones, W, p, k, 0))


@njit(cache=True, inline="always")
def gomoku_check(cells, info, W, point, color, k, variant):
    """Verdict for ``color`` at ``point``: occupied, forbidden for black under renju, or legal."""
    stones = cells[STONES]
    if stones[point] != EMPTY:
        return OCCUPIED
    if not may_play(stones, W, point, color, k, variant):
        return FORBIDDEN
    return LEGAL


@njit(cache=True)
def gomoku_play(cells, info, zobrist, W, point, color, k, variant):
    """Place a legal stone and record a win; returns 1 if the move won, else 0."""
    put_stone(cells, info, zobrist, point, color)
    won = 0
    if wins_at(cells[STONES], point, W, color, k, variant):
        won = 1
        info[WINNER] = color
    record_move(cells, info, point, color)
    return won


@njit(cache=True)
def gomoku_legal_mask(cells, info, W, action_point, color, k, variant, mask):
    """Fill ``mask[A]`` with the legal points (none once someone has won); pass never."""
    n = action_point.shape[0]
    over = info[WINNER] != 0
    stones = cells[STONES]
    renju_black = variant == RENJU and color == BLACK
    for a in range(n):
        p = action_point[a]
        mask[a] = (not over) and stones[p] == EMPTY and not (renju_black and renju_forbidden(stones, W, p, k, 0))
    mask[n] = False



@njit(cache=True)
def gomoku_winning_point(cells, info, W, action_point, color, k, variant):
    """A legal point where ``color`` makes a winning line at once (the first in action order), else -1."""
    stones = cells[STONES]
    if info[WINNER] != 0:
        return -1
    for a in range(action_point.shape[0]):
        p = action_point[a]
        if stones[p] == EMPTY and wins_at(stones, p, W, color, k, variant) \
                and may_play(stones, W, p, color, k, variant):
            return p
    return -1
