"""Swap decisions from the search's values: proposals aim at an even game, choices take the better side."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Game, Rules, SearchResult
from gtp.swap import SwapChoice, balanced_opening, choose_after_five, choose_after_three

RULES = Rules.gomoku(15)


def _result(value: float, moves: dict[int, float]) -> SearchResult:
    """A search of value ``value`` whose visited moves have the given q (the mover's view), most visited first."""
    visits = np.zeros(RULES.num_actions, np.float32)
    q = np.zeros(RULES.num_actions, np.float32)
    for rank, (action, move_q) in enumerate(moves.items()):
        visits[action], q[action] = 100 - rank, move_q
    return SearchResult(visits=visits, q=q, priors=visits / visits.sum(), value=value, simulations=100,
                        seconds=0.0, pv=list(moves)[:1])


def _game(*actions: int) -> Game:
    game = Game(RULES)
    for action in actions:
        game.play(action)
    return game


def test_the_opening_is_the_most_even_of_the_searched_lines() -> None:
    centre = 7 * 15 + 7
    # after black's centre, white's candidates 0, 1, 2; after each, black's replies and their q (black's view)
    replies = {0: {20: 0.9, 21: 0.6}, 1: {30: 0.5, 31: -0.05}, 2: {40: 0.3}}

    def analyse(game: Game) -> SearchResult:
        moves = [m.action for m in game.moves]
        if moves == [centre]:
            return _result(0.0, {0: 0.0, 1: 0.0, 2: 0.0})
        return _result(0.0, replies[moves[1]])

    assert balanced_opening(_game(), analyse) == (centre, 1, 31)


@pytest.mark.parametrize("value,put_two,expected", [
    (-0.5, True, SwapChoice(swap=True)),
    (0.5, True, SwapChoice()),
    (0.0, False, SwapChoice()),
    (0.0, True, SwapChoice(proposal=(50, 61))),
])
def test_after_three_stones_the_second_player_takes_the_better_side_or_proposes(value: float, put_two: bool,
                                                                               expected: SwapChoice) -> None:

    def analyse(game: Game) -> SearchResult:
        if len(game.moves) == 3:
            return _result(value, {50: value})
        return _result(0.0, {60: 0.7, 61: 0.1, 62: -0.4})

    assert choose_after_three(_game(0, 1, 2), analyse, put_two) == expected


def test_after_five_stones_the_first_player_takes_white_unless_black_stands_better() -> None:
    game = _game(0, 1, 2, 3, 4)
    assert choose_after_five(game, lambda g: _result(-0.1, {5: -0.1})) == SwapChoice(swap=True)
    assert choose_after_five(game, lambda g: _result(0.1, {5: 0.1})) == SwapChoice()
