"""Gomoku threat search: victory by continuous fours (VCF).

A four is a move after which its side threatens to win at the next move at exactly one point (two
such points, or a four the opponent may not stop, win outright). The opponent must answer a four
there or lose, so a sequence of fours is a sequence of forced replies: the side to move has a VCF
when some chain of its fours, each answered at its one point, ends in a five. Classical Gomoku
programs read VCFs exhaustively because they decide games far beyond where a network's priors
look; a VCF found is a proof, so a search may take its value as exact.

The reading follows the rules core: a win is :func:`~engine.core.gomoku.is_winning_line` (exactly k
for standard and renju's black), renju's black never plays a forbidden point (so a four black may
not stop, or whose stopping point is forbidden to black, wins for white), and a reply that makes
the defender a four of its own ends the attacker's line unless the attacker wins at once.

Kernels read and change ``stones`` (the padded board of ``engine.core.board``) and restore it.
"""

from __future__ import annotations

import numpy as np

from engine.core.gomoku import may_play, wins_at
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["winning_points", "vcf"]


@njit(cache=True)
def winning_points(stones, W, action_point, color, k, variant, out):
    """The legal points where ``color`` wins at once, at most ``len(out)`` of them written to ``out``:
    their count (capped at ``len(out)``)."""
    found = 0
    for a in range(action_point.shape[0]):
        p = action_point[a]
        if stones[p] == EMPTY and wins_at(stones, p, W, color, k, variant) \
                and may_play(stones, W, p, color, k, variant):
            out[found] = p
            found += 1
            if found == out.shape[0]:
                break
    return found


@njit(cache=True, inline="always")
def _makes_four(stones, p, W, color, k, variant):
    """Whether a stone of ``color`` at the empty point ``p`` would leave an empty point on one of its
    lines where ``color`` then wins: along each line, the first empty point past ``color``'s stones on
    either side (gaps included: X X p _ X)."""
    stones[p] = color
    four = False
    for d in (1, W, W + 1, W - 1):
        for step in (d, -d):
            q = p + step
            for _ in range(k - 1):
                if stones[q] != color:
                    break
                q += step
            if stones[q] == EMPTY and wins_at(stones, q, W, color, k, variant):
                four = True
                break
        if four:
            break
    stones[p] = EMPTY
    return four


@njit(cache=True, inline="always")
def _next_four(stones, W, action_point, start, attacker, k, variant):
    """The first action from ``start`` on whose point is a four ``attacker`` may play, else the number of actions."""
    for a in range(start, action_point.shape[0]):
        p = action_point[a]
        if stones[p] == EMPTY and _makes_four(stones, p, W, attacker, k, variant) \
                and may_play(stones, W, p, attacker, k, variant):
            return a
    return action_point.shape[0]


@njit(cache=True)
def vcf(stones, W, action_point, attacker, k, variant, depth, budget):
    """The first move of a victory by continuous fours for ``attacker``, who is to move, of at most
    ``depth`` fours (a five at once counts), reading at most ``budget`` fours in all; -1 when none is
    found within those bounds (which proves nothing) or when the defender can win at once.

    A depth-first search over an explicit stack (numba caches no recursive kernel whose types it must
    infer): ``played[i]``, ``replies[i]`` are the four and its forced answer at level ``i``, ``next_action[i]``
    where that level's scan of candidate fours goes on."""
    defender = WHITE if attacker == BLACK else BLACK
    points = np.empty(2, np.int64)
    if winning_points(stones, W, action_point, attacker, k, variant, points[:1]) > 0:
        return points[0]
    if depth <= 0 or winning_points(stones, W, action_point, defender, k, variant, points[:1]) > 0:
        return -1
    n = action_point.shape[0]
    next_action = np.zeros(depth, np.int64)
    played = np.empty(depth, np.int64)
    replies = np.empty(depth, np.int64)
    level = 0
    found = -1
    while level >= 0 and found < 0:
        a = _next_four(stones, W, action_point, next_action[level], attacker, k, variant)
        next_action[level] = a + 1
        if a == n or budget <= 0:   # this level is exhausted: take back the four that led to it
            level -= 1
            if level >= 0:
                stones[replies[level]] = EMPTY
                stones[played[level]] = EMPTY
            continue
        budget -= 1
        p = action_point[a]
        stones[p] = attacker
        threats = winning_points(stones, W, action_point, attacker, k, variant, points)
        if threats >= 2 or (threats == 1 and not may_play(stones, W, points[0], defender, k, variant)):
            found = played[0] if level > 0 else p   # two threats, or one renju's black may not stop
            stones[p] = EMPTY
            break
        if threats == 0:   # its only winning point is forbidden to black: no four after all
            stones[p] = EMPTY
            continue
        reply = points[0]
        stones[reply] = defender
        if level + 1 == depth or winning_points(stones, W, action_point, defender, k, variant, points[:1]) > 0:
            stones[reply] = EMPTY   # too deep, or the answer makes the defender a four: try the next four
            stones[p] = EMPTY
            continue
        played[level] = p
        replies[level] = reply
        level += 1
        next_action[level] = 0
    for i in range(level):   # a proof found: take back the line that led to it
        stones[replies[i]] = EMPTY
        stones[played[i]] = EMPTY
    return found
