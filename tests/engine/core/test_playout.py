"""The compiled random playouts play only legal moves, end properly, sample uniformly and draw
from the random state they are given."""

from __future__ import annotations

import numpy as np
import pytest

from bench.playouts import PlayoutBench
from engine.core.board import geometry
from engine.core.dispatch import pack_rules
from engine.core.game import Game
from engine.core.ownership import playout_ownership
from engine.core.playout import random_playout
from engine.core.position import Position
from engine.core.rng import new_rng, rand_below
from engine.core.rules import Rules
from engine.search.evaluator import RolloutEvaluator

ALL_RULES = ["japanese size=5", "japanese size=9", "new-zealand size=7 ko=simple", "freestyle size=9",
             "standard size=7 k=4", "renju size=9"]


def _bench(rules_text: str, seed: int) -> PlayoutBench:
    rules = Rules.parse(rules_text)
    return PlayoutBench(rules, Position(rules), new_rng(seed))


@pytest.mark.parametrize("rules_text", ALL_RULES)
def test_recorded_playouts_replay_through_checked_play(rules_text: str) -> None:
    """The kernels apply simple ko only, so the replay uses rules with simple ko (suicide both ways)."""
    bench = _bench(rules_text, 3)
    for _ in range(10):
        actions = bench.record_game()
        replay = Game(bench.rules)
        for action in actions:
            replay.play(action)  # raises IllegalMoveError if the kernel chose an illegal move
        assert replay.is_over, "a playout stopped before the game ended"


@pytest.mark.parametrize("rules_text", ALL_RULES)
def test_the_same_seed_gives_the_same_playouts_and_another_seed_others(rules_text: str) -> None:
    games = [[_bench(rules_text, seed).record_game() for _ in range(3)] for seed in (5, 5, 6)]
    assert games[0] == games[1]
    assert games[0] != games[2]


def test_generators_of_one_seed_stay_in_step_whatever_another_draws() -> None:
    """Two generators with one seed stay in step however many draws another generator makes between."""
    first, second, other = new_rng(9), new_rng(9), new_rng(10)
    for _ in range(5):
        rand_below(other, 100)
    assert [rand_below(first, 1000) for _ in range(20)] == [rand_below(second, 1000) for _ in range(20)]
    assert not np.array_equal(first, other)


def test_draws_cover_their_range_and_never_leave_it() -> None:
    rng = new_rng(1)
    draws = [int(rand_below(rng, 7)) for _ in range(700)]
    assert set(draws) == set(range(7))


def test_ownership_is_reproducible_by_seed() -> None:
    game = Game(Rules.go(5, "chinese"))
    for vertex in (6, 8, 16, 18):
        game.play(vertex)
    same = playout_ownership(game, 30, seed=4), playout_ownership(game, 30, seed=4)
    np.testing.assert_array_equal(*same)
    assert not np.array_equal(same[0], playout_ownership(game, 30, seed=5))


@pytest.mark.parametrize("rules_text", ["japanese size=5", "renju size=9"])
def test_rollout_values_are_reproducible_by_seed(rules_text: str) -> None:
    rules = Rules.parse(rules_text)
    game = Game(rules)
    positions = [game.position.copy()]
    for action in (12, 6, 18, 8):
        game.play(action)
        positions.append(game.position.copy())
    first, again, other = (RolloutEvaluator(4, seed).evaluate(positions) for seed in (2, 2, 3))
    np.testing.assert_array_equal(first.values, again.values)
    assert not np.array_equal(first.values, other.values)
    assert np.all(np.abs(first.values) <= 1)
    np.testing.assert_array_equal(first.priors > 0, np.stack([p.legal_mask() for p in positions]))


def test_first_move_is_uniform_over_legal_actions() -> None:
    """Chi-square over the 26 legal first moves on 5x5 (25 points and pass)."""
    rules = Rules.go(5, "japanese")
    geo = geometry(5)
    rng = new_rng(11)
    counts = np.zeros(26)
    empties = np.empty(25, dtype=np.int64)
    record = np.empty(1, dtype=np.int64)
    for _ in range(5200):
        position = Position(rules)
        random_playout(position.cells, position.info, geo.zobrist, geo.width, geo.action_point,
                       pack_rules(Rules.parse("japanese size=5 cap=1")), False, rng, empties, record)
        point = int(record[0])
        counts[25 if point == 0 else geo.point_action[point]] += 1
    expected = counts.sum() / 26
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 52.6, f"chi-square {chi2:.1f} with 25 degrees of freedom (p < 0.001)"
