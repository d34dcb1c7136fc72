"""Exploration settings: c_puct scaled by the spread of a node's backed-up values (SearchConfig.c_puct_stdev_scale)
and first-play urgency from the parent's mean value (SearchConfig.fpu_from_mean)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.types import BLACK
from engine.search.config import SearchConfig
from engine.search.mcts import Search
from engine.search.tree import (
    FIRST_CHILD,
    NET_VALUE,
    NUM_CHILDREN,
    PRIOR,
    STDEV_PRIOR,
    VALUE_SQUARES,
    VALUE_SUM,
    VISITS,
    Tree,
    _best_child,
    exploration_factor,
)

from .test_mcts import Uniform


class BlackPointWorth(Uniform):
    """Uniform priors; a black stone on ``point`` is worth ``value`` to Black, nothing else counts."""

    def __init__(self, point: int, value: float) -> None:
        super().__init__()
        self.point, self.value = point, value

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None):
        evaluation = super().evaluate(positions, legal)
        values = [(self.value if p.board().reshape(-1)[self.point] == BLACK else 0.0) * (1 if p.to_play == BLACK
                                                                                        else -1) for p in positions]
        return evaluation._replace(values=np.float32(values))


def _root_with(values: list[float]) -> Tree:
    tree = Tree(4, 4)
    tree.ints[VISITS, 0] = len(values)
    tree.floats[VALUE_SUM, 0] = sum(values)
    tree.floats[VALUE_SQUARES, 0] = sum(v * v for v in values)
    return tree


def _factor(values: list[float], scale: float) -> float:
    tree = _root_with(values)
    return exploration_factor(tree.ints, tree.floats, np.int64(0), scale)


def test_the_factor_is_one_when_off_or_before_the_values_show_a_spread() -> None:
    assert _factor([0.3, -0.9, 0.8], 0.0) == 1.0
    assert _factor([0.5], 0.85) == 1.0
    assert _factor([], 0.85) == 1.0


def test_agreeing_values_narrow_the_search_and_split_ones_widen_it() -> None:
    agreeing = [_factor([0.2] * n, 0.85) for n in (4, 16, 64, 256)]
    assert all(a > b for a, b in zip(agreeing, agreeing[1:]))  # the prior's spread weighs less with every visit
    assert 1 - 0.85 < agreeing[-1] < 0.3  # towards 1 - scale as the spread vanishes
    split = _factor([1.0, -1.0] * 32, 0.85)
    assert split == pytest.approx(1 + 0.85 * (1.0 / STDEV_PRIOR - 1), abs=0.05)  # a spread of 1 against a prior 0.4


def test_the_search_keeps_to_the_best_move_where_the_values_agree() -> None:
    game = Game(Rules.go(5, "chinese"))
    best = 12
    visits = {}
    for scale in (0.0, 0.85):
        config = SearchConfig(batch_size=1, c_puct_stdev_scale=scale)
        visits[scale] = Search(game, BlackPointWorth(best, 0.2), config, seed=0).run(200).visits[best]
    assert visits[0.85] > visits[0.0] + 20  # values within 0.2 of each other: a small spread, less exploration


def test_the_scale_must_lie_between_zero_and_one() -> None:
    with pytest.raises(ValueError, match="c_puct_stdev_scale"):
        SearchConfig(c_puct_stdev_scale=1.5)


@pytest.mark.parametrize("from_mean,chosen", [(False, 2), (True, 1)])
def test_first_play_urgency_follows_the_parents_mean_only_when_told(from_mean: bool, chosen: int) -> None:
    tree = Tree(4, 4)
    ints, floats = tree.ints, tree.floats
    ints[FIRST_CHILD, 0], ints[NUM_CHILDREN, 0], ints[VISITS, 0] = 1, 2, 4
    floats[NET_VALUE, 0] = 0.2  # the first look: fine for the side to move
    floats[VALUE_SUM, 0] = 4.0  # what the search found: lost (the sum is the opponent's view)
    floats[PRIOR, 1:3] = 0.5
    ints[VISITS, 1] = 3  # child 1 read, Q 0; child 2 unvisited
    # unvisited Q: 0.2 - 0.25 * sqrt(0.5) = 0.02 above child 1's 0, or, the mean weighing 0.5 ** 2,
    # 0.25 * -1 + 0.75 * 0.2 - 0.18 = -0.28 below it
    best = _best_child(ints, floats, np.int64(0), 0.01, 0.25, np.nan, 0.0, 0.0, 1.0, 0.0, 0.0, from_mean)
    assert best == chosen
