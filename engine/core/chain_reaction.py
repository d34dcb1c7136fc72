"""Chain Reaction kernels: orbs, critical masses and the chain of explosions.

Rules. Each player in turn adds one orb to an empty cell or to a cell it owns
(there is no pass). A cell holding as many orbs as it has orthogonal
neighbours (its critical mass: 2 in a corner, 3 on an edge, 4 inside) explodes:
it loses that many orbs and sends one to each neighbour, which then belongs to
the exploding player with all its orbs. A neighbour that reaches its own
critical mass explodes in turn. A player whose last orbs are taken loses.

Layout. A cell's owner is its ``cells[STONES]`` entry (EMPTY, BLACK, WHITE),
so everything that reads stones (``Position.board``, diagrams, SGF setup, the
history ring, the board symmetries) sees who holds each cell unchanged; its orb
count is ``cells[ORBS]`` (the row Go keeps chain heads in). ``info[ORBS_BLACK]``
and ``info[ORBS_WHITE]`` count each player's orbs, so the end of the game is one
comparison. The hash keys a cell by owner and count (``engine.core.board``);
counts above four occur only in the last chain of a finished game and share
four's key.

The chain. Cells that reach their critical mass wait in a first-in first-out
queue (neighbours taken up, left, right, down) and explode once each time
they are taken out, again later while they still hold their mass. The chain
stops as soon as the opponent has no orb left: the game is won, and only then
can it go on forever. Orbs are conserved by explosions, and a pile on a
connected board that never settles topples every cell again and again
(a sandpile without a sink), so an endless chain takes every enemy orb and
stops there. The mover wins when the move took the opponent's last orbs; a
player who has not moved yet has none to lose, so the opening move is safe.
"""

from __future__ import annotations

import numpy as np

from engine.core.board import HASH, LEGAL, OCCUPIED, ORB_KEYS, ORBS, ORBS_BLACK, STONES, WINNER, record_move
from engine.core.jit import njit
from engine.core.types import EMPTY, WALL

__all__ = ["critical_mass", "critical_masses", "chain_reaction_check", "chain_reaction_play", "chain_reaction_set",
           "chain_reaction_legal_mask"]


def critical_masses(size: int) -> np.ndarray:
    """``int64[N, N]``: every cell's critical mass (2 in the corners, 3 on the edges, 4 inside), row 0 at the top."""
    masses = np.full((size, size), 4, dtype=np.int64)
    masses[[0, -1], :] -= 1
    masses[:, [0, -1]] -= 1
    return masses


@njit(cache=True, inline="always")
def critical_mass(stones, W, p):
    """The orbs at which the cell ``p`` explodes: its number of orthogonal neighbours on the board."""
    n = 0
    for d in (-W, -1, 1, W):
        if stones[p + d] != WALL:
            n += 1
    return n


@njit(cache=True, inline="always")
def _orb_key(zobrist, color, count, p):
    """The hash key of ``count`` >= 1 orbs of ``color`` at ``p`` (one orb: the stone's key)."""
    if count == 1:
        return zobrist[color, p]
    return zobrist[ORB_KEYS + 3 * (color - 1) + min(count, 4) - 2, p]


@njit(cache=True, inline="always")
def chain_reaction_set(cells, info, zobrist, p, color, count):
    """Make cell ``p`` hold ``count`` orbs of ``color`` (EMPTY when ``count`` is 0), keeping the hash and
    the players' orb totals; no explosion. Setup orbs are placed with it."""
    stones = cells[STONES]
    orbs = cells[ORBS]
    owner = stones[p]
    old = orbs[p]
    if old > 0:
        info[HASH] ^= _orb_key(zobrist, owner, old, p)
        info[ORBS_BLACK + owner - 1] -= old
    if count > 0:
        info[HASH] ^= _orb_key(zobrist, color, count, p)
        info[ORBS_BLACK + color - 1] += count
        stones[p] = color
    else:
        stones[p] = EMPTY
    orbs[p] = count


@njit(cache=True, inline="always")
def chain_reaction_check(cells, point, color):
    """Verdict for ``color`` adding an orb at ``point``: ``OCCUPIED`` when the opponent owns it, else legal."""
    if cells[STONES, point] == 3 - color:
        return OCCUPIED
    return LEGAL


@njit(cache=True)
def _explode(cells, info, zobrist, W, start, color):
    """Run the chain from ``start`` (at its critical mass) until every cell has settled or the opponent
    has no orb left."""
    stones = cells[STONES]
    orbs = cells[ORBS]
    enemy_orbs = ORBS_BLACK + 2 - color
    size = stones.shape[0]
    queue = np.empty(size, dtype=np.int64)   # a ring: fewer cells than points wait at once
    queued = np.zeros(size, dtype=np.bool_)
    queue[0] = start
    queued[start] = True
    head, tail, waiting = 0, 1, 1
    while waiting > 0:
        p = queue[head]
        head = (head + 1) % size
        waiting -= 1
        queued[p] = False
        mass = critical_mass(stones, W, p)
        chain_reaction_set(cells, info, zobrist, p, color, orbs[p] - mass)
        for d in (-W, -1, 1, W):
            q = p + d
            if stones[q] != WALL:
                chain_reaction_set(cells, info, zobrist, q, color, orbs[q] + 1)
                if not queued[q] and orbs[q] >= critical_mass(stones, W, q):
                    queue[tail] = q
                    tail = (tail + 1) % size
                    queued[q] = True
                    waiting += 1
        if info[enemy_orbs] == 0:
            return
        if not queued[p] and orbs[p] >= mass:
            queue[tail] = p
            tail = (tail + 1) % size
            queued[p] = True
            waiting += 1


@njit(cache=True)
def chain_reaction_play(cells, info, zobrist, W, point, color):
    """``color`` adds an orb at ``point`` (empty or its own; the caller vouches), runs the chain and records
    a win if the move took the opponent's last orbs."""
    enemy_orbs = ORBS_BLACK + 2 - color
    had_enemy = info[enemy_orbs] > 0
    chain_reaction_set(cells, info, zobrist, point, color, cells[ORBS, point] + 1)
    if cells[ORBS, point] >= critical_mass(cells[STONES], W, point):
        _explode(cells, info, zobrist, W, point, color)
    if had_enemy and info[enemy_orbs] == 0:
        info[WINNER] = color
    record_move(cells, info, point, color)


@njit(cache=True)
def chain_reaction_legal_mask(cells, action_point, color, mask):
    """Fill ``mask[A]`` with the cells ``color`` may add an orb to (empty or its own); pass never."""
    stones = cells[STONES]
    enemy = 3 - color
    n = action_point.shape[0]
    for a in range(n):
        mask[a] = stones[action_point[a]] != enemy
    mask[n] = False
