"""Compiled uniformly random playouts: the benchmark workload and pure-MCTS rollouts.

A playout picks uniformly among the legal actions (pass included in Go, never
in the other games) until the game ends: two passes or the move cap in Go; k in
a row, a full board or the cap in Gomoku; a player's last orbs taken or the cap
in Chain Reaction. Sampling is exact without building a legal list each move: a
random candidate is drawn from the empty points (every cell in Chain Reaction,
where a player adds to its own) plus pass; an illegal one is set aside for this
move and the draw repeats among the rest. The candidate list is kept
incrementally and rebuilt only after a capture.

The kernels enforce simple ko (as OpenSpiel's Go does); positional superko
needs the game's history and is :class:`engine.core.game.Game`'s job. Renju's
forbidden points are set aside for black like Go's illegal moves.

``record`` (``int64[>= move_cap]``) receives the point of every move played
(``PASS_POINT`` for a pass), so a playout can be replayed or turned into actions.
``rng`` is the caller's generator state (:func:`engine.core.rng.new_rng`): the
same state gives the same playouts.
"""

from __future__ import annotations

import numpy as np

from engine.core.board import CAPTURED_BLACK, CAPTURED_WHITE, LEGAL, PASS_POINT, STONES, TO_PLAY, copy_array
from engine.core.dispatch import CHAIN_REACTION, GAME, GO, check_point, ended_by_play, play_point
from engine.core.go import is_own_eye
from engine.core.jit import njit
from engine.core.rng import rand_below
from engine.core.types import EMPTY

__all__ = ["random_playout", "run_playouts"]


@njit(cache=True)
def _collect_candidates(stones, action_point, every_cell, empties):
    """The points a move may go to into ``empties``: the empty ones, or ``every_cell``; their number."""
    m = 0
    for a in range(action_point.shape[0]):
        p = action_point[a]
        if every_cell or stones[p] == EMPTY:
            empties[m] = p
            m += 1
    return m


# Inlined into the playout loop (numba IR inlining), with the dispatch below it: as calls, they cost a Go
# playout about 6% more instructions.
@njit(cache=True, inline="always")
def _draw_move(cells, info, W, empties, m, color, spec, keep_eyes, rng):
    """A uniformly random legal move for ``color`` among the ``m`` candidate points, and pass (Go,
    unless ``keep_eyes``). Illegal candidates are set aside at the front of ``empties`` for this
    draw; the chosen point leaves the candidates. Returns ``(point, m)``; ``PASS_POINT`` when
    the draw is pass or nothing else is legal."""
    stones = cells[STONES]
    go = spec[GAME] == GO
    can_pass = go and not keep_eyes
    rejected = 0
    while rejected < m or can_pass:
        r = rand_below(rng, m - rejected + (1 if can_pass else 0))
        if r == m - rejected:
            return PASS_POINT, m
        i = rejected + r
        p = empties[i]
        legal = (not (keep_eyes and is_own_eye(stones, W, p, color))
                 and check_point(cells, info, W, p, color, spec) == LEGAL)
        if legal:
            m -= 1
            empties[i] = empties[m]
            return p, m
        empties[i] = empties[rejected]
        empties[rejected] = p
        rejected += 1
    return PASS_POINT, m


@njit(cache=True)
def random_playout(cells, info, zobrist, W, action_point, spec, keep_eyes, rng, empties, record):
    """Play uniformly random legal moves in place until the game ends; return the moves played.

    ``spec`` is the packed rules (``engine.core.dispatch.pack_rules``). With
    ``keep_eyes`` (Go) a player never fills its own one-point eyes and passes
    only when nothing else is left, so living groups live (ownership, scoring
    rollouts). ``rng`` is the generator state (``uint64[1]``, advanced);
    ``empties`` is scratch of ``int64[N*N]``.
    """
    stones = cells[STONES]
    go = spec[GAME] == GO
    every_cell = spec[GAME] == CHAIN_REACTION
    keep_eyes = keep_eyes and go  # one-point eyes are a Go notion
    m = _collect_candidates(stones, action_point, every_cell, empties)
    played = 0
    while not ended_by_play(info, spec):  # a full Gomoku board shows as a pass drawn below
        captured = info[CAPTURED_BLACK] + info[CAPTURED_WHITE]
        color = info[TO_PLAY]
        point, m = _draw_move(cells, info, W, empties, m, color, spec, keep_eyes, rng)
        if point == PASS_POINT and not go:
            break  # a full board, or black is left only renju's forbidden points
        play_point(cells, info, zobrist, W, point, color, spec)
        if every_cell:
            empties[m] = point  # the cell the draw took out stays a candidate (the list stays a permutation)
            m += 1
        elif info[CAPTURED_BLACK] + info[CAPTURED_WHITE] != captured:
            m = _collect_candidates(stones, action_point, False, empties)  # a capture (or suicide) freed points
        if played < record.shape[0]:
            record[played] = point
        played += 1
    return played


@njit(cache=True)
def run_playouts(start_cells, start_info, zobrist, W, action_point, spec, count, rng):
    """Run ``count`` playouts from one position, drawing from ``rng``; return the total number of moves."""
    cells = start_cells.copy()
    info = start_info.copy()
    empties = np.empty(action_point.shape[0], dtype=np.int64)
    record = np.empty(0, dtype=np.int64)
    total = 0
    for _ in range(count):
        copy_array(start_cells.ravel(), cells.ravel())
        copy_array(start_info, info)
        total += random_playout(cells, info, zobrist, W, action_point, spec, False, rng, empties, record)
    return total
