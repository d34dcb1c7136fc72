"""Swap openings (swap1, swap2): which stones to propose, and which colour to take, by the search's values.

In swap1 the first player places three stones (black, white, black) and the
second player either takes black (``SWAP``) or plays white's fourth stone. In
swap2 the second player may instead place two more stones (white, black) and
hand the choice of colour back; the first player then takes black (``SWAP``)
or plays white's sixth stone. Either way ``SWAP`` takes the colour that moved
last, and a move takes the side to move.

Each decision reads the search's value of a position for the side to move
(in [-1, 1]): a proposal aims at a value near 0, so that the opponent's choice
gains nothing; a choice takes the side the value favours. ``analyse(game)`` is
the front end's search of a position (a budgeted :meth:`Player.analyse`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import Game, SearchResult

__all__ = ["SwapChoice", "balanced_opening", "choose_after_three", "choose_after_five", "BALANCED"]

Analyse = Callable[[Game], SearchResult]

BALANCED = 0.2
"""A value within this of 0 is even enough to hand the choice of colour to the opponent (60:40 at most)."""
CANDIDATES = 3
"""Moves of each search tried as a proposal's stones."""


@dataclass(frozen=True)
class SwapChoice:
    """A swap decision: ``swap`` (take the colour that moved last), or swap2's ``proposal`` of a white and a
    black stone, or neither: take the side to move and play its move (the player chooses it)."""

    swap: bool = False
    proposal: tuple[int, ...] = ()


def _visited(result: SearchResult, count: int) -> list[int]:
    """The ``count`` most visited moves of a search (points only)."""
    visits = result.visits[:-1]
    order = np.argsort(-visits, kind="stable")
    return [int(a) for a in order[:count] if visits[a] > 0]


def _most_even_reply(game: Game, analyse: Analyse) -> tuple[int, float]:
    """The side to move's visited move that leaves the position most even, and its value for the opponent."""
    result = analyse(game)
    moves = _visited(result, CANDIDATES) or [result.best_action]
    values = {a: -float(result.q[a]) for a in moves}   # q: the mover's view; after the move the opponent moves
    best = min(moves, key=lambda a: abs(values[a]))
    return best, values[best]


def balanced_opening(game: Game, analyse: Analyse) -> tuple[int, int, int]:
    """Three stones for an empty board (black, white, black) whose position the search values as even for
    white to move: black at the centre, white among the search's replies, black the most even answer."""
    size = game.rules.size
    centre = (size // 2) * size + size // 2
    after_one = game.copy()
    after_one.play(centre)
    proposals = []
    for white in _visited(analyse(after_one), CANDIDATES):
        after_two = after_one.copy()
        after_two.play(white)
        black, value = _most_even_reply(after_two, analyse)
        proposals.append((abs(value), white, black))
    _, white, black = min(proposals)
    return centre, white, black


def choose_after_three(game: Game, analyse: Analyse, put_two: bool) -> SwapChoice:
    """The second player's choice after the first three stones (white to move): black where black stands
    better, white's move where white does, and under swap2 (``put_two``) two more stones where it is even."""
    result = analyse(game)
    if result.value < -BALANCED:
        return SwapChoice(swap=True)
    if result.value > BALANCED or not put_two:
        return SwapChoice()
    white = result.best_action
    after = game.copy()
    after.play(white)
    black, _ = _most_even_reply(after, analyse)
    return SwapChoice(proposal=(white, black))


def choose_after_five(game: Game, analyse: Analyse) -> SwapChoice:
    """The first player's choice after swap2's two extra stones (white to move): white's move where white
    stands at least even, else black."""
    return SwapChoice(swap=analyse(game).value < 0)
