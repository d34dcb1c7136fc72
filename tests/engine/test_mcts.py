"""The search with a uniform evaluator and a fixed-prior fake: budgets, legality, finds wins, reuse."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.scoring import score
from engine.core.types import BLACK
from engine.formats.diagram import game_from_diagram
from engine.search.mcts import Search, SearchConfig
from engine.search.tree import VIRTUAL


class Uniform:
    """Uniform priors over the legal actions, value 0."""

    def __init__(self) -> None:
        self.calls = 0
        self.batch_sizes: list[int] = []

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        self.batch_sizes.append(len(positions))
        masks = np.stack([p.legal_mask() for p in positions]).astype(np.float32)
        return masks / np.maximum(masks.sum(axis=1, keepdims=True), 1), np.zeros(len(positions), np.float32)


class FixedPriors(Uniform):
    """Puts ``weight`` of the prior on one action wherever it is legal, to steer the search."""

    def __init__(self, action: int, weight: float = 0.9) -> None:
        super().__init__()
        self.action = action
        self.weight = weight

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        priors, values = super().evaluate(positions, legal)
        for row in priors:
            if row[self.action] > 0:
                row *= (1 - self.weight) / max(row.sum() - row[self.action], 1e-9)
                row[self.action] = self.weight
        return priors, values


class AreaValue(Uniform):
    """Uniform priors; the value is the area lead as it stands, squashed (a material-minded fake)."""

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        priors, _ = super().evaluate(positions, legal)
        values = []
        for p in positions:
            lead = score(p.cells, p.info, p.size, p.rules.komi, "area")
            values.append(np.tanh((lead if p.to_play == BLACK else -lead) / 4))
        return priors, np.asarray(values, np.float32)


def _game(rules: Rules, vertices: list[str]) -> Game:
    game = Game(rules)
    for vertex in vertices:
        game.play(gtp_to_action(vertex, rules.size))
    return game


@pytest.mark.parametrize("rules,visits,batch", [(Rules.go(9), 300, 8), (Rules.go(5, "tromp-taylor"), 500, 1),
                                                (Rules.gomoku(7, 4), 400, 16), (Rules.go(19), 200, 32)])
def test_visits_add_up_and_no_virtual_loss_is_left(rules: Rules, visits: int, batch: int) -> None:
    search = Search(Game(rules), Uniform(), SearchConfig(batch_size=batch), seed=0)
    result = search.run(visits)
    assert search.root_visits == visits
    assert result.visits.sum() == visits - 1  # the root's own evaluation is the first visit
    assert search._ints[VIRTUAL, :search.nodes].sum() == 0


def test_batches_reach_the_configured_size() -> None:
    evaluator = Uniform()
    Search(Game(Rules.go(9)), evaluator, SearchConfig(batch_size=8), seed=0).run(400)
    assert max(evaluator.batch_sizes) == 8
    assert np.median(evaluator.batch_sizes) >= 6


def test_illegal_moves_get_no_visits() -> None:
    game = game_from_diagram("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """, Rules.go(5, "chinese"), BLACK)
    game.play(gtp_to_action("C4", 5))  # black captures at C4: white may not retake B4 at once (ko)
    result = Search(game, Uniform(), seed=1).run(600)
    legal = game.legal_mask()
    assert not legal[gtp_to_action("B4", 5)]
    assert (result.visits[~legal] == 0).all()
    assert (result.priors[~legal] == 0).all()


def test_renju_forbidden_points_are_never_searched() -> None:
    """Black's double-three point (E5 joins E6-E7 and C5-D5) is never a child anywhere in the tree."""
    game = game_from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . O O O .
        . . . . . . . . .
        """, Rules.gomoku(9, 5, "renju"), BLACK)
    forbidden = gtp_to_action("E5", 9)
    assert not game.legal_mask()[forbidden]
    search = Search(game, Uniform(), seed=0)
    result = search.run(300)
    assert result.visits[forbidden] == 0
    assert result.visits.sum() == 299


def test_superko_forbidden_root_moves_are_never_searched() -> None:
    """Root legality comes from the Game, so positional superko holds at the root."""
    rules = Rules.go(2, "tromp-taylor", komi=0.5)
    game = _game(rules, ["A1", "B2", "pass"])
    search = Search(game, Uniform(), seed=0)
    result = search.run(200)
    assert (result.visits[~game.legal_mask()] == 0).all()


def test_finds_a_gomoku_five() -> None:
    game = _game(Rules.gomoku(9, 5), ["E5", "A1", "F5", "A9", "G5", "J1", "H5", "B2"])
    result = Search(game, Uniform(), seed=0).run(800)
    assert result.best_action in (gtp_to_action("D5", 9), gtp_to_action("J5", 9))
    assert result.value > 0.8


def test_blocks_an_open_four_in_the_making() -> None:
    """Black threatens 4 in a row on 6x6 (k=4): white must block at once; a guiding prior is not needed."""
    game = _game(Rules.gomoku(6, 4), ["B2", "F6", "C3", "F5"])  # black has B2-C3 on the diagonal
    game.play(gtp_to_action("D4", 6))  # three on the diagonal, A1 and E5 both open
    result = Search(game, Uniform(), SearchConfig(batch_size=4), seed=0).run(3000)
    assert result.best_action in (gtp_to_action("A1", 6), gtp_to_action("E5", 6))


def test_finds_the_deciding_capture() -> None:
    """Black to move captures the two white stones in atari; any other move lets them escape.

    Uniform priors and zero values give the search no reason to prefer any move
    before the game's end, so this test values positions by their area count.
    """
    game = game_from_diagram("""
        . . . . .
        . X X X .
        X O O . .
        . X X X .
        . . . . .
        """, Rules.go(5, "chinese", komi=0.5), BLACK)
    result = Search(game, AreaValue(), SearchConfig(batch_size=4), seed=0).run(1000)
    assert result.best_action == gtp_to_action("D3", 5)


def test_seeded_search_is_reproducible() -> None:
    def run() -> np.ndarray:
        game = Game(Rules.go(9))
        return Search(game, Uniform(), SearchConfig(batch_size=8), seed=7).run(300, noise=True).visits

    np.testing.assert_array_equal(run(), run())


def test_noise_changes_the_root_priors_but_keeps_them_a_distribution() -> None:
    game = Game(Rules.go(9))
    search = Search(game, Uniform(), seed=3)
    result = search.run(50, noise=True)
    assert not np.allclose(result.priors[:-1], result.priors[0])
    assert result.priors.sum() == pytest.approx(1.0, abs=1e-4)


def test_tree_reuse_keeps_the_chosen_subtree() -> None:
    game = Game(Rules.go(9))
    search = Search(game, FixedPriors(gtp_to_action("E5", 9)), SearchConfig(batch_size=8), seed=0)
    result = search.run(400)
    chosen = result.best_action
    kept = int(result.visits[chosen])
    game.play(chosen)
    search.set_game(game)
    assert search.root_visits == kept
    after = search.run(kept + 100)
    assert after.visits.sum() == kept + 100 - 1


def test_tree_is_rebuilt_when_the_game_does_not_follow() -> None:
    game = Game(Rules.go(9))
    search = Search(game, Uniform(), seed=0)
    search.run(100)
    other = _game(Rules.go(9), ["A1", "B1"])
    search.set_game(other)
    assert search.root_visits == 0
    assert search.run(50).visits.sum() == 49


def test_finished_game_returns_its_exact_value() -> None:
    game = _game(Rules.go(5, "chinese", komi=0.5), ["C3", "pass", "pass"])
    result = Search(game, Uniform(), seed=0).run(10)
    assert result.simulations == 0
    assert result.value == -1.0  # white to move; black owns the board


def test_tree_grows_when_full_and_stops_at_its_capacity() -> None:
    game = Game(Rules.go(5))
    search = Search(game, Uniform(), SearchConfig(batch_size=8), seed=0)
    initial = search._ints.shape[1]
    assert search.run(2000).simulations == 2000
    assert search._ints.shape[1] > initial and search.nodes > initial
    capped = Search(game, Uniform(), SearchConfig(batch_size=8, capacity=600), seed=0)
    result = capped.run(2000)
    assert capped.is_full and result.simulations < 2000 and capped.nodes <= 600
