"""The self-play methods inside the search: forced playouts with the pruned target, and Gumbel root search."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.types import BLACK
from engine.search.config import PlayerConfig, SearchConfig
from engine.search.evaluator import Evaluation
from engine.search.mcts import Search
from engine.search.player import Player

RULES = Rules.parse("tromp-taylor size=7 komi=7.5")
GOOD = 10  # the one move that wins, for the fakes below


class OneGoodMove:
    """Priors from ``priors`` (uniform where None); black wins when it holds point ``GOOD``, else loses.

    Seen from the side to move: +1 when that side is winning. Under PUCT the other moves keep one
    visit each, which is what forced playouts must change.
    """

    def __init__(self, priors: np.ndarray | None = None) -> None:
        self.priors = priors

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        masks = np.stack([p.legal_mask() for p in positions]).astype(np.float32)
        if self.priors is not None:
            masks = masks * self.priors
        values = []
        for position in positions:
            black_wins = position.board().reshape(-1)[GOOD] == BLACK
            values.append(1.0 if black_wins == (position.to_play == BLACK) else -1.0)
        return Evaluation(masks / masks.sum(axis=1, keepdims=True), np.float32(values))


def _search(config: SearchConfig, seed: int = 0, evaluator: OneGoodMove | None = None) -> Search:
    return Search(Game(RULES), evaluator or OneGoodMove(), config, seed=seed)


def _below_floor(visits: np.ndarray, priors: np.ndarray, k: float) -> np.ndarray:
    """Visited actions with fewer than ``sqrt(k P sum N) - 1`` visits (one visit of slack: the floor grows)."""
    floor = np.sqrt(k * priors * visits.sum())
    return np.flatnonzero((visits > 0) & (visits < floor - 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forced_playouts_give_every_visited_root_child_its_floor(seed: int) -> None:
    config = SearchConfig(batch_size=4, forced_playouts_k=2.0)
    result = _search(config, seed).run(400, noise=True)
    assert result.visits.sum() == 399
    assert _below_floor(result.visits, result.priors, 2.0).size == 0
    # the same search without forcing leaves noised moves at one visit: the check above can fail
    plain = _search(SearchConfig(batch_size=4), seed).run(400, noise=True)
    assert _below_floor(plain.visits, plain.priors, 2.0).size > 0


def test_forced_playouts_act_only_in_noised_searches() -> None:
    config = SearchConfig(batch_size=4, forced_playouts_k=2.0)
    forced = _search(config).run(400, noise=False)
    plain = _search(SearchConfig(batch_size=4)).run(400, noise=False)
    assert np.array_equal(forced.visits, plain.visits)
    assert forced.policy_target is None


def test_a_gumbel_root_ignores_forced_playouts() -> None:
    gumbel = SearchConfig(batch_size=4, gumbel_considered=4)
    both = _search(SearchConfig(batch_size=4, gumbel_considered=4, forced_playouts_k=2.0)).run(32, noise=True)
    alone = _search(gumbel).run(32, noise=True)
    assert np.array_equal(both.visits, alone.visits) and np.array_equal(both.policy_target, alone.policy_target)


def test_the_pruned_target_takes_forced_visits_back_from_losing_moves() -> None:
    result = _search(SearchConfig(batch_size=4, forced_playouts_k=2.0)).run(400, noise=True)
    target = result.policy_target
    assert target is not None and target.dtype == np.float32
    assert target.sum() == pytest.approx(1.0, abs=1e-6)
    assert result.best_action == GOOD
    share = result.visits / result.visits.sum()
    assert target[GOOD] > share[GOOD]  # the losing moves' forced visits were taken back
    assert np.all(target[result.visits == 0] == 0)
    assert np.all(target[np.arange(len(target)) != GOOD] <= share[np.arange(len(target)) != GOOD] + 1e-7)


def test_a_visit_search_without_forcing_has_no_separate_target() -> None:
    assert _search(SearchConfig()).run(50, noise=True).policy_target is None


def test_gumbel_search_follows_sequential_halving_in_batches() -> None:
    # 16 simulations over 4 considered actions: 2 visits each, then 4 more for the two survivors
    for batch in (1, 8):
        search = _search(SearchConfig(batch_size=batch, gumbel_considered=4), seed=3)
        result = search.run(17, noise=True)
        assert sorted(result.visits[result.visits > 0].tolist()) == [2, 2, 6, 6]
        assert result.gumbel_action is not None and result.visits[result.gumbel_action] == 6
        assert result.best_action == result.gumbel_action


def test_gumbel_search_target_is_a_distribution_over_every_legal_move() -> None:
    result = _search(SearchConfig(gumbel_considered=8)).run(33, noise=True)
    target = result.policy_target
    legal = Game(RULES).legal_mask()
    assert target is not None
    assert target.sum() == pytest.approx(1.0, abs=1e-6)
    assert np.all(target[legal] > 0) and np.all(target[~legal] == 0)


def test_gumbel_search_takes_no_dirichlet_noise_and_plays_the_winning_move() -> None:
    # without noise the considered actions are the prior's top 16: GOOD is among them (highest prior)
    priors = np.ones(RULES.num_actions, dtype=np.float32)
    priors[GOOD] = 2.0
    for seed in range(3):
        result = _search(SearchConfig(gumbel_considered=16), seed, OneGoodMove(priors)).run(33, noise=False)
        assert result.gumbel_action == GOOD
        legal = Game(RULES).legal_mask()
        expected = np.where(legal, priors, 0) / np.where(legal, priors, 0).sum()
        assert np.allclose(result.priors, expected, atol=1e-6)  # no Dirichlet noise at the root


def test_gumbel_noise_varies_the_considered_moves() -> None:
    considered = {tuple(np.flatnonzero(_search(SearchConfig(gumbel_considered=4), seed).run(9, noise=True).visits))
                  for seed in range(6)}
    assert len(considered) > 1


def test_gumbel_search_needs_a_visit_limit() -> None:
    with pytest.raises(ValueError, match="visit limit"):
        _search(SearchConfig(gumbel_considered=4)).run(seconds=0.1)


def test_gumbel_search_starts_from_a_fresh_root_each_move() -> None:
    game = Game(RULES)
    player = Player(OneGoodMove(), PlayerConfig(visits=9, search=SearchConfig(gumbel_considered=4), noise=True,
                                                temperature_moves=10, resign_threshold=None), seed=1)
    first = player.choose(game)
    assert first.action == first.search.gumbel_action  # the halving's choice, not a temperature sample
    game.play(first.action)
    second = player.choose(game)
    assert second.search.visits.sum() == 8  # the reused subtree's visits are not kept


def test_negative_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        SearchConfig(forced_playouts_k=-1)
    with pytest.raises(ValueError):
        SearchConfig(gumbel_considered=-2)


def test_a_gumbel_search_values_the_root_by_its_improved_policy() -> None:
    # one move wins, the rest lose: the halving's visits to losing moves must not drag the value down
    priors = np.ones(RULES.num_actions, dtype=np.float32)
    priors[GOOD] = 2.0
    result = _search(SearchConfig(gumbel_considered=16), 0, OneGoodMove(priors)).run(33, noise=False)
    mean = float((result.visits * result.q).sum() / result.visits.sum())
    assert mean < 0 < result.value
    assert result.value > 0.9
