"""Playing levels: the table, the rank scale, the blind spots, and a player at a level."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.formats.diagram import game_from_diagram
from engine.search.config import PlayerConfig, SearchConfig
from engine.search.evaluator import Evaluation, masked_softmax
from engine.search.levels import (
    FULL_STRENGTH,
    LEVELS,
    blind_spots,
    level_named,
    nearest_level,
    overlooked_ataris,
    rank_value,
    without_blind_spots,
    without_overlooked_ataris,
)
from engine.search.mcts import SearchResult
from engine.search.player import Player


class Centre:
    """Priors that favour the centre, as a network's opening policy does; value 0."""

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        n = positions[0].rules.size
        rows, cols = np.divmod(np.arange(n * n), n)
        logits = np.append(-0.8 * (np.abs(rows - (n - 1) / 2) + np.abs(cols - (n - 1) / 2)), -5.0)
        masks = np.stack([p.legal_mask() for p in positions]) if legal is None else legal
        priors = masked_softmax(np.tile(logits, (len(positions), 1)), masks)
        return Evaluation(priors, np.zeros(len(positions), np.float32))


def test_the_levels_grow_stronger_in_order_and_full_strength_changes_nothing() -> None:
    named = LEVELS[:-1]
    assert [level.name for level in LEVELS][0] == "20k" and LEVELS[-1].name == FULL_STRENGTH
    assert [level.rank for level in named] == sorted(level.rank for level in named)
    visits = [level.visits or 0 for level in named]
    assert visits == sorted(visits) and len(set(visits)) == len(visits)
    assert [level.blind_spots for level in named] == sorted((level.blind_spots for level in named), reverse=True)
    ataris = [level.overlooked_ataris for level in named]
    assert ataris == sorted(ataris, reverse=True) and ataris[0] > 0
    assert level_named("full").player_settings() == {} and level_named("10K").name == "10k"
    with pytest.raises(ValueError, match="20k, 15k"):
        level_named("30k")


@pytest.mark.parametrize("rank,value", [("20k", -19), ("1k", 0), ("1d", 1), ("9D", 9)])
def test_ranks_lie_on_one_scale(rank: str, value: int) -> None:
    assert rank_value(rank) == value


@pytest.mark.parametrize("rank", ["0k", "k", "5 kyu", "3p", ""])
def test_what_is_not_a_rank_is_refused(rank: str) -> None:
    with pytest.raises(ValueError, match="not a rank"):
        rank_value(rank)


@pytest.mark.parametrize("rank,level", [("25k", "20k"), ("17k", "15k"), ("5k", "6k"), ("2k", "3k"), ("2d", "1d"),
                                        ("3d", "full"), ("9d", "full")])
def test_a_rank_maps_onto_the_nearest_level(rank: str, level: str) -> None:
    assert nearest_level(rank_value(rank)).name == level


def test_blind_spots_hide_whole_blocks_about_their_share_and_never_pass() -> None:
    rng = np.random.default_rng(0)
    assert blind_spots(19, 0.0, rng) is None
    shares = []
    for _ in range(200):
        seen = blind_spots(19, 0.3, rng)
        assert seen is not None and seen.shape == (362,) and seen[361]
        board = seen[:361].reshape(19, 19)
        blocks = board[:18, :18].reshape(6, 3, 6, 3)
        assert (blocks.all(axis=(1, 3)) | ~blocks.any(axis=(1, 3))).all()   # each 3x3 block all seen or all hidden
        shares.append(1 - board.mean())
    assert 0.25 < float(np.mean(shares)) < 0.35


def test_blind_spots_never_hide_every_move_that_is_left() -> None:
    legal = np.zeros(82, dtype=bool)
    legal[[0, 81]] = True   # A9 and pass
    only_a9 = np.zeros(82, dtype=bool)
    only_a9[0] = True
    for seed in range(50):
        assert without_blind_spots(only_a9, legal, 0.9, np.random.default_rng(seed))[0]


ATARIS = """
. . . . . . . . .
. . . . . . . . .
. . . X . . . . .
. . X O . . . . .
. . . X . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
X O . . . . . . .
"""
"""White D6 in atari (its last liberty E6), black A1 in atari (A2); white B1 has two liberties."""


def test_overlooked_ataris_hide_the_last_liberty_of_every_chain_in_atari_of_either_colour() -> None:
    position = game_from_diagram(ATARIS, "chinese").position
    rng = np.random.default_rng(0)
    seen = overlooked_ataris(position, 1.0, rng)
    assert seen is not None and seen.shape == (82,)
    assert sorted(np.flatnonzero(~seen)) == sorted([gtp_to_action("E6", 9), gtp_to_action("A2", 9)])
    assert overlooked_ataris(position, 0.0, rng) is None
    assert overlooked_ataris(game_from_diagram(ATARIS, "freestyle").position, 1.0, rng) is None
    hidden = np.array([~overlooked_ataris(position, 0.5, rng) for _ in range(400)])
    e6, a2 = gtp_to_action("E6", 9), gtp_to_action("A2", 9)
    assert 0.4 < hidden[:, e6].mean() < 0.6 and 0.4 < hidden[:, a2].mean() < 0.6
    assert 0.15 < (hidden[:, e6] & hidden[:, a2]).mean() < 0.35   # each point drawn apart
    assert not hidden[:, [a for a in range(82) if a not in (e6, a2)]].any()


def test_overlooked_ataris_never_hide_every_move_that_is_left() -> None:
    position = game_from_diagram(ATARIS, "chinese").position
    only_e6 = np.zeros(82, dtype=bool)
    only_e6[gtp_to_action("E6", 9)] = True
    assert without_overlooked_ataris(only_e6, position, only_e6, 1.0, np.random.default_rng(0)) is only_e6


def test_a_level_that_overlooks_ataris_neither_reads_nor_plays_the_capture() -> None:
    """White D5 in atari on E5, the centre the priors favour most: seen, the capture is played; overlooked, the
    search never visits it."""
    game = game_from_diagram("""
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . X . . . . .
. . X O . . . . .
. . . X . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
""", "chinese")
    capture = gtp_to_action("E5", 9)
    settings = {**level_named("20k").player_settings(), "blind_spots": 0.0}

    def moves(share: float) -> list[int]:
        config = PlayerConfig(search=SearchConfig(batch_size=4), **{**settings, "overlooked_ataris": share})
        decisions = [Player(Centre(), config, seed=seed).choose(game) for seed in range(20)]
        assert all(d.search is not None for d in decisions)
        assert share < 1 or not any(d.search.visits[capture] for d in decisions if d.search is not None)
        return [d.action for d in decisions]

    assert capture in moves(0.0) and capture not in moves(1.0)


def test_a_levels_search_visits_nothing_in_its_blind_spots() -> None:
    game = Game(Rules.go(9))
    config = PlayerConfig(search=SearchConfig(batch_size=4), **level_named("15k").player_settings())
    for seed in range(5):
        seen = blind_spots(9, config.blind_spots, np.random.default_rng(seed))   # the player's first draw
        assert seen is not None
        decision = Player(Centre(), config, seed=seed).choose(game)
        assert decision.search is not None and not decision.search.visits[~seen].any()
        assert seen[decision.action]


def test_a_weak_level_draws_plausible_moves_where_full_strength_plays_one() -> None:
    """From the same position the 20k level plays several moves, all near the centre that the policy favours (no
    random first-line blunders); full strength plays the same move every time."""
    game = Game(Rules.go(9))
    weak = PlayerConfig(search=SearchConfig(batch_size=4), **level_named("20k").player_settings())
    strong = PlayerConfig(visits=64, search=SearchConfig(batch_size=4), temperature_moves=0)
    weak_moves = {Player(Centre(), weak, seed=seed).choose(game).action for seed in range(40)}
    strong_moves = {Player(Centre(), strong, seed=seed).choose(game).action for seed in range(5)}
    assert len(weak_moves) >= 3 and len(strong_moves) == 1
    rows, cols = np.divmod(np.array(sorted(weak_moves)), 9)
    assert (np.minimum.reduce([rows, cols, 8 - rows, 8 - cols]) >= 1).all()   # none on the first line


def _result(visits: list[float], priors: list[float]) -> SearchResult:
    return SearchResult(np.array(visits, dtype=np.float32), np.zeros(len(visits), dtype=np.float32),
                        np.array(priors, dtype=np.float32), value=0.0, simulations=int(sum(visits)), seconds=0.0, pv=[])


def test_a_levels_draw_follows_the_priors_where_the_search_only_glanced_at_each_move() -> None:
    """Four visits of one each draw from those moves' priors, not uniformly among them; never an unvisited move."""
    glanced = _result([1, 1, 1, 1, 0], [0.6, 0.2, 0.1, 0.05, 0.05])
    np.testing.assert_allclose(glanced.policy(1.0, reading=True), np.array([0.6, 0.2, 0.1, 0.05, 0.0]) / 0.95,
                               rtol=1e-6)
    np.testing.assert_allclose(glanced.policy(1.0), [0.25, 0.25, 0.25, 0.25, 0.0], rtol=1e-6)


def test_a_levels_draw_follows_the_search_where_it_read_deeply() -> None:
    read = _result([3, 120, 4, 1, 0], [0.6, 0.2, 0.1, 0.05, 0.05])
    policy = read.policy(1.0, reading=True)
    assert policy[1] > 0.9 and policy.argmax() == 1 and policy[3] < 0.01


def test_every_named_level_draws_by_reading() -> None:
    assert all(level.player_settings()["draw_by_reading"] for level in LEVELS if level.visits is not None)
