"""Who owns each point at the end: a Monte-Carlo estimate from compiled random playouts (Go).

:func:`playout_ownership` plays many random games from a position to the end
and averages :func:`engine.core.scoring.region_owners` over them: +1 where black
always ends up owning the point, -1 for white, values between where it is
contested. The playouts do not fill a player's own one-point eyes (a point
whose four neighbours are the player's stones or the edge and whose
diagonals do not make it a false eye), so living groups survive them and
dead ones do not: the estimate is good enough to name dead stones at the end
of a game (GTP ``final_status_list``, ``final_score``) and to draw an
ownership map during analysis. :func:`stone_status` turns any ownership map
(this estimate or a network's) into alive, dead and seki chains. A playout passes only when every empty point
is illegal or an own eye; two passes end it.

The kernels apply simple ko (as :mod:`engine.core.playout` does). Passes and the
move count of the starting position are reset, so a finished game is still
played out.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from engine.core.board import HEAD, MOVES, PASSES, STONES, copy_array, geometry
from engine.core.dispatch import MOVE_CAP, pack_rules
from engine.core.jit import njit
from engine.core.playout import random_playout
from engine.core.position import Position
from engine.core.rng import new_rng
from engine.core.scoring import region_owners
from engine.core.seki import seki_stones
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["playout_ownership", "stone_status", "StoneStatus", "DEFAULT_PLAYOUTS"]

DEFAULT_PLAYOUTS = 400


@njit(cache=True)
def _ownership_sum(start_cells, start_info, zobrist, W, action_point, spec, count, rng, total):
    """Add +1 (black) / -1 (white) per point and playout into ``total[N*N]``."""
    cells = start_cells.copy()
    info = start_info.copy()
    empties = np.empty(action_point.shape[0], dtype=np.int64)
    record = np.empty(0, dtype=np.int64)
    for _ in range(count):
        copy_array(start_cells.ravel(), cells.ravel())
        copy_array(start_info, info)
        random_playout(cells, info, zobrist, W, action_point, spec, True, rng, empties, record)
        owners = region_owners(cells[STONES], W, action_point)
        for a in range(owners.shape[0]):
            if owners[a] == BLACK:
                total[a] += 1
            elif owners[a] == WHITE:
                total[a] -= 1


def _position_of(state: object) -> Position:
    position = getattr(state, "position", state)
    if not isinstance(position, Position):
        raise TypeError(f"expected a Game or a Position, not {type(state).__name__}")
    return position


def playout_ownership(state: object, playouts: int = DEFAULT_PLAYOUTS, seed: int | None = None) -> np.ndarray:
    """``float32[N*N]`` in [-1, 1]: mean final owner of each point from black's view (Go only).

    ``state`` is a Game or a Position; the playouts draw from a generator of
    their own seeded with ``seed`` (same seed, same estimate; None: a fresh one).
    """
    position = _position_of(state)
    rules = position.rules
    if rules.game != "go":
        raise ValueError("ownership is estimated for Go only")
    if playouts < 1:
        raise ValueError("at least one playout is needed")
    geo = geometry(rules.size)
    info = position.info.copy()
    info[PASSES] = 0
    info[MOVES] = 0
    total = np.zeros(rules.num_points, dtype=np.int64)
    spec = pack_rules(rules)
    spec[MOVE_CAP] = 3 * rules.num_points  # counted from this position: its moves so far are reset above
    _ownership_sum(position.cells, info, geo.zobrist, geo.width, geo.action_point, spec, int(playouts),
                   new_rng(seed), total)
    return (total / playouts).astype(np.float32)


class StoneStatus(NamedTuple):
    """The chains on the board (each a sorted list of actions, in board order) by their fate."""

    alive: list[list[int]]
    dead: list[list[int]]
    seki: list[list[int]]


def stone_status(state: object, ownership: np.ndarray, threshold: float = 0.0) -> StoneStatus:
    """The chains on the board split into alive, dead and seki by ``ownership`` (black's view).

    A chain is dead when the mean of ``ownership`` over its stones, seen from
    its own colour, is below ``threshold``, unless it is in seki on the board as
    it stands (random playouts, and so the estimate, break sekis at random).
    Seki chains are then those :func:`engine.core.seki.seki_stones` finds with
    the dead chains taken off; the rest are alive.
    """
    position = _position_of(state)
    geo = geometry(position.rules.size)
    stones = position.cells[STONES, geo.action_point]
    heads = position.cells[HEAD, geo.action_point]
    own = np.asarray(ownership, dtype=np.float64) * np.where(stones == BLACK, 1.0, -1.0)
    standing = seki_stones(position.cells[STONES], geo.width, geo.action_point)
    chains: list[np.ndarray] = []
    dead: list[list[int]] = []
    seen: set[int] = set()
    for action in np.flatnonzero(stones != EMPTY):
        head = int(heads[action])
        if head in seen:
            continue
        seen.add(head)
        chain = np.flatnonzero((heads == head) & (stones != EMPTY))
        if own[chain].mean() < threshold and not standing[chain[0]]:
            dead.append([int(a) for a in chain])
        else:
            chains.append(chain)
    board = position.cells[STONES].copy()
    for chain in dead:
        board[geo.action_point[chain]] = EMPTY
    seki = seki_stones(board, geo.width, geo.action_point)
    alive = [[int(a) for a in chain] for chain in chains if not seki[chain[0]]]
    return StoneStatus(alive, dead, [[int(a) for a in chain] for chain in chains if seki[chain[0]]])
