"""Pass-alive chains and territory (Benson's algorithm), and the area they give each player.

A chain is *pass-alive* when the opponent cannot capture it even if its owner
never answers (passes every turn); Benson (1976) finds every such chain from
the position alone. For one player: the *regions* are the connected groups of
points that are empty or hold opponent stones (each with at least one empty
point); a region is *vital* to a chain of the player when every one of its
empty points (with suicide allowed: every one of its points) is a liberty of
that chain. Repeatedly drop the chains with fewer than two vital regions, and
the regions touching a dropped chain; what stays is pass-alive.

:func:`area` marks, per point, the player it belongs to as KataGo's input
features count it under area scoring: pass-alive chains, the regions they
enclose that are pass-alive territory (every point but at most one is a
liberty of the player's stones, or the region holds no opponent stone),
regions with no opponent stone walled in by a player's stones (where the other
player has not already claimed the point), and every other stone for its
owner. Kernels read the padded board of :mod:`engine.core.board`.
"""

from __future__ import annotations

import numpy as np

from engine.core.board import HEAD, NEXT, STONES
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["area", "pass_alive_for"]


@njit(cache=True)
def pass_alive_for(cells, width, pla, suicide, result):
    """Mark ``result[P]`` (int16, padded points) with ``pla`` on its pass-alive chains and the regions they
    own outright; regions with no opponent stone enclosed by ``pla`` are marked only where ``result`` is
    still EMPTY. ``suicide``: whether multi-stone suicide is legal (then opponent stones in a region count
    as points a vital chain must touch)."""
    stones = cells[STONES]
    head = cells[HEAD]
    nxt = cells[NEXT]
    points = stones.shape[0]
    opp = 3 - pla
    offsets = np.array([1, -1, width, -width])
    region = np.full(points, -1, np.int64)
    queue = np.empty(points, np.int64)
    order = np.empty(points, np.int64)  # region points, grouped: region r is order[start[r]:stop[r]]
    start = np.zeros(points, np.int64)
    stop = np.zeros(points, np.int64)
    vital = np.full((points, 4), -1, np.int64)  # the chain heads each region is vital for (at most 4)
    internal = np.zeros(points, np.int64)
    has_opp = np.zeros(points, np.bool_)
    count = 0
    filled = 0
    any_pla = False
    for p in range(points):
        s = stones[p]
        if s == pla:
            any_pla = True
        if s != EMPTY or region[p] >= 0:
            continue
        r = count
        count += 1
        n = 0
        for d in range(4):  # candidate chains: those touching the first point
            q = p + offsets[d]
            if stones[q] == pla:
                h = head[q]
                if h not in vital[r, :n]:
                    vital[r, n] = h
                    n += 1
        start[r] = filled
        queue[0] = p
        region[p] = r
        low, high = 0, 1
        while low < high:
            q = queue[low]
            low += 1
            order[filled] = q
            filled += 1
            if suicide or stones[q] == EMPTY:  # keep the chains this point is a liberty of
                for i in range(4):
                    h = vital[r, i]
                    if h < 0:
                        continue
                    touches = False
                    for d in range(4):
                        t = q + offsets[d]
                        touches = touches or (stones[t] == pla and head[t] == h)
                    if not touches:
                        vital[r, i] = -1
            near_pla = False
            for d in range(4):
                near_pla = near_pla or stones[q + offsets[d]] == pla
            if not near_pla:
                internal[r] += 1
            if stones[q] == opp:
                has_opp[r] = True
            for d in range(4):
                t = q + offsets[d]
                if (stones[t] == EMPTY or stones[t] == opp) and region[t] < 0:
                    region[t] = r
                    queue[high] = t
                    high += 1
        stop[r] = filled

    vital_count = np.zeros(points, np.int64)
    for r in range(count):
        for i in range(4):
            if vital[r, i] >= 0:
                vital_count[vital[r, i]] += 1
    killed = np.zeros(points, np.bool_)
    borders_dead = np.zeros(points, np.bool_)
    changed = True
    while changed:
        changed = False
        for h in range(points):
            if stones[h] != pla or head[h] != h or killed[h] or vital_count[h] >= 2:
                continue
            killed[h] = True
            changed = True
            q = h
            while True:
                for d in range(4):
                    r = region[q + offsets[d]]
                    if r >= 0 and not borders_dead[r]:
                        borders_dead[r] = True
                        for i in range(4):
                            if vital[r, i] >= 0:
                                vital_count[vital[r, i]] -= 1
                q = nxt[q]
                if q == h:
                    break

    for p in range(points):
        if stones[p] == pla and not killed[head[p]]:
            result[p] = pla
    for r in range(count):
        owned = internal[r] <= 1 and not borders_dead[r] and any_pla
        owned = owned or (not has_opp[r] and not borders_dead[r] and any_pla)
        if owned:
            for i in range(start[r], stop[r]):
                result[order[i]] = pla
        elif not has_opp[r] and any_pla:
            for i in range(start[r], stop[r]):
                if result[order[i]] == EMPTY:
                    result[order[i]] = pla


@njit(cache=True)
def area_kernel(cells, width, suicide, result):
    """:func:`area` on one padded board, into ``result[P]`` (int16, zeroed)."""
    pass_alive_for(cells, width, BLACK, suicide, result)
    pass_alive_for(cells, width, WHITE, suicide, result)
    stones = cells[STONES]
    for p in range(stones.shape[0]):
        if result[p] == EMPTY and (stones[p] == BLACK or stones[p] == WHITE):
            result[p] = stones[p]


def area(cells: np.ndarray, width: int, suicide: bool) -> np.ndarray:
    """``int16[P]``: the owner (BLACK, WHITE or EMPTY) of each padded point of the Go board ``cells``
    (a Position's ``cells``) as KataGo's area features count it (see the module docstring)."""
    result = np.zeros(cells.shape[1], np.int16)
    area_kernel(cells, width, suicide, result)
    return result
