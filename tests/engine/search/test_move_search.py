"""The one seam where a move is decided: begin, step, finish; its budgets, resignation and temperature."""

from __future__ import annotations

import numpy as np

from engine.core.game import Game
from engine.core.rules import Rules
from engine.core.types import BLACK
from engine.search.batching import step
from engine.search.config import PlayerConfig, SearchConfig
from engine.search.player import Player
from tests.engine.search.test_player import Constant


def _player(value: float = 0.0, seed: int = 0, resigns: bool = True, **options: object) -> Player:
    config = PlayerConfig(**{"visits": 48, "search": SearchConfig(batch_size=8), **options})  # type: ignore[arg-type]
    return Player(Constant(value), config, seed=seed, resigns=resigns)


def _opening(rules: Rules, moves: int = 3) -> Game:
    game = Game(rules)
    for action in (12, 7, 17)[:moves]:
        game.play(action)
    return game


def test_begin_step_finish_decides_as_choose_does() -> None:
    """Two players seeded alike, one deciding through choose and one stepping the seam by hand, draw the same
    opening moves from the same visits."""
    by_choose, by_steps = _player(temperature_moves=10), _player(temperature_moves=10)
    game_a, game_b = Game(Rules.go(5)), Game(Rules.go(5))
    for _ in range(6):
        chosen = by_choose.choose(game_a)
        move = by_steps.begin(game_b)
        steps = 0
        while move.step():
            steps += 1
        stepped = move.finish()
        assert steps > 1, "a 48-visit search in batches of 8 takes several steps"
        assert stepped.action == chosen.action
        assert chosen.search is not None and stepped.search is not None
        np.testing.assert_array_equal(stepped.search.visits, chosen.search.visits)
        assert move.finish() is stepped, "finishing again gives the same decision"
        game_a.play(chosen.action)
        game_b.play(stepped.action)


def test_a_batched_caller_steps_the_moves_job_and_finishes_the_same_decision() -> None:
    """Stepping :attr:`MoveSearch.job` through the batch scheduler (self-play, matches) reaches the decision that
    stepping the move alone does."""
    alone, batched = _player(), _player()
    move = alone.begin(_opening(Rules.go(5)))
    while move.step():
        pass
    scheduled = batched.begin(_opening(Rules.go(5)))
    assert scheduled.job is not None
    while not scheduled.done:
        step([scheduled.job])
    assert scheduled.finish().action == move.finish().action


def test_the_budget_given_to_begin_overrides_the_configs_visits_and_noise() -> None:
    player = _player(visits=48, noise=False, reuse_tree=False)
    move = player.begin(Game(Rules.go(5)), visits=12)
    while move.step():
        pass
    decision = move.finish()
    assert decision.search is not None and int(decision.search.visits.sum()) == 11  # the root's own visit aside
    assert move.job is not None and move.job.visits == 12
    default = player.begin(Game(Rules.go(5)))
    assert default.job is not None and default.job.visits == 48


def test_a_stop_ends_the_move_and_it_still_decides() -> None:
    asked = []
    move = _player(visits=10_000).begin(Game(Rules.go(5)), stop=lambda: asked.append(1) or len(asked) >= 3)
    steps = 1
    while move.step():
        steps += 1
    assert steps == 3, "stop() is asked after every step"
    decision = move.finish()
    assert decision.action is not None and decision.search is not None
    assert 0 < decision.search.visits.sum() < 100


def test_a_player_that_never_resigns_still_says_when_the_rule_would() -> None:
    game = Game(Rules.go(9))
    resigning = _player(value=-0.99, resign_threshold=-0.9, resign_consecutive=2)
    playing_on = _player(value=-0.99, resign_threshold=-0.9, resign_consecutive=2, resigns=False)
    assert [resigning.choose(game).resign for _ in range(2)] == [False, True]
    decisions = [playing_on.choose(game) for _ in range(3)]
    assert [d.would_resign for d in decisions] == [False, True, True]
    assert not any(d.resign for d in decisions) and all(d.action is not None for d in decisions)


def test_temperature_is_applied_when_the_move_is_finished() -> None:
    """The same search finished by a sampling player and a greedy one: only the first draws other moves."""
    sampled, greedy = set(), set()
    for seed in range(8):
        for chosen, temperature_moves in ((sampled, 30), (greedy, 0)):
            player = _player(seed=seed, temperature_moves=temperature_moves, reuse_tree=False)
            move = player.begin(Game(Rules.go(5)))
            while move.step():
                pass
            chosen.add(move.finish().action)
    assert len(sampled) > 1 and len(greedy) == 1


def test_a_lost_gomoku_game_that_is_over_is_resigned_without_a_search() -> None:
    game = Game(Rules.gomoku(9))
    for black, white in zip(range(5), range(9, 14)):
        game.play(black)
        if not game.is_over:
            game.play(white)
    assert game.is_over and game.outcome().winner == BLACK
    move = _player().begin(game, color=game.to_play)  # white, who lost
    assert move.job is None and move.done and not move.step()
    assert move.finish().resign and move.finish().search is None
