"""Gomoku's threat guard: the root moves a search may choose, read by threat search before it starts.

A network and 800 visits see a five, a four and a victory by continuous fours (the evaluator's decisive
moves), but not a victory by continuous threats: a line of threes and fours, each forcing an answer,
that wins many moves later. A classical alpha-beta player finds such lines in positions that a network
reads as level, and a search on its priors walks into them. :func:`guarded_moves` reads them with
:func:`engine.core.threats.vct`, which proves what it finds:

* the side to move has one: only its first move is searched (a proof of a win);
* the opponent would have one were it to move: of the moves the network considers most likely
  (:data:`CANDIDATES`) and the threat's own first move (taking the opponent's key point, which a
  network often misses), only those after which the opponent has none are searched; where none of
  those stops it the search goes on as usual, the game being lost to best play anyway.

What it costs: two threat searches a move, and one for each candidate in a threatened position
(``experiments/gomoku15/tactics.py --time`` times it). Under a :class:`Deadline` the searches for a victory
read no more threats than the time left allows (:data:`SECONDS_PER_THREAT`), the defences stop being read
once it passes (each read bounded by its threat budget: tenths of a second at most on a loaded machine),
and what was proved by then stands.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from engine.core.board import STONES, TO_PLAY, Geometry, geometry
from engine.core.dispatch import VARIANT, WIN_LENGTH, pack_rules
from engine.core.game import Game
from engine.core.threats import vct, winning_points
from engine.core.types import opponent
from engine.search.deadline import Deadline
from engine.search.evaluator import Evaluator

__all__ = ["VCT_DEPTH", "VCT_BUDGET", "CANDIDATES", "SECONDS_PER_THREAT", "victory_point", "defences", "guarded_moves"]

VCT_DEPTH = 8
"""Threats in a row that the guard reads (a defender's four answered counts as one)."""
VCT_BUDGET = 1000
"""Threats read in all by one threat search (tens of milliseconds on 15x15)."""
CANDIDATES = 24
"""The network's most likely moves checked for a defence in a threatened position."""
SECONDS_PER_THREAT = 2e-4
"""A bound on the time one threat read takes on a loaded machine (on the positions of ``engine bench threats``
beside six busy processes on two cores, reads of 200 threats or more took at most 1.1e-4 s a threat, and a
read of 1,000 threats at most 0.11 s): under a deadline a search for a victory reads no more threats than the
time left allows."""


def _vct(board: np.ndarray, geo: Geometry, spec: np.ndarray, color: int, depth: int, budget: int) -> int:
    """The point (not action) that starts a victory by threats of ``color``'s on ``board``, else -1."""
    return int(vct(board.copy(), geo.width, geo.action_point, color, spec[WIN_LENGTH], spec[VARIANT], depth, budget))


def victory_point(game: Game, color: int, *, depth: int = VCT_DEPTH, budget: int = VCT_BUDGET,
                  deadline: Deadline | None = None) -> int:
    """The action that starts a victory by continuous threats of ``color``'s in a Gomoku ``game``, as if
    ``color`` were to move, else -1 (always in Go, and in a game that is over); reading no more threats
    than the time before ``deadline`` allows."""
    if game.rules.game != "gomoku" or game.is_over:
        return -1
    if deadline is not None:
        budget = min(budget, int(deadline.remaining() / SECONDS_PER_THREAT))
    geo = geometry(game.rules.size)
    point = _vct(game.position.cells[STONES], geo, pack_rules(game.rules), color, depth, budget)
    return int(geo.point_action[point]) if point >= 0 else -1


def _out_of_time(deadline: Deadline | None) -> bool:
    return deadline is not None and deadline.passed


def defences(game: Game, actions: Iterable[int] | None = None, *, depth: int = VCT_DEPTH,
             budget: int = VCT_BUDGET, deadline: Deadline | None = None) -> list[int]:
    """Of ``actions`` (default: every legal move), the moves of the side to move after which the opponent
    has no victory by threats. A four of ours only delays: the opponent stops it, and what counts is whether
    its threat is still there (a four that also blocks, or whose stop does, is a defence). Once ``deadline``
    passes the remaining actions are not read: the defences among those read so far (each read has its whole
    ``budget``, as a read cut short would call a move a defence for want of time)."""
    geo, spec = geometry(game.rules.size), pack_rules(game.rules)
    stones = game.position.cells[STONES]
    mover = int(game.position.info[TO_PLAY])
    if actions is None:
        actions = np.flatnonzero(game.legal_mask()[:-1])
    fives = np.empty(2, np.int64)
    found = []
    for action in actions:
        if _out_of_time(deadline):
            break
        board = stones.copy()
        board[geo.action_point[action]] = mover
        if winning_points(board, geo.width, geo.action_point, mover, spec[WIN_LENGTH], spec[VARIANT], fives) == 1:
            board[fives[0]] = opponent(mover)
        if _vct(board, geo, spec, opponent(mover), depth, budget) < 0:
            found.append(int(action))
    return found


def guarded_moves(game: Game, evaluator: Evaluator, *, depth: int = VCT_DEPTH, budget: int = VCT_BUDGET,
                  deadline: Deadline | None = None) -> np.ndarray | None:
    """``bool[N*N+1]``: the root moves to search in a Gomoku ``game``, or None for every legal one (no
    victory by threats is in sight, the game is Go or over, nothing found stops the opponent's, or
    ``deadline`` passed before anything was proved)."""
    if game.rules.game != "gomoku" or game.is_over or _out_of_time(deadline):
        return None
    mover = int(game.position.info[TO_PLAY])
    allowed = np.zeros(game.rules.num_actions, dtype=bool)
    win = victory_point(game, mover, depth=depth, budget=budget, deadline=deadline)
    if win >= 0:
        allowed[win] = True
        return allowed
    if _out_of_time(deadline):
        return None
    threat = victory_point(game, opponent(mover), depth=depth, budget=budget, deadline=deadline)
    if threat < 0:
        return None
    legal = game.legal_mask()
    priors = evaluator.evaluate([game.position], legal[None]).priors[0][:-1] * legal[:-1]
    ranked = np.argsort(-priors, kind="stable")[:CANDIDATES]
    first = [threat] if legal[threat] else []   # renju may forbid black the key point
    allowed[defences(game, first + [int(a) for a in ranked if a != threat and priors[a] > 0],
                     depth=depth, budget=budget, deadline=deadline)] = True
    return allowed if allowed.any() else None
