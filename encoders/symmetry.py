"""The 8 symmetries of the square board (the dihedral group), for planes, policies and positions.

Symmetry ``k`` (0..7) first mirrors left-right when ``k >= 4``, then rotates
``k % 4`` quarter turns counter-clockwise (as ``np.rot90`` does, row 0 at the top):

===  ==========================================  ============
k    transform                                   inverse
===  ==========================================  ============
0    identity                                    0
1    rotate 90 degrees counter-clockwise         3
2    rotate 180 degrees                          2
3    rotate 90 degrees clockwise                 1
4    mirror left-right (columns reversed)        4
5    transpose (main diagonal)                   5
6    mirror top-bottom (rows reversed)           6
7    anti-transpose (other diagonal)             7
===  ==========================================  ============

Planes are ``[..., N, N]``; policies are ``[..., N*N + 1]`` with pass last, which
stays in place. Results are new C-contiguous arrays (``torch.from_numpy`` takes
them as they are). :func:`transform_position` rebuilds a Position as the
transformed board would be: stones (and Chain Reaction's orbs), chains, history ring, ko point and last move.
"""

from __future__ import annotations

import math

import numpy as np

from engine.core.board import HASH, HISTORY, KO, LAST
from engine.core.position import Position
from engine.core.rules import CHAIN_REACTION
from engine.core.symmetry import INVERSES, NUM_SYMMETRIES, check_symmetry, destination_cells, source_cells

__all__ = ["NUM_SYMMETRIES", "SYMMETRY_NAMES", "inverse", "transform_planes", "inverse_planes",
           "transform_policy", "inverse_policy", "action_map", "transform_action", "transform_position"]

SYMMETRY_NAMES = ("identity", "rotate 90 ccw", "rotate 180", "rotate 90 cw", "mirror left-right", "transpose",
                  "mirror top-bottom", "anti-transpose")


def inverse(k: int) -> int:
    """The symmetry that undoes ``k``."""
    return INVERSES[check_symmetry(k)]


def transform_planes(planes: np.ndarray, k: int) -> np.ndarray:
    """Symmetry ``k`` of ``planes[..., N, N]`` (a new contiguous array of the same shape and dtype)."""
    planes = np.asarray(planes)
    n = planes.shape[-1]
    if planes.ndim < 2 or planes.shape[-2] != n:
        raise ValueError(f"planes must be [..., N, N], not {planes.shape}")
    flat = planes.reshape(*planes.shape[:-2], n * n)
    source = source_cells(check_symmetry(k), n)
    return np.take(flat, source, axis=-1).reshape(planes.shape)  # take: C order, unlike [..., idx]


def inverse_planes(planes: np.ndarray, k: int) -> np.ndarray:
    """Undo :func:`transform_planes` with the same ``k``."""
    return transform_planes(planes, inverse(k))


def _policy_size(length: int) -> int:
    n = math.isqrt(max(length - 1, 0))
    if n < 1 or n * n + 1 != length:
        raise ValueError(f"a policy has N*N + 1 entries (pass last), not {length}")
    return n


def transform_policy(policy: np.ndarray, k: int) -> np.ndarray:
    """Symmetry ``k`` of ``policy[..., N*N + 1]``: point entries move as the board does, pass stays last."""
    policy = np.asarray(policy)
    n = _policy_size(policy.shape[-1])
    order = np.append(source_cells(check_symmetry(k), n), n * n)
    return np.take(policy, order, axis=-1)


def inverse_policy(policy: np.ndarray, k: int) -> np.ndarray:
    """Undo :func:`transform_policy` with the same ``k``."""
    return transform_policy(policy, inverse(k))


def action_map(k: int, size: int) -> np.ndarray:
    """``int64[N*N + 1]``: the action each action becomes under ``k`` (pass maps to pass)."""
    return np.append(destination_cells(check_symmetry(k), size), size * size)


def transform_action(action: int, k: int, size: int) -> int:
    """The action ``action`` becomes under symmetry ``k`` on an N x N board."""
    if not 0 <= action <= size * size:
        raise ValueError(f"action {action} is not on a {size}x{size} board")
    return int(action_map(k, size)[action])


def transform_position(position: Position, k: int) -> Position:
    """The position whose board (orbs too), history, ko point and last move are those of ``position`` under ``k``.

    Chains, liberties and the hash are rebuilt from the transformed stones; the
    counters (side to move, passes, moves, captures, ring slot, winner) are kept.
    """
    k = check_symmetry(k)
    width = position.geo.width
    orbs = transform_planes(position.orbs(), k) if position.rules.game == CHAIN_REACTION else None
    new = Position.from_board(position.rules, transform_planes(position.board(), k), position.to_play, orbs)
    padded_source = source_cells(k, width)
    padded_destination = destination_cells(k, width)
    new.cells[HISTORY:] = position.cells[HISTORY:][:, padded_source]
    info = position.info.copy()
    info[HASH] = new.info[HASH]
    for field in (KO, LAST):
        if info[field] > 0:  # 0 is "none" (KO) or pass (LAST), -1 is "no move yet"
            info[field] = padded_destination[info[field]]
    new.info[:] = info
    return new
