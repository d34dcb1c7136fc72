"""The rules core as compiled code sees it: one kernel per question, for either game.

The search tree's kernels replay moves, list legal moves and score finished
games without returning to Python, so they need Go and Gomoku behind one
call. ``spec`` is the rules packed as ``int64[SPEC_LEN]`` (see
:func:`pack_rules`); komi travels separately as a float.
"""

from __future__ import annotations

import numpy as np

from engine.core.board import MOVES, PASSES, STONES, TO_PLAY, WINNER
from engine.core.go import go_legal_mask, go_play
from engine.core.gomoku import VARIANT_CODES, gomoku_legal_mask, gomoku_play
from engine.core.jit import njit
from engine.core.rules import Rules
from engine.core.scoring import lead_of
from engine.core.types import BLACK, EMPTY

__all__ = ["SPEC_LEN", "pack_rules", "play_point", "fill_legal_mask", "is_terminal", "terminal_value"]

GAME, SUICIDE, WIN_LENGTH, VARIANT, MOVE_CAP, TERRITORY = 0, 1, 2, 3, 4, 5
SPEC_LEN = 6
GO, GOMOKU = 0, 1


def pack_rules(rules: Rules) -> np.ndarray:
    """``int64[SPEC_LEN]`` describing ``rules`` for the compiled kernels."""
    variant = VARIANT_CODES[rules.variant]
    spec = np.zeros(SPEC_LEN, dtype=np.int64)
    spec[GAME] = GO if rules.game == "go" else GOMOKU
    spec[SUICIDE] = int(rules.suicide)
    spec[WIN_LENGTH] = rules.win_length
    spec[VARIANT] = variant
    spec[MOVE_CAP] = rules.move_cap
    spec[TERRITORY] = int(rules.scoring == "territory")
    return spec


@njit(cache=True)
def play_point(cells, info, zobrist, W, point, spec):
    """The side to move plays ``point`` (``PASS_POINT`` passes); the caller vouches it is legal."""
    color = info[TO_PLAY]
    if spec[GAME] == GO:
        go_play(cells, info, zobrist, W, point, color)
    else:
        gomoku_play(cells, info, zobrist, W, point, color, spec[WIN_LENGTH], spec[VARIANT])


@njit(cache=True)
def is_terminal(cells, info, spec):
    if info[MOVES] >= spec[MOVE_CAP]:
        return True
    if spec[GAME] == GO:
        return info[PASSES] >= 2
    if info[WINNER] != 0:
        return True
    stones = cells[STONES]
    for p in range(stones.shape[0]):
        if stones[p] == EMPTY:
            return False
    return True


@njit(cache=True)
def fill_legal_mask(cells, info, W, action_point, spec, mask):
    """Legal actions of the side to move (simple ko) into ``mask[A]``; all False at the end."""
    if is_terminal(cells, info, spec):
        mask[:] = False
        return
    color = info[TO_PLAY]
    if spec[GAME] == GO:
        go_legal_mask(cells, info, W, action_point, color, spec[SUICIDE] != 0, mask)
    else:
        gomoku_legal_mask(cells, info, W, action_point, color, spec[WIN_LENGTH], spec[VARIANT], mask)


@njit(cache=True)
def terminal_value(cells, info, W, action_point, spec, komi):
    """Exact value of a finished game for the side to move: +1 win, -1 loss, 0 draw."""
    if spec[GAME] == GO:
        lead = lead_of(cells[STONES], info, W, action_point, komi, spec[TERRITORY] != 0, 0, 0)
        if lead == 0.0:
            return 0.0
        black_wins = lead > 0.0
        return 1.0 if black_wins == (info[TO_PLAY] == BLACK) else -1.0
    if info[WINNER] == 0:
        return 0.0
    return 1.0 if info[WINNER] == info[TO_PLAY] else -1.0
