"""Go scoring: area (Tromp-Taylor, Chinese) and territory (Japanese), with komi.

Scores are ``black - white - komi`` in points: positive means black leads.
Dead stones, when given, are taken off the board before counting: under area
scoring their points go to whoever then surrounds them; under territory
scoring they also count as prisoners. A region that touches both colours
(dame, shared liberties of a seki) belongs to nobody under either scoring.
Eyes of groups in seki count as territory here; the Japanese rule that they do
not is not modelled.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from engine.core.board import CAPTURED_BLACK, CAPTURED_WHITE, STONES, geometry
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["ownership", "score", "region_owners", "lead_of"]


@njit(cache=True)
def region_owners(stones, W, action_point):
    """Owner of every board point under area counting (``int8[N*N]``: 0, BLACK or WHITE).

    A stone owns its point; an empty region belongs to a colour when only that
    colour's stones border it (Tromp-Taylor reachability), else to nobody.
    """
    n = action_point.shape[0]
    P = stones.shape[0]
    region = np.full(P, -1, dtype=np.int64)
    owner_of_region = np.zeros(n + 1, dtype=np.int8)
    stack = np.empty(P, dtype=np.int64)
    owners = np.zeros(n, dtype=np.int8)
    nregions = 0
    for a in range(n):
        p = action_point[a]
        c = stones[p]
        if c == BLACK or c == WHITE:
            owners[a] = c
            continue
        if region[p] >= 0:
            owners[a] = owner_of_region[region[p]]
            continue
        touches = 0
        stack[0] = p
        top = 1
        region[p] = nregions
        while top > 0:
            top -= 1
            s = stack[top]
            for d in (1, -1, W, -W):
                q = s + d
                cq = stones[q]
                if cq == EMPTY:
                    if region[q] < 0:
                        region[q] = nregions
                        stack[top] = q
                        top += 1
                elif cq == BLACK or cq == WHITE:
                    touches |= cq
        owner_of_region[nregions] = touches if touches == BLACK or touches == WHITE else 0
        owners[a] = owner_of_region[nregions]
        nregions += 1
    return owners


def _stones_without(cells: np.ndarray, size: int, dead: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
    """Padded stones with the dead actions emptied, and the colours removed (per action)."""
    geo = geometry(size)
    stones = cells[STONES].copy()
    dead_actions = np.fromiter(dead, dtype=np.int64)
    removed = stones[geo.action_point[dead_actions]].copy() if dead_actions.size else np.zeros(0, np.int16)
    if dead_actions.size:
        stones[geo.action_point[dead_actions]] = EMPTY
    return stones, removed


def ownership(cells: np.ndarray, size: int, dead: Iterable[int] = ()) -> np.ndarray:
    """``int8[N*N]`` owner of each point (0, BLACK, WHITE) under area counting."""
    geo = geometry(size)
    stones, _ = _stones_without(cells, size, dead)
    return region_owners(stones, geo.width, geo.action_point)


@njit(cache=True)
def lead_of(stones, info, W, action_point, komi, territory, dead_black, dead_white):
    """Black's lead on padded ``stones`` (dead stones already removed), komi included.

    ``territory`` selects territory scoring: owned empty points plus prisoners
    (captures in ``info`` and the ``dead_black`` / ``dead_white`` counts).
    """
    owners = region_owners(stones, W, action_point)
    lead = 0.0
    for a in range(action_point.shape[0]):
        owner = owners[a]
        if owner == 0 or (territory and stones[action_point[a]] != EMPTY):
            continue
        lead += 1.0 if owner == BLACK else -1.0
    if territory:
        lead += (info[CAPTURED_WHITE] + dead_white) - (info[CAPTURED_BLACK] + dead_black)
    return lead - komi


def score(cells: np.ndarray, info: np.ndarray, size: int, komi: float, scoring: str,
          dead: Iterable[int] = ()) -> float:
    """Black's lead in points under ``scoring`` ("area" or "territory")."""
    geo = geometry(size)
    stones, removed = _stones_without(cells, size, dead)
    return float(lead_of(stones, info, geo.width, geo.action_point, float(komi), scoring == "territory",
                         int(np.count_nonzero(removed == BLACK)), int(np.count_nonzero(removed == WHITE))))
