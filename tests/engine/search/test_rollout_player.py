"""The network-free player: MCTS with random playouts, decisive moves and near priors
(``RolloutEvaluator(decisive=True, near=True)`` under ``SearchConfig.for_rollouts()``), as ``engine gtp``
plays a game no network ships for."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.coords import action_to_gtp, gtp_to_action
from engine.core.game import Game
from engine.core.rules import Rules
from engine.search.config import PlayerConfig, SearchConfig
from engine.search.evaluator import RolloutEvaluator
from engine.search.player import Player
from tests.support.games import play_stones

GOMOKU = Rules.gomoku(15, 5, "freestyle")


def _move(game: Game, seed: int, visits: int = 400) -> str:
    config = PlayerConfig(visits=visits, resign_threshold=None, search=SearchConfig().for_rollouts())
    player = Player(RolloutEvaluator(seed=seed, decisive=True, near=True), config, seed=seed)
    action = player.choose(game).action
    assert action is not None
    return action_to_gtp(action, game.rules.size)


# Black to move has four on row 8 (E8-H8), closed by white's D8: only J8 makes five.
WIN_IN_ONE = (["E8", "F8", "G8", "H8", "C3"], ["D8", "E10", "F11", "G12", "K3"])
# White has four on row 5 (F5-J5), closed by black's E5: black to move must take K5.
FOUR_TO_STOP = (["E5", "H10", "C13", "M12"], ["F5", "G5", "H5", "J5"])


@pytest.mark.parametrize("seed", range(3))
def test_takes_a_five_in_one(seed: int) -> None:
    assert _move(play_stones(GOMOKU, *WIN_IN_ONE), seed) == "J8"


@pytest.mark.parametrize("seed", range(3))
def test_stops_a_four(seed: int) -> None:
    assert _move(play_stones(GOMOKU, *FOUR_TO_STOP), seed) == "K5"


def test_decisive_leaves_are_exact_and_the_rest_random() -> None:
    win, stop = play_stones(GOMOKU, *WIN_IN_ONE), play_stones(GOMOKU, *FOUR_TO_STOP)
    quiet = play_stones(GOMOKU, ["H8"], ["J9"])
    result = RolloutEvaluator(seed=1, decisive=True).evaluate([win.position, stop.position, quiet.position])
    assert result.values[0] == 1.0
    np.testing.assert_array_equal(np.flatnonzero(result.priors[0]), [gtp_to_action("J8", 15)])
    np.testing.assert_array_equal(np.flatnonzero(result.priors[1]), [gtp_to_action("K5", 15)])
    assert result.values[1] in (-1.0, 0.0, 1.0)  # one random playout
    np.testing.assert_array_equal(result.priors[2] > 0, quiet.legal_mask())


def test_a_stopping_point_renju_forbids_black_gets_no_hint() -> None:
    """White threatens five at H8 (H13 is black's), where black would make an overline (E8-G8 and J8-K8)."""
    rules = Rules.gomoku(15, 5, "renju")
    game = play_stones(rules, ["E8", "F8", "G8", "J8", "K8", "H13"], ["H12", "H11", "H10", "H9", "A1", "B1"])
    assert not game.legal_mask()[gtp_to_action("H8", 15)]
    result = RolloutEvaluator(seed=1, decisive=True).evaluate([game.position])
    np.testing.assert_array_equal(result.priors[0] > 0, game.legal_mask())


def test_go_is_unchanged_by_decisive_moves() -> None:
    game = play_stones(Rules.go(9), ["E5", "C3"], ["D4"])
    plain, decisive = (RolloutEvaluator(4, seed=5, decisive=flag).evaluate([game.position]) for flag in (False, True))
    np.testing.assert_array_equal(plain.values, decisive.values)
    np.testing.assert_array_equal(plain.priors, decisive.priors)
