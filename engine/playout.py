"""Compiled uniformly random playouts: the benchmark workload and pure-MCTS rollouts.

A playout picks uniformly among the legal actions (pass included in Go, never
in Gomoku) until the game ends: two passes or the move cap in Go; k in a row,
a full board or the cap in Gomoku. Sampling is exact without building a legal
list each move: a random candidate is drawn from the empty points plus pass;
an illegal one is set aside for this move and the draw repeats among the rest.
The empty-point list is kept incrementally and rebuilt only after a capture.

The kernels enforce simple ko (as OpenSpiel's Go does); positional superko
needs the game's history and is :class:`engine.game.Game`'s job. Renju's
forbidden points are set aside for black like Go's illegal moves.

``record`` (``int64[>= move_cap]``) receives the point of every move played
(``PASS_POINT`` for a pass), so a playout can be replayed or turned into actions.
"""

from __future__ import annotations

import numpy as np

from engine.board import LEGAL, MOVES, PASS_POINT, PASSES, STONES, TO_PLAY, WINNER
from engine.go import go_check, go_play
from engine.gomoku import gomoku_check, gomoku_play
from engine.jit import njit
from engine.rules_kernels import GAME, GO, MOVE_CAP, SUICIDE, VARIANT, WIN_LENGTH
from engine.types import EMPTY, WALL

__all__ = ["random_playout", "run_playouts", "go_playout", "is_own_eye", "seed_kernels"]


@njit(cache=True)
def seed_kernels(seed):
    """Seed the random generator that compiled kernels draw from."""
    np.random.seed(seed)


@njit(cache=True)
def _collect_empties(stones, action_point, empties):
    m = 0
    for a in range(action_point.shape[0]):
        p = action_point[a]
        if stones[p] == EMPTY:
            empties[m] = p
            m += 1
    return m


@njit(cache=True)
def is_own_eye(stones, W, p, color):
    """Whether the empty point ``p`` is a one-point eye of ``color`` that a sensible player keeps."""
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
def go_playout(cells, info, zobrist, W, action_point, suicide, move_cap, keep_eyes, empties, record):
    """Random legal Go moves until two passes or the cap; with ``keep_eyes`` a player never fills its
    own one-point eyes (and passes when nothing else is left), so living groups live."""
    stones = cells[STONES]
    m = _collect_empties(stones, action_point, empties)
    played = 0
    while info[PASSES] < 2 and info[MOVES] < move_cap:
        color = info[TO_PLAY]
        rejected = 0
        point = PASS_POINT
        while rejected < m or not keep_eyes:  # keeping eyes: pass only when nothing else is left
            r = np.random.randint(0, m - rejected + (0 if keep_eyes else 1))
            if r == m - rejected:
                break
            i = rejected + r
            p = empties[i]
            if (not (keep_eyes and is_own_eye(stones, W, p, color))
                    and go_check(cells, info, W, p, color, suicide) == LEGAL):
                point = p
                m -= 1
                empties[i] = empties[m]
                break
            empties[i] = empties[rejected]
            empties[rejected] = p
            rejected += 1
        captured = go_play(cells, info, zobrist, W, point, color)
        if captured > 0 or (point != PASS_POINT and stones[point] == EMPTY):
            m = _collect_empties(stones, action_point, empties)
        if played < record.shape[0]:
            record[played] = point
        played += 1
    return played


@njit(cache=True)
def _gomoku_playout(cells, info, zobrist, W, action_point, k, variant, move_cap, empties, record):
    stones = cells[STONES]
    m = _collect_empties(stones, action_point, empties)
    played = 0
    while info[WINNER] == 0 and info[MOVES] < move_cap:
        color = info[TO_PLAY]
        rejected = 0
        point = PASS_POINT
        while rejected < m:  # set aside renju's forbidden points for black, as Go sets aside illegal ones
            i = rejected + np.random.randint(0, m - rejected)
            p = empties[i]
            if gomoku_check(cells, info, W, p, color, k, variant) == LEGAL:
                point = p
                m -= 1
                empties[i] = empties[m]
                break
            empties[i] = empties[rejected]
            empties[rejected] = p
            rejected += 1
        if point == PASS_POINT:
            break  # no legal move: a full board, or black is left only forbidden points
        gomoku_play(cells, info, zobrist, W, point, color, k, variant)
        if played < record.shape[0]:
            record[played] = point
        played += 1
    return played


@njit(cache=True)
def random_playout(cells, info, zobrist, W, action_point, spec, empties, record):
    """Play uniformly random legal moves in place until the game ends; return the moves played.

    ``spec`` is the packed rules (``engine.rules_kernels.pack_rules``);
    ``empties`` is scratch of ``int64[N*N]``.
    """
    if spec[GAME] == GO:
        return go_playout(cells, info, zobrist, W, action_point, spec[SUICIDE] != 0, spec[MOVE_CAP], False,
                          empties, record)
    return _gomoku_playout(cells, info, zobrist, W, action_point, spec[WIN_LENGTH], spec[VARIANT],
                           spec[MOVE_CAP], empties, record)


@njit(cache=True)
def run_playouts(start_cells, start_info, zobrist, W, action_point, spec, count):
    """Run ``count`` playouts from one position; return the total number of moves."""
    cells = start_cells.copy()
    info = start_info.copy()
    empties = np.empty(action_point.shape[0], dtype=np.int64)
    record = np.empty(0, dtype=np.int64)
    total = 0
    for _ in range(count):
        cells[:, :] = start_cells
        info[:] = start_info
        total += random_playout(cells, info, zobrist, W, action_point, spec, empties, record)
    return total
