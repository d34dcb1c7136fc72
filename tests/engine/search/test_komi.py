"""The value at the game's komi from the score head (engine.search.komi) and the search applying it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE
from engine.search.config import SearchConfig
from engine.search.evaluator import Evaluation, UniformEvaluator
from engine.search.komi import MIN_SPREAD, at_komi, evaluator_komi, komi_shift
from engine.search.mcts import Search


def _one(value: float, mu: float, sigma: float, delta: float) -> tuple[float, float]:
    values, scores = at_komi(np.float32([value]), np.float32([mu]), np.float32([sigma]), np.float64([delta]))
    return float(values[0]), float(scores[0])


def test_no_shift_at_delta_zero() -> None:
    values = np.float32([-0.7, 0.0, 0.3, 1.0])
    corrected, scores = at_komi(values, np.float32([-5, 0, 2, 30]), np.float32([4, 4, 1, 3]), np.zeros(4))
    np.testing.assert_array_equal(corrected, values)
    np.testing.assert_array_equal(scores, np.float32([-5, 0, 2, 30]))


def test_monotone_in_delta() -> None:
    deltas = np.linspace(-20, 20, 81)
    n = len(deltas)
    values, scores = at_komi(np.full(n, 0.1, np.float32), np.full(n, 1.5, np.float32), np.full(n, 5.0, np.float32),
                             deltas)
    steps = np.diff(values)
    assert np.all(steps >= 0) and np.all(steps[values[1:] > -1] > 0)  # strictly, once off the clip
    np.testing.assert_allclose(scores, 1.5 + deltas, atol=1e-5)


def test_the_shift_is_twice_the_change_in_win_probability() -> None:
    # mu 0, sigma 4, delta 4: Phi(1) - Phi(0) = 0.341345
    value, score = _one(0.0, 0.0, 4.0, 4.0)
    assert value == pytest.approx(2 * 0.341345, abs=1e-5) and score == pytest.approx(4.0)


def test_clipped_to_the_value_range() -> None:
    assert _one(0.9, 0.0, 1.0, 50.0)[0] == 1.0
    assert _one(-0.9, 0.0, 1.0, -50.0)[0] == -1.0


def test_the_spread_has_a_floor() -> None:
    assert _one(0.0, 0.0, 0.0, 0.25) == pytest.approx(_one(0.0, 0.0, MIN_SPREAD, 0.25))


def test_symmetric_in_colour() -> None:
    """What komi gives White it takes from Black: the two sides' values move by opposite amounts."""
    delta = komi_shift(-6.5, np.array([BLACK, WHITE]))
    np.testing.assert_array_equal(delta, [6.5, -6.5])
    mu = np.float32([1.0, -1.0])  # the same position seen by each side
    values, scores = at_komi(np.float32([0.2, -0.2]), mu, np.float32([6.0, 6.0]), delta)
    assert values[0] == pytest.approx(-values[1]) and scores[0] == pytest.approx(-scores[1])
    assert values[0] > 0.2


def test_vectorised_rows_agree_with_single_ones() -> None:
    rng = np.random.default_rng(0)
    v, mu, sigma, delta = (rng.uniform(-1, 1, 50), rng.normal(0, 10, 50), rng.uniform(0, 12, 50),
                           rng.normal(0, 8, 50))
    values, scores = at_komi(v.astype(np.float32), mu, sigma, delta)
    assert values.shape == scores.shape == (50,) and values.dtype == np.float32
    for i in range(0, 50, 7):
        assert (values[i], scores[i]) == pytest.approx(_one(v[i], mu[i], sigma[i], delta[i]), abs=1e-6)


def test_evaluator_komi() -> None:
    assert evaluator_komi(UniformEvaluator()) is None

    class Stated(UniformEvaluator):
        komi = 7

    assert evaluator_komi(Stated()) == 7.0


class EvenAtKomiSeven(UniformEvaluator):
    """Uniform priors, value 0 and score 0 (spread 3) for every position, as a network that learnt komi 7 would
    say of an even game; ``komi`` None: it does not say."""

    def __init__(self, komi: float | None = 7.0) -> None:
        super().__init__()
        self.komi = komi

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        evaluation = super().evaluate(positions, legal)
        n = len(evaluation.values)
        return evaluation._replace(score_mean=np.zeros(n, np.float32), score_stdev=np.full(n, 3.0, np.float32))


def _root(komi: float, *, correction: bool = True, model_komi: float | None = 7.0,
          to_play_white: bool = False) -> tuple[float, float]:
    game = Game(Rules.go(5, "chinese", komi=komi))
    if to_play_white:
        game.play(12)
    config = SearchConfig(batch_size=4, komi_correction=correction)
    result = Search(game, EvenAtKomiSeven(model_komi), config, seed=0).run(40)
    assert result.score_mean is not None
    return result.value, result.score_mean


def test_a_lower_komi_favours_black_and_a_higher_one_white() -> None:
    black_low, score_low = _root(0.5)
    black_high, score_high = _root(13.5)
    assert black_low > 0.5 and score_low > 3.0  # black to move gains 6.5 points
    assert black_high < -0.5 and score_high < -3.0
    white_low, _ = _root(0.5, to_play_white=True)
    assert white_low < -0.5


def test_no_correction_at_the_model_komi_with_the_setting_off_or_an_unknown_komi() -> None:
    for value, score in (_root(7.0), _root(0.5, correction=False), _root(0.5, model_komi=None)):
        assert abs(value) < 0.2 and abs(score) < 1.0


def test_gomoku_is_never_corrected() -> None:
    game = Game(Rules.gomoku(9, win_length=5))
    result = Search(game, EvenAtKomiSeven(7.0), SearchConfig(batch_size=4), seed=0).run(30)
    assert abs(result.value) < 0.2
