"""Seki: chains that live without two eyes because neither side can approach the other (Go).

:func:`seki_stones` reads a padded board from which the dead stones have
already been taken off. A chain is in seki when

* it has at least two liberties and shares one of them with an opposing chain;
* the opponent can play on none of its liberties without self-atari: the
  stone played there, joined with the chains of its colour it touches, would
  have at most one liberty and captures nothing (an own eye, where the
  opponent's stone would be suicide, counts as unapproachable), unless that
  self-atari sacrifices at most :data:`SACRIFICE` stones: capturing so few
  leaves an eye space a nakade kills, so such a group is dead, not in seki;
* every opposing chain it shares a liberty with is in seki too (so a chain
  that the other side can attack from outside, a semeai, is not).

These are the three classic shapes: shared liberties and no eyes, one eye
each with shared liberties, and seki on the side or in the corner, which
differ only in where the edge is. Territory scoring counts no points in the
eyes of such chains (:func:`engine.core.scoring.score`); area scoring counts them.
"""

from __future__ import annotations

import numpy as np

from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["seki_stones", "SACRIFICE"]

SACRIFICE = 3
"""The largest chain an approach may put in atari and still threaten: capturing up to three stones
leaves the capturer at most a four-point eye space along the shared liberties, which a nakade can kill."""


@njit(cache=True)
def _label_chains(stones, W, action_point, chain, colour, size):
    """``chain[p]``: the chain of the stone on padded point p (-1 elsewhere), ``colour[k]`` and
    ``size[k]`` its colour and stone count; returns the number of chains."""
    stack = np.empty(stones.shape[0], dtype=np.int64)
    count = 0
    for a in range(action_point.shape[0]):
        p = action_point[a]
        c = stones[p]
        if (c != BLACK and c != WHITE) or chain[p] >= 0:
            continue
        chain[p] = count
        colour[count] = c
        size[count] = 1
        stack[0] = p
        top = 1
        while top > 0:
            top -= 1
            s = stack[top]
            for d in (1, -1, W, -W):
                q = s + d
                if stones[q] == c and chain[q] < 0:
                    chain[q] = count
                    size[count] += 1
                    stack[top] = q
                    top += 1
        count += 1
    return count


@njit(cache=True)
def _threatens(stones, W, L, mover, chain, libs, lib1, lib2, size):
    """Whether ``mover``'s stone on empty point ``L`` threatens the opposing chains it touches: it
    captures, the chain it makes keeps two liberties, or that chain is a sacrifice of at most
    SACRIFICE stones in atari (a throw-in, or a nakade whose capture leaves too small an eye).
    ``lib1`` / ``lib2`` hold each chain's first two liberties."""
    first = -1  # the first liberty found, to count distinct ones
    found = 0
    stones_in = 1
    joined = np.full(4, -1, dtype=np.int64)
    chains = 0
    for d in (1, -1, W, -W):
        q = L + d
        cq = stones[q]
        if cq == EMPTY:
            if q != first:
                found += 1
                first = q if first < 0 else first
        elif cq == BLACK or cq == WHITE:
            k = chain[q]
            if cq != mover:
                if libs[k] == 1:
                    return True  # captures
                continue
            if k == joined[0] or k == joined[1] or k == joined[2]:
                continue
            joined[chains] = k
            chains += 1
            stones_in += size[k]
            if libs[k] >= 3:
                return True
            if libs[k] == 2:
                other = lib2[k] if lib1[k] == L else lib1[k]
                if other != first:
                    found += 1
                    first = other if first < 0 else first
        if found >= 2:
            return True
    return found == 1 and stones_in <= SACRIFICE


@njit(cache=True)
def seki_stones(stones, W, action_point):
    """``bool[N*N]``: the stones (per action) of chains in seki on padded ``stones`` (dead stones removed)."""
    P = stones.shape[0]
    n = action_point.shape[0]
    chain = np.full(P, -1, dtype=np.int64)
    colour = np.zeros(n, dtype=np.int64)
    size = np.zeros(n, dtype=np.int64)
    count = _label_chains(stones, W, action_point, chain, colour, size)
    libs = np.zeros(count, dtype=np.int64)
    lib1 = np.full(count, -1, dtype=np.int64)
    lib2 = np.full(count, -1, dtype=np.int64)
    shared = np.zeros(count, dtype=np.bool_)
    near = np.empty(4, dtype=np.int64)
    empties = np.empty(n, dtype=np.int64)
    nempty = 0
    for a in range(n):
        if stones[action_point[a]] == EMPTY:
            empties[nempty] = action_point[a]
            nempty += 1
    empties = empties[:nempty]
    for L in empties:  # liberties: each empty point counts once for every chain it touches
        k_near = 0
        colours = 0
        for d in (1, -1, W, -W):
            k = chain[L + d]
            if k < 0:
                continue
            fresh = True
            for j in range(k_near):
                fresh = fresh and near[j] != k
            if fresh:
                near[k_near] = k
                k_near += 1
                colours |= colour[k]
                if libs[k] == 0:
                    lib1[k] = L
                elif libs[k] == 1:
                    lib2[k] = L
                libs[k] += 1
        if colours == BLACK | WHITE:
            for j in range(k_near):
                shared[near[j]] = True
    candidate = np.zeros(count, dtype=np.bool_)
    for k in range(count):
        candidate[k] = libs[k] >= 2 and shared[k]
    for L in empties:  # a liberty the opponent can approach rules the chain out
        for mover in (BLACK, WHITE):
            if not _threatens(stones, W, L, mover, chain, libs, lib1, lib2, size):
                continue
            for d in (1, -1, W, -W):
                k = chain[L + d]
                if k >= 0 and colour[k] != mover:
                    candidate[k] = False
    partnered = np.zeros(count, dtype=np.bool_)
    changed = True
    while changed:  # every opposing chain a candidate shares a liberty with must be one too
        changed = False
        partnered[:] = False
        for L in empties:
            for d in (1, -1, W, -W):
                k = chain[L + d]
                if k < 0:
                    continue
                for e in (1, -1, W, -W):
                    m = chain[L + e]
                    if m >= 0 and colour[m] != colour[k]:
                        if candidate[m]:
                            partnered[k] = True
                        elif candidate[k]:
                            candidate[k] = False
                            changed = True
        for k in range(count):
            if candidate[k] and not partnered[k]:
                candidate[k] = False
                changed = True
    seki = np.zeros(n, dtype=np.bool_)
    for a in range(n):
        k = chain[action_point[a]]
        seki[a] = k >= 0 and candidate[k]
    return seki
