"""KataGoEvaluator on small random KataGo networks: batching, legal masking, the side to move's view, the cache
keyed on the rules too, and random symmetries mapped back.

Expected outputs come from other evaluations (a position alone, the colour-swapped position, the rotated
game), never from constants.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from encoders.katago import KataGoEncoder
from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.symmetry import destination_cells
from engine.core.types import BLACK, WHITE, opponent
from engine.formats.diagram import game_from_diagram
from engine.nn.katago_evaluator import KataGoEvaluator
from engine.nn.katago_format import read_katago_model
from engine.search.evaluator import Evaluation
from tests.support.games import random_positions
from tests.support.katago_models import write_katago_model

HEADS = ("priors", "values", "ownership", "score_mean", "score_stdev")
# Black's D5 captures C5 and leaves a ko (white may not retake at C5 at once); A1 is suicide for white.
KO_AND_SUICIDE = """
    . . . . . . .
    . . X O . . .
    . X O . O . .
    . . X O . . .
    . . . . . . .
    X . . . . . .
    . X . . . . .
"""


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("katago") / "net.bin.gz"
    write_katago_model(path, version=8, blocks=("ordinary", "gpool"), seed=3)
    return path


def _evaluator(path: Path, rules: Rules, **options: object) -> KataGoEvaluator:
    model = read_katago_model(path)
    encoder = KataGoEncoder(rules, model.pass_alive_assumes_suicide)
    return KataGoEvaluator(model, encoder, device="cpu", **options)  # type: ignore[arg-type]


def _assert_same(got: Evaluation, want: Evaluation, row: int = 0, atol: float = 1e-5) -> None:
    for head in HEADS:
        np.testing.assert_allclose(getattr(got, head)[row], getattr(want, head)[0], rtol=1e-4, atol=atol,
                                   err_msg=head)


def _replayed(game: Game, rules: Rules, action: Callable[[int], int] = int,
              color: Callable[[int], int] = int) -> Game:
    """``game``'s moves played again under ``rules``, each action and colour mapped."""
    other = Game(rules)
    for move in game.moves:
        pass_move = move.action == game.rules.pass_action
        other.play(move.action if pass_move else int(action(move.action)), color(move.color))
    return other


@pytest.mark.parametrize("rules", [Rules.go(5, "chinese"), Rules.go(9, "japanese"), Rules.go(19, "tromp-taylor")])
def test_each_row_of_a_batch_is_what_the_position_gives_alone(model_path: Path, rules: Rules) -> None:
    games = random_positions(rules, 7, seed=rules.size, moves=(0, 2 * rules.size))
    positions = [game.position for game in games]
    assert {int(p.to_play) for p in positions} == {BLACK, WHITE}
    evaluator = _evaluator(model_path, rules, cache_size=0)
    batch = evaluator.evaluate(positions)
    for row, position in enumerate(positions):
        _assert_same(batch, evaluator.evaluate([position]), row)
    assert not np.allclose(batch.values, batch.values[0])  # the rows are evaluations of different positions


@pytest.mark.parametrize("preset,suicide_allowed", [("chinese", False), ("tromp-taylor", True)])
def test_occupied_points_ko_retakes_and_forbidden_suicide_get_no_prior(
    model_path: Path, preset: str, suicide_allowed: bool
) -> None:
    rules = Rules.go(7, preset)
    game = game_from_diagram(KO_AND_SUICIDE, rules, to_play="B")
    game.play(gtp_to_action("D5", 7))
    priors = _evaluator(model_path, rules).evaluate([game.position]).priors[0]
    occupied = np.flatnonzero(game.position.board().reshape(-1))
    ko, suicide = gtp_to_action("C5", 7), gtp_to_action("A1", 7)
    assert np.all(priors[occupied] == 0.0)
    assert priors[ko] == 0.0
    assert (priors[suicide] > 0.0) == suicide_allowed
    others = np.setdiff1d(np.arange(rules.num_actions), [*occupied, ko, suicide])
    assert np.all(priors[others] > 0.0)
    assert abs(float(priors.sum()) - 1.0) < 1e-5


def test_values_and_scores_are_from_the_side_to_move(model_path: Path) -> None:
    """The colour-swapped game with the komi negated has the same inputs from the side to move, so the same
    outputs: its value is the same number although the other colour moves, and from white's view (as
    ``kata-raw-nn`` shows) the two are opposite."""
    rules = Rules.go(9, "chinese", komi=6.5)
    swapped_rules = Rules.go(9, "chinese", komi=-6.5)
    evaluator, swapped_evaluator = _evaluator(model_path, rules), _evaluator(model_path, swapped_rules)
    for game in random_positions(rules, 4, seed=5):
        swapped = _replayed(game, swapped_rules, color=opponent)
        assert swapped.to_play != game.to_play
        ours, theirs = evaluator.evaluate([game.position]), swapped_evaluator.evaluate([swapped.position])
        _assert_same(ours, theirs)
        assert abs(float(ours.values[0])) > 1e-3 and abs(float(ours.score_mean[0])) > 1e-3
        white = {BLACK: -1.0, WHITE: 1.0}
        white_value = white[int(game.to_play)] * ours.values[0]
        swapped_white_value = white[int(swapped.to_play)] * theirs.values[0]
        np.testing.assert_allclose(white_value, -swapped_white_value, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("random_symmetry", [False, True])
def test_a_second_evaluation_is_a_cache_hit_and_equal(model_path: Path, random_symmetry: bool) -> None:
    """Equal with a random symmetry too: a hit gives the symmetry drawn when the entry was made."""
    rules = Rules.go(9, "chinese")
    positions = [game.position for game in random_positions(rules, 5, seed=7)]
    evaluator = _evaluator(model_path, rules, random_symmetry=random_symmetry, seed=1)
    first = evaluator.evaluate(positions)
    assert (evaluator.hits, evaluator.misses) == (0, 5)
    second = evaluator.evaluate(positions)
    assert (evaluator.hits, evaluator.misses) == (5, 5)
    for head in HEADS:
        np.testing.assert_array_equal(getattr(second, head), getattr(first, head))


def test_the_cache_keys_on_the_komi_which_the_network_reads(model_path: Path) -> None:
    rules, other_komi = Rules.go(9, "chinese", komi=7.5), Rules.go(9, "chinese", komi=0.5)
    game = random_positions(rules, 1, seed=8)[0]
    evaluator = _evaluator(model_path, rules)
    first = evaluator.evaluate([game.position])
    again = evaluator.evaluate([_replayed(game, other_komi).position])
    assert evaluator.hits == 0
    assert abs(float(first.values[0] - again.values[0])) > 1e-4


def test_a_random_symmetry_is_the_transformed_game_mapped_back(model_path: Path) -> None:
    """Under symmetry k each point's outputs are those of the game played on the transformed board (its
    history and ko included) at the point the symmetry moves it to."""
    rules = Rules.go(7, "chinese")
    games = random_positions(rules, 8, seed=9)
    plain = _evaluator(model_path, rules, cache_size=0)
    turned = _evaluator(model_path, rules, cache_size=0, random_symmetry=True)
    ks = np.arange(8)

    class Fixed:
        def integers(self, low: int, high: int, size: int) -> np.ndarray:
            return ks[:size]

    turned._rng = Fixed()  # type: ignore[assignment]
    evaluation = turned.evaluate([game.position for game in games])
    for k, game in zip(ks, games):
        moved = destination_cells(int(k), rules.size)
        other = _replayed(game, rules, action=lambda a: int(moved[a])).position
        assert isinstance(other, Position)
        want = plain.evaluate([other])
        np.testing.assert_allclose(evaluation.priors[k, :-1], want.priors[0, moved], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(evaluation.priors[k, -1], want.priors[0, -1], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(evaluation.ownership[k], want.ownership[0, moved], rtol=1e-4, atol=1e-5)
        for head in ("values", "score_mean", "score_stdev"):
            np.testing.assert_allclose(getattr(evaluation, head)[k], getattr(want, head)[0], rtol=1e-4, atol=1e-5)
    assert not np.allclose(evaluation.priors[1], plain.evaluate([games[1].position]).priors[0], atol=1e-4)
