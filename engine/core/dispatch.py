"""The one dispatch between the games (Go, Gomoku, Chain Reaction): every rules question, for any game, in
one kernel.

``Position`` (from Python), the search tree's kernels and the random playouts
all ask here whether a move is legal, play it, list the legal moves, ask
whether the game is over and who won; nothing else branches on the game.
``spec`` is the rules packed as ``SPEC_LEN`` integers (see :func:`pack_rules`);
komi travels separately as a float. Points are padded board indices
(``engine.core.board``); ``PASS_POINT`` is pass.

The kernels a playout calls once or more per move (``check_point``,
``play_point``, ``ended_by_play``, and the games' checks below them) are
inlined into their callers (``inline="always"``, numba IR inlining): as plain
calls, passing the arrays cost a Go playout about 8% more instructions.

Each game's rules compile only where that game is played. The packed rules'
integer type names the game (:data:`SPEC_DTYPES`), so numba compiles a kernel
that takes ``spec`` once per game, and the questions whose answer differs by
game (:func:`_by_game`) choose that game's implementation while numba types the
kernel: a Go search never compiles Gomoku's renju reader or Chain Reaction's
explosions. A branch on ``spec[GAME]`` in a kernel would compile every game's
branch, whichever the game.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.extending import overload

from engine.core.board import (
    GAME_OVER,
    HISTORY,
    LEGAL,
    MOVES,
    NO_PASS,
    PASS_POINT,
    PASSES,
    RING,
    STONES,
    TO_PLAY,
    WINNER,
    copy_array,
    put_stone,
)
from engine.core.chain_reaction import (
    chain_reaction_check,
    chain_reaction_legal_mask,
    chain_reaction_play,
    chain_reaction_set,
)
from engine.core.go import go_check, go_drop_own_eyes, go_legal_mask, go_place_setup, go_play
from engine.core.gomoku import VARIANT_CODES, gomoku_check, gomoku_legal_mask, gomoku_play, gomoku_winning_point
from engine.core.jit import njit
from engine.core.rules import Rules
from engine.core.scoring import lead_of
from engine.core.threats import vcf
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["SPEC_LEN", "SPEC_DTYPES", "GAME", "SUICIDE", "WIN_LENGTH", "VARIANT", "MOVE_CAP", "TERRITORY", "GO",
           "GOMOKU", "CHAIN_REACTION", "pack_rules", "check_point", "check_move", "play_point", "place_point",
           "fill_legal_mask", "ended_by_play", "is_terminal", "game_result", "terminal_value", "winning_point",
           "vcf_point", "drop_own_eyes"]

GAME, SUICIDE, WIN_LENGTH, VARIANT, MOVE_CAP, TERRITORY = 0, 1, 2, 3, 4, 5
SPEC_LEN = 6
GO, GOMOKU, CHAIN_REACTION = 0, 1, 2
_GAME_CODES = {"go": GO, "gomoku": GOMOKU, "chain-reaction": CHAIN_REACTION}
SPEC_DTYPES = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint32))
"""The packed rules' integer type of each game (indexed by its code): the game in the kernels' types."""
_GAME_OF_DTYPE = {dtype.name: game for game, dtype in enumerate(SPEC_DTYPES)}


def pack_rules(rules: Rules) -> np.ndarray:
    """``SPEC_LEN`` integers describing ``rules`` for the compiled kernels (a fresh array each call), of the
    game's type in :data:`SPEC_DTYPES`."""
    game = _GAME_CODES[rules.game]
    spec = np.zeros(SPEC_LEN, dtype=SPEC_DTYPES[game])
    spec[GAME] = game
    spec[SUICIDE] = int(rules.suicide)
    spec[WIN_LENGTH] = rules.win_length
    spec[VARIANT] = VARIANT_CODES[rules.variant]
    spec[MOVE_CAP] = rules.move_cap
    spec[TERRITORY] = int(rules.scoring == "territory")
    return spec


def _by_game(go: Callable[..., Any], gomoku: Callable[..., Any], chain_reaction: Callable[..., Any],
             inline: str = "never") -> Callable[..., Any]:
    """One rules question with one implementation a game (plain functions with the same parameters, one of
    them ``spec``): a kernel that asks it compiles only its game's, chosen by ``spec``'s type; Python (and
    ``NUMBA_DISABLE_JIT=1``) asks by ``spec[GAME]``."""
    implementations = (go, gomoku, chain_reaction)
    signature = inspect.signature(go)
    spec_at = list(signature.parameters).index("spec")

    def question(*args: Any) -> Any:
        return implementations[int(args[spec_at][GAME])](*args)

    def choose(*args: Any) -> Callable[..., Any]:
        return implementations[_GAME_OF_DTYPE[args[spec_at].dtype.name]]

    choose.__signature__ = signature  # numba matches the chosen implementation's parameters to it
    if not numba.config.DISABLE_JIT:
        overload(question, inline=inline)(choose)
    question.__doc__ = go.__doc__
    return question


def _go_check(cells, info, W, point, color, spec):
    """Verdict for ``color`` playing ``point`` under simple ko: ``LEGAL`` or the reason it is not.

    Pass is legal in Go and ``NO_PASS`` in the other games. Whether the game is over is
    :func:`is_terminal`'s question, not this one's.
    """
    if point == PASS_POINT:
        return LEGAL
    return go_check(cells, info, W, point, color, spec[SUICIDE] != 0)


def _gomoku_check(cells, info, W, point, color, spec):
    if point == PASS_POINT:
        return NO_PASS
    return gomoku_check(cells, info, W, point, color, spec[WIN_LENGTH], spec[VARIANT])


def _chain_reaction_check(cells, info, W, point, color, spec):
    if point == PASS_POINT:
        return NO_PASS
    return chain_reaction_check(cells, point, color)


check_point = _by_game(_go_check, _gomoku_check, _chain_reaction_check, inline="always")


def _go_play(cells, info, zobrist, W, point, color, spec):
    """``color`` plays ``point`` (``PASS_POINT`` passes in Go); the caller vouches it is legal."""
    go_play(cells, info, zobrist, W, point, color)


def _gomoku_play(cells, info, zobrist, W, point, color, spec):
    gomoku_play(cells, info, zobrist, W, point, color, spec[WIN_LENGTH], spec[VARIANT])


def _chain_reaction_play(cells, info, zobrist, W, point, color, spec):
    chain_reaction_play(cells, info, zobrist, W, point, color)


play_point = _by_game(_go_play, _gomoku_play, _chain_reaction_play, inline="always")


def _go_place(cells, info, zobrist, W, point, color, spec):
    """Put a setup stone (handicap, SGF AB / AW; one orb in Chain Reaction) on an empty point: no capture,
    no move counted."""
    go_place_setup(cells, info, zobrist, W, point, color)


def _gomoku_place(cells, info, zobrist, W, point, color, spec):
    put_stone(cells, info, zobrist, point, color)
    copy_array(cells[STONES], cells[HISTORY + info[RING]])  # the current board is the ring's newest entry


def _chain_reaction_place(cells, info, zobrist, W, point, color, spec):
    chain_reaction_set(cells, info, zobrist, point, color, 1)
    copy_array(cells[STONES], cells[HISTORY + info[RING]])


place_point = _by_game(_go_place, _gomoku_place, _chain_reaction_place)


def _go_legal(cells, info, W, action_point, color, spec, mask):
    go_legal_mask(cells, info, W, action_point, color, spec[SUICIDE] != 0, mask)


def _gomoku_legal(cells, info, W, action_point, color, spec, mask):
    gomoku_legal_mask(cells, info, W, action_point, color, spec[WIN_LENGTH], spec[VARIANT], mask)


def _chain_reaction_legal(cells, info, W, action_point, color, spec, mask):
    chain_reaction_legal_mask(cells, action_point, color, mask)


_fill_legal = _by_game(_go_legal, _gomoku_legal, _chain_reaction_legal)


@njit(cache=True)
def fill_legal_mask(cells, info, W, action_point, color, spec, mask):
    """Legal actions of ``color`` (simple ko, pass last) into ``mask[A]``; all False once the game is over."""
    if is_terminal(cells, info, spec):
        mask[:] = False
        return
    _fill_legal(cells, info, W, action_point, color, spec, mask)


def _go_drop_eyes(cells, info, W, action_point, color, spec, mask):
    """Clear from ``mask[A]`` the moves that fill one of ``color``'s own one-point eyes (Go; the other games have
    no eyes): no sound move does, short of rare seki and capturing-race shapes, so a search that never tries
    them spends its visits elsewhere and never fills the eyes of a living group at the end of a game."""
    go_drop_own_eyes(cells, W, action_point, color, mask)


def _keep_every_move(cells, info, W, action_point, color, spec, mask):
    pass


drop_own_eyes = _by_game(_go_drop_eyes, _keep_every_move, _keep_every_move)


@njit(cache=True, inline="always")
def ended_by_play(info, spec):
    """Whether the moves ended the game: the move cap, two passes (Go), a winning line (Gomoku) or a
    player's last orbs taken (Chain Reaction).

    The O(1) part of :func:`is_terminal`, for loops that see a full Gomoku board themselves.
    """
    if info[MOVES] >= spec[MOVE_CAP]:
        return True
    if spec[GAME] == GO:
        return info[PASSES] >= 2
    return info[WINNER] != 0


@njit(cache=True)
def is_terminal(cells, info, spec):
    """Whether the game is over: :func:`ended_by_play`, or a full board in Gomoku."""
    if ended_by_play(info, spec):
        return True
    if spec[GAME] != GOMOKU:
        return False
    stones = cells[STONES]
    for p in range(stones.shape[0]):
        if stones[p] == EMPTY:
            return False
    return True


@njit(cache=True)
def check_move(cells, info, W, point, color, spec):
    """:func:`check_point`'s verdict while the game goes on, ``GAME_OVER`` once it is over: a whole
    move check in one call (``Position.check``)."""
    if is_terminal(cells, info, spec):
        return GAME_OVER
    return check_point(cells, info, W, point, color, spec)


def _go_result(cells, info, W, action_point, spec, komi):
    """``(winner, lead)`` of a finished game: winner BLACK, WHITE or 0 for a draw.

    Go counts every stone on the board alive: ``lead`` is black's score minus
    white's, komi included. Gomoku's winner made a line (none on a full board or
    at the cap), Chain Reaction's took the other's last orbs (none at the cap);
    their ``lead`` is 0.
    """
    lead = lead_of(cells[STONES], info, W, action_point, komi, spec[TERRITORY] != 0, 0, 0)
    winner = 0 if lead == 0.0 else (BLACK if lead > 0.0 else WHITE)
    return winner, lead


def _winner_result(cells, info, W, action_point, spec, komi):
    return info[WINNER], 0.0


game_result = _by_game(_go_result, _winner_result, _winner_result)


@njit(cache=True)
def terminal_value(cells, info, W, action_point, spec, komi):
    """Exact value of a finished game for the side to move: +1 win, -1 loss, 0 draw."""
    winner, _ = game_result(cells, info, W, action_point, spec, komi)
    if winner == 0:
        return 0.0
    return 1.0 if winner == info[TO_PLAY] else -1.0


def _no_winning_point(cells, info, W, action_point, spec, color):
    """A point where ``color`` would win at once if it were to move (Gomoku: a winning line), else -1
    (always outside Gomoku, where this is no single point's question)."""
    return -1


def _gomoku_winning_point(cells, info, W, action_point, spec, color):
    if is_terminal(cells, info, spec):
        return -1
    return gomoku_winning_point(cells, info, W, action_point, color, spec[WIN_LENGTH], spec[VARIANT])


winning_point = _by_game(_no_winning_point, _gomoku_winning_point, _no_winning_point)


def _no_vcf(cells, info, W, action_point, spec, color, depth, budget):
    """The first move of a victory by continuous fours for ``color``, the side to move, within ``depth``
    fours and ``budget`` fours read (:func:`engine.core.threats.vcf`), else -1 (always outside Gomoku)."""
    return -1


def _gomoku_vcf(cells, info, W, action_point, spec, color, depth, budget):
    if is_terminal(cells, info, spec):
        return -1
    return vcf(cells[STONES].copy(), W, action_point, color, spec[WIN_LENGTH], spec[VARIANT], depth, budget)


vcf_point = _by_game(_no_vcf, _gomoku_vcf, _no_vcf)
