"""The root move by the lower confidence bound of its value (SearchConfig.lcb_stdevs, engine.search.lcb)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.game import Game
from engine.core.rules import Rules
from engine.search.config import SearchConfig
from engine.search.mcts import Search, SearchResult
from engine.search.tree import (
    ACTION,
    PROVEN,
    PROVEN_LOSS,
    PROVEN_WIN,
    STDEV_PRIOR,
    UNPROVEN,
    VALUE_SQUARES,
    VALUE_SUM,
    VISITS,
)

from .test_mcts import FixedPriors, Uniform

# Root children as (visits, mean value, spread of the values), from the root's side to move.
SPLIT_LEADER = (100, 0.1, 0.9)  # most visited, but its values still split
STEADY_RUNNER_UP = (60, 0.3, 0.05)  # fewer visits, surely better
GLANCED = (10, 0.9, 0.0)  # looks best, but read too little: 10% of the leader's visits
LEADER, RUNNER_UP, OTHER = 6, 12, 18


def _result(config: SearchConfig, children: dict[int, tuple[int, float, float]],
            proven: dict[int, int] | None = None) -> SearchResult:
    """The result of a 5x5 search whose root children by action have the statistics ``children`` (the others
    unvisited) and the proofs ``proven``."""
    search = Search(Game(Rules.go(5, "chinese")), Uniform(), config)
    search.run(1)  # the root expanded, no child visited
    return _result_on(search, children, proven)


def _result_on(search: Search, children: dict[int, tuple[int, float, float]],
               proven: dict[int, int] | None = None) -> SearchResult:
    tree, first = search.tree, search.tree.children().start
    for action, (visits, mean, spread) in children.items():
        node = first + int(np.flatnonzero(tree.ints[ACTION, tree.children()] == action)[0])
        tree.ints[VISITS, node] = visits
        tree.floats[VALUE_SUM, node] = visits * mean
        tree.floats[VALUE_SQUARES, node] = visits * (spread ** 2 + mean ** 2)
        tree.ints[PROVEN, node] = (proven or {}).get(action, UNPROVEN)
    tree.ints[VISITS, 0] = 1 + sum(visits for visits, _, _ in children.values())
    return search.result()


def test_a_well_read_runner_up_with_a_better_lower_bound_is_played() -> None:
    children = {LEADER: SPLIT_LEADER, RUNNER_UP: STEADY_RUNNER_UP}
    on = _result(SearchConfig(lcb_stdevs=5.0), children)
    assert (on.lcb_action, on.best_action) == (RUNNER_UP, RUNNER_UP)
    off = _result(SearchConfig(lcb_stdevs=0.0), children)
    assert (off.lcb_action, off.best_action) == (None, LEADER)


def test_the_most_visited_move_stays_where_its_bound_is_the_best() -> None:
    steady_leader = (100, 0.3, 0.05)
    result = _result(SearchConfig(lcb_stdevs=5.0), {LEADER: steady_leader, RUNNER_UP: (60, 0.3, 0.9)})
    assert result.best_action == LEADER


@pytest.mark.parametrize("stdevs", [0.5, 2.0, 5.0])
def test_a_move_below_the_visit_share_is_never_played(stdevs: float) -> None:
    children = {LEADER: SPLIT_LEADER, RUNNER_UP: STEADY_RUNNER_UP, OTHER: GLANCED}
    assert _result(SearchConfig(lcb_stdevs=stdevs, lcb_min_visit_share=0.15), children).best_action == RUNNER_UP
    # the share alone keeps it out: admitted, its bound is the best
    assert _result(SearchConfig(lcb_stdevs=stdevs, lcb_min_visit_share=0.05), children).best_action == OTHER


def test_off_plays_the_most_visited_move_of_a_real_search() -> None:
    game = Game(Rules.go(5, "chinese"))
    off = Search(game, FixedPriors(RUNNER_UP, 0.5), SearchConfig(batch_size=4, lcb_stdevs=0.0), seed=1).run(120)
    assert off.lcb_action is None
    assert off.searched_action == int(np.argmax(off.visits)) == RUNNER_UP
    only_the_most_visited = SearchConfig(batch_size=4, lcb_stdevs=5.0, lcb_min_visit_share=1.0)
    on = Search(game, FixedPriors(RUNNER_UP, 0.5), only_the_most_visited, seed=1).run(120)
    assert on.lcb_action == on.searched_action == RUNNER_UP


def test_the_spread_of_each_root_move_is_that_of_its_values() -> None:
    search = Search(Game(Rules.go(5, "chinese")), Uniform(), SearchConfig())
    search.run(1)
    _result_on(search, {LEADER: (400, 0.1, 0.9), RUNNER_UP: (2, 0.5, 0.0)})
    stdevs = search.tree.root_value_stdevs(search.rules.num_actions)
    assert stdevs[LEADER] == pytest.approx(0.9, abs=0.01)  # many visits: the values' own spread
    assert stdevs[RUNNER_UP] == pytest.approx(STDEV_PRIOR, abs=0.05)  # two agreeing values: mostly the prior's
    assert stdevs[OTHER] == 0.0  # unvisited


def test_proven_wins_and_losses_come_before_the_bound() -> None:
    children = {LEADER: SPLIT_LEADER, RUNNER_UP: STEADY_RUNNER_UP, OTHER: (3, 1.0, 0.0)}
    config = SearchConfig(lcb_stdevs=5.0)
    won = _result(config, children, {OTHER: PROVEN_WIN})
    assert (won.lcb_action, won.best_action) == (RUNNER_UP, OTHER)
    lost = _result(config, children, {RUNNER_UP: PROVEN_LOSS})
    assert (lost.lcb_action, lost.best_action) == (RUNNER_UP, LEADER)


def test_a_gumbel_search_plays_its_own_choice() -> None:
    config = SearchConfig(batch_size=1, gumbel_considered=4, lcb_stdevs=5.0)
    result = Search(Game(Rules.go(5, "chinese")), Uniform(), config, seed=3).run(40)
    assert result.lcb_action is None and result.gumbel_action is not None
    assert result.searched_action == result.gumbel_action


@pytest.mark.parametrize("settings,message", [({"lcb_stdevs": -1.0}, "lcb_stdevs"),
                                              ({"lcb_min_visit_share": 0.0}, "lcb_min_visit_share"),
                                              ({"lcb_min_visit_share": 1.5}, "lcb_min_visit_share")])
def test_bad_settings_are_refused(settings: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig(**settings)


def test_the_analysis_reports_the_bound_that_chose_the_move() -> None:
    from gtp.analysis import candidates, move_stats

    search = Search(Game(Rules.go(5, "chinese")), Uniform(), SearchConfig(lcb_stdevs=5.0))
    search.run(1)
    result = _result_on(search, {LEADER: SPLIT_LEADER, RUNNER_UP: STEADY_RUNNER_UP})
    assert result.move_lcbs is not None and result.move_lcbs[OTHER] == 0.0
    order = candidates(result)
    assert order[:2] == [RUNNER_UP, LEADER]   # order 0 is the move played, ahead of the most visited
    first, second = (move_stats(result, action) for action in order[:2])
    assert first.lcb > second.lcb   # and its reported bound is the higher one
    visits, mean, _ = STEADY_RUNNER_UP
    stdev = search.tree.root_value_stdevs(search.rules.num_actions)[RUNNER_UP]
    assert first.lcb == pytest.approx((mean - 5.0 * stdev / np.sqrt(visits) + 1) / 2, abs=1e-4)
    off = _result(SearchConfig(lcb_stdevs=0.0), {LEADER: SPLIT_LEADER, RUNNER_UP: STEADY_RUNNER_UP})
    assert off.move_lcbs is None and move_stats(off, LEADER).lcb < (SPLIT_LEADER[1] + 1) / 2
