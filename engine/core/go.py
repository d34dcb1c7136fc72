"""Go kernels: legality, playing a move with exact incremental liberties, the hash after a move.

Chains are circular lists (``cells[NEXT]``) with a head (``cells[HEAD]``) that
holds the chain's exact liberty count and size. Placing a stone decrements
each distinct neighbouring chain once (the point was a liberty of each);
removing a captured chain increments each distinct neighbour of every removed
stone once; merging adds to the larger chain the liberties of the smaller one
that it did not already have. No flood fill per move.

All functions take the padded board width ``W`` and points, not actions; see
``engine.core.board`` for the layout.
"""

from __future__ import annotations

from engine.core.board import (
    CAPTURED_BLACK,
    HASH,
    HEAD,
    HISTORY,
    KO,
    KO_RECAPTURE,
    LEGAL,
    LIBS,
    NEXT,
    OCCUPIED,
    PASS_POINT,
    RING,
    SIZE,
    STONES,
    SUICIDE,
    TO_PLAY,
    copy_array,
    put_stone,
    record_move,
)
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WALL, WHITE

__all__ = ["go_check", "go_play", "go_place_setup", "go_hash_after", "go_legal_mask", "is_own_eye", "go_drop_own_eyes",
           "empty_neighbours"]


@njit(cache=True, inline="always")
def _chains_around(stones, head, W, p, color):
    """Heads of the distinct chains next to ``p``, -1 padded to four: chains of ``color``, or of either
    colour when ``color`` is EMPTY. A chain that touches ``p`` on several sides is named once."""
    h0 = h1 = h2 = h3 = -1
    for d in (1, -1, W, -W):
        c = stones[p + d]
        if (c == BLACK or c == WHITE) and (color == EMPTY or c == color):
            h = head[p + d]
            if h != h0 and h != h1 and h != h2:
                if h0 == -1:
                    h0 = h
                elif h1 == -1:
                    h1 = h
                elif h2 == -1:
                    h2 = h
                else:
                    h3 = h
    return h0, h1, h2, h3


@njit(cache=True, inline="always")
def empty_neighbours(stones, W, p):
    """How many of the four neighbours of ``p`` are empty: the liberties of a lone stone there."""
    n = 0
    for d in (1, -1, W, -W):
        if stones[p + d] == EMPTY:
            n += 1
    return n


@njit(cache=True)
def _link_new_stone(cells, W, p):
    """Make the stone at ``p`` a one-stone chain and take ``p`` from its neighbours' liberties."""
    stones = cells[STONES]
    libs = cells[LIBS]
    cells[HEAD, p] = p
    cells[NEXT, p] = p
    cells[SIZE, p] = 1
    for h in _chains_around(stones, cells[HEAD], W, p, EMPTY):
        if h >= 0:
            libs[h] -= 1
    libs[p] = empty_neighbours(stones, W, p)


@njit(cache=True)
def _remove_chain(cells, info, zobrist, W, h, color):
    """Remove the chain headed at ``h``; return its size. Neighbours gain the liberties."""
    stones = cells[STONES]
    head = cells[HEAD]
    nxt = cells[NEXT]
    libs = cells[LIBS]
    n = 0
    s = h
    while True:
        stones[s] = EMPTY
        info[HASH] ^= zobrist[color, s]
        n += 1
        s = nxt[s]
        if s == h:
            break
    while True:
        for hq in _chains_around(stones, head, W, s, EMPTY):
            if hq >= 0:
                libs[hq] += 1
        s = nxt[s]
        if s == h:
            break
    return n


@njit(cache=True)
def _merge_chains(cells, W, big, small):
    """Merge chain ``small`` into chain ``big`` (both heads), counting new shared liberties once."""
    stones = cells[STONES]
    head = cells[HEAD]
    nxt = cells[NEXT]
    libs = cells[LIBS]
    color = stones[big]
    cells[SIZE, big] += cells[SIZE, small]
    s = small
    while True:
        for d in (1, -1, W, -W):
            q = s + d
            if stones[q] == EMPTY:
                shared = False
                for e in (1, -1, W, -W):
                    r = q + e
                    if stones[r] == color and head[r] == big:
                        shared = True
                        break
                if not shared:
                    libs[big] += 1
        head[s] = big
        s = nxt[s]
        if s == small:
            break
    tmp = nxt[small]
    nxt[small] = nxt[big]
    nxt[big] = tmp


@njit(cache=True)
def _join_friends(cells, W, p, color):
    """Merge the new stone at ``p`` with every friendly neighbouring chain."""
    stones = cells[STONES]
    head = cells[HEAD]
    size = cells[SIZE]
    for d in (1, -1, W, -W):
        q = p + d
        if stones[q] == color:
            a = head[p]
            b = head[q]
            if a != b:
                if size[a] >= size[b]:
                    _merge_chains(cells, W, a, b)
                else:
                    _merge_chains(cells, W, b, a)


@njit(cache=True)
def _legal_without_liberty(stones, head, libs, W, point, color, suicide_allowed):
    """Whether a stone on an empty ``point`` with no empty neighbour is legal: it joins a chain
    that keeps a liberty, captures, or suicide is allowed."""
    opp = 3 - color
    for d in (1, -1, W, -W):
        q = point + d
        c = stones[q]
        if c == color:
            if libs[head[q]] > 1:
                return True
        elif c == opp:
            if libs[head[q]] == 1:
                return True
    return suicide_allowed


@njit(cache=True, inline="always")
def go_check(cells, info, W, point, color, suicide_allowed):
    """Verdict for ``color`` playing at ``point`` under simple ko (superko is the Game's)."""
    stones = cells[STONES]
    if stones[point] != EMPTY:
        return OCCUPIED
    if point == info[KO] and color == info[TO_PLAY]:
        return KO_RECAPTURE
    if (stones[point - 1] == EMPTY or stones[point + 1] == EMPTY
            or stones[point - W] == EMPTY or stones[point + W] == EMPTY):
        return LEGAL
    if _legal_without_liberty(stones, cells[HEAD], cells[LIBS], W, point, color, suicide_allowed):
        return LEGAL
    return SUICIDE


@njit(cache=True)
def go_play(cells, info, zobrist, W, point, color):
    """Play a legal move (``PASS_POINT`` passes); return the number of stones captured.

    Precondition: ``go_check`` said LEGAL. A suicide (where the rules allow it)
    removes the mover's own chain, which counts as captured by the opponent.
    """
    if point == PASS_POINT:
        info[KO] = 0
        record_move(cells, info, point, color)
        return 0
    stones = cells[STONES]
    head = cells[HEAD]
    opp = 3 - color
    put_stone(cells, info, zobrist, point, color)
    _link_new_stone(cells, W, point)
    captured = 0
    ko = 0
    for d in (1, -1, W, -W):
        q = point + d
        if stones[q] == opp and cells[LIBS, head[q]] == 0:
            ko = q
            captured += _remove_chain(cells, info, zobrist, W, head[q], opp)
    _join_friends(cells, W, point, color)
    h = head[point]
    if cells[LIBS, h] == 0:
        info[CAPTURED_BLACK + color - 1] += _remove_chain(cells, info, zobrist, W, h, color)
        ko = 0
    elif captured != 1 or cells[SIZE, h] != 1 or cells[LIBS, h] != 1:
        ko = 0
    info[CAPTURED_BLACK + opp - 1] += captured
    info[KO] = ko
    record_move(cells, info, point, color)
    return captured


@njit(cache=True)
def go_place_setup(cells, info, zobrist, W, point, color):
    """Put a setup stone (handicap, SGF AB/AW) on an empty point: no capture, no move counted."""
    put_stone(cells, info, zobrist, point, color)
    _link_new_stone(cells, W, point)
    _join_friends(cells, W, point, color)
    info[KO] = 0
    copy_array(cells[STONES], cells[HISTORY + info[RING]])


@njit(cache=True)
def _xor_chain(cells, zobrist, h, color, key):
    nxt = cells[NEXT]
    s = h
    while True:
        key ^= zobrist[color, s]
        s = nxt[s]
        if s == h:
            break
    return key


@njit(cache=True)
def go_hash_after(cells, info, zobrist, W, point, color):
    """The stones-only hash after ``color`` plays a legal move at ``point`` (state unchanged)."""
    key = info[HASH]
    if point == PASS_POINT:
        return key
    stones = cells[STONES]
    head = cells[HEAD]
    libs = cells[LIBS]
    opp = 3 - color
    key ^= zobrist[color, point]
    captures = False
    for h in _chains_around(stones, head, W, point, opp):
        if h >= 0 and libs[h] == 1:
            key = _xor_chain(cells, zobrist, h, opp, key)
            captures = True
    if captures:
        return key
    for d in (1, -1, W, -W):
        q = point + d
        c = stones[q]
        if c == EMPTY or (c == color and libs[head[q]] > 1):
            return key
    # suicide: the new stone and every friendly neighbour chain leave the board
    key ^= zobrist[color, point]
    for h in _chains_around(stones, head, W, point, color):
        if h >= 0:
            key = _xor_chain(cells, zobrist, h, color, key)
    return key


@njit(cache=True)
def go_legal_mask(cells, info, W, action_point, color, suicide_allowed, mask):
    """Fill ``mask[A]`` (bool) with the simple-ko legal actions of ``color``; pass is legal.

    One loop with the common case (an empty neighbour) inline: this runs at
    every expansion of the search tree.
    """
    stones = cells[STONES]
    head = cells[HEAD]
    libs = cells[LIBS]
    ko = info[KO] if color == info[TO_PLAY] else -1
    n = action_point.shape[0]
    for a in range(n):
        p = action_point[a]
        if stones[p] != EMPTY or p == ko:
            mask[a] = False
        elif (stones[p - 1] == EMPTY or stones[p + 1] == EMPTY
              or stones[p - W] == EMPTY or stones[p + W] == EMPTY):
            mask[a] = True
        else:
            mask[a] = _legal_without_liberty(stones, head, libs, W, p, color, suicide_allowed)
    mask[n] = True


@njit(cache=True, inline="always")
def is_own_eye(stones, W, p, color):
    """Whether the empty point ``p`` is a one-point eye of ``color`` that a sensible player keeps: its four
    neighbours are ``color``'s stones or the edge, and the opponent holds fewer than two of its diagonals (none
    on the edge)."""
    for d in (1, -1, W, -W):
        c = stones[p + d]
        if c != color and c != WALL:
            return False
    opponents = 0
    edge = 0
    for d in (W + 1, W - 1, 1 - W, -1 - W):
        c = stones[p + d]
        if c == WALL:
            edge = 1
        elif c == 3 - color:
            opponents += 1
    return opponents + edge < 2


@njit(cache=True)
def go_drop_own_eyes(cells, W, action_point, color, mask):
    """Clear from ``mask[A]`` the actions that fill one of ``color``'s own one-point eyes (:func:`is_own_eye`)."""
    stones = cells[STONES]
    for a in range(action_point.shape[0]):
        if mask[a] and is_own_eye(stones, W, action_point[a], color):
            mask[a] = False
