"""The threat guard (``engine.search.guard``): a victory by threats is played, a threatened player searches
only the moves after which the opponent has none (each checked here by a threat search of its own), a four
that only delays is no defence, quiet positions and Go are left alone, and the Player guards the moves it
plays but not its analysis."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pytest

from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE
from engine.search.config import PlayerConfig, SearchConfig
from engine.search.deadline import Deadline
from engine.search.evaluator import Evaluation, UniformEvaluator
from engine.search.guard import VCT_BUDGET, VCT_DEPTH, defences, guarded_moves, victory_point
from engine.search.player import Player
from tests.support.games import play_stones

pytestmark = pytest.mark.slow   # the guard's threat searches take minutes in plain Python (NUMBA_DISABLE_JIT=1)

FREESTYLE = Rules.gomoku(15, 5, "freestyle")
# Black to move: J8 makes two open threes (G8-J8 and J8-J10).
DOUBLE_THREE = (["G8", "H8", "J10", "J9"], ["A1", "A15", "P1", "P15"])
# White to move against that double three, with A1-A3: A4 makes a four (A5 stops it), which only delays.
THREATENED = (["G8", "H8", "J10", "J9"], ["A1", "A2", "A3"])


class Favourite:
    """Near-uniform priors with ``vertices`` far ahead (a network that likes them), value 0."""

    def __init__(self, vertices: Sequence[str], size: int = 15) -> None:
        self.actions = [gtp_to_action(v, size) for v in vertices]

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        masks = np.stack([p.legal_mask() for p in positions]).astype(np.float32)
        priors = masks.copy()
        priors[:, self.actions] *= 1000.0
        return Evaluation(priors / priors.sum(axis=1, keepdims=True), np.zeros(len(positions), np.float32))


def _has_victory(game: Game) -> bool:
    """Whether the side to move has a victory by threats within the guard's bounds."""
    return victory_point(game, int(game.position.to_play), depth=VCT_DEPTH, budget=VCT_BUDGET) >= 0


def _after(game: Game, vertex: str) -> Game:
    after = game.copy()
    after.play(gtp_to_action(vertex, game.rules.size))
    return after


def test_a_victory_by_threats_is_the_only_move() -> None:
    game = play_stones(FREESTYLE, *DOUBLE_THREE)
    allowed = guarded_moves(game, UniformEvaluator())
    assert allowed is not None and allowed.sum() == 1
    assert allowed[gtp_to_action("J8", 15)]


def test_a_threatened_player_searches_only_the_moves_that_stop_the_threat() -> None:
    game = play_stones(FREESTYLE, *THREATENED)
    assert not _has_victory(game) and _has_victory(game.with_side_to_move(BLACK))   # black threatens
    allowed = guarded_moves(game, Favourite(["N2", "A4", "K8", "G7"]))
    assert allowed is not None
    assert allowed[gtp_to_action("J8", 15)]   # the double three's own point
    for action in np.flatnonzero(allowed):
        after = game.copy()
        after.play(int(action))
        assert not _has_victory(after)
    assert not allowed[gtp_to_action("N2", 15)] and _has_victory(_after(game, "N2"))


def test_a_four_that_only_delays_is_no_defence() -> None:
    game = play_stones(FREESTYLE, *THREATENED)
    allowed = guarded_moves(game, Favourite(["A4"]))
    assert allowed is not None and not allowed[gtp_to_action("A4", 15)]
    delayed = _after(_after(game, "A4"), "A5")   # black stops the four; its threat stands
    assert _has_victory(delayed.with_side_to_move(BLACK))


def test_defences_are_the_moves_after_which_the_opponent_has_no_victory() -> None:
    game = play_stones(FREESTYLE, *THREATENED)
    assert victory_point(game, WHITE) == -1
    assert victory_point(game.with_side_to_move(BLACK), BLACK) == victory_point(game, BLACK) >= 0
    found = defences(game)
    assert gtp_to_action("J8", 15) in found and gtp_to_action("A4", 15) not in found
    fours = {gtp_to_action(v, 15) for v in ("A4", "A5")}   # black stops them first: checked above
    for action in np.flatnonzero(game.legal_mask()[:-1]):
        if int(action) not in fours:
            after = game.copy()
            after.play(int(action))
            assert (int(action) in found) == (not _has_victory(after)), action
    assert defences(game, [gtp_to_action("N2", 15), gtp_to_action("J8", 15)]) == [gtp_to_action("J8", 15)]


def test_quiet_positions_and_go_are_left_alone() -> None:
    assert guarded_moves(play_stones(FREESTYLE, ["H8", "J9"], ["A1"]), UniformEvaluator()) is None
    assert guarded_moves(Game(FREESTYLE), UniformEvaluator()) is None
    assert guarded_moves(play_stones(Rules.go(9), ["E5"], ["D4"]), UniformEvaluator()) is None


def _player(guard: bool) -> Player:
    config = PlayerConfig(visits=32, resign_threshold=None, threat_guard=guard, search=SearchConfig(batch_size=8))
    return Player(Favourite(["N2"]), config, seed=0)


def test_the_player_guards_the_moves_it_plays_but_not_its_analysis() -> None:
    game = play_stones(FREESTYLE, *THREATENED)
    allowed = guarded_moves(game, Favourite(["N2"]))
    assert allowed is not None
    decision = _player(True).choose(game)
    assert decision.action is not None and allowed[decision.action]
    assert _player(False).choose(game).action == gtp_to_action("N2", 15)   # what it plays unguarded
    analysis = _player(True).analyse(game, visits=32)
    assert analysis.visits[gtp_to_action("N2", 15)] > 0


def test_a_passed_deadline_stops_the_reading() -> None:
    """Nothing is read once the deadline passed: no victory is found, every move stays searchable, no
    defence is proved."""
    passed = Deadline(time.monotonic())
    double_three = play_stones(FREESTYLE, *DOUBLE_THREE)
    assert victory_point(double_three, BLACK) == gtp_to_action("J8", 15)
    assert victory_point(double_three, BLACK, deadline=passed) == -1
    assert victory_point(double_three, BLACK, deadline=Deadline.after(60.0)) == gtp_to_action("J8", 15)
    assert guarded_moves(double_three, UniformEvaluator(), deadline=passed) is None
    threatened = play_stones(FREESTYLE, *THREATENED)
    assert defences(threatened, deadline=passed) == []
    assert defences(threatened, [gtp_to_action("J8", 15)], deadline=Deadline.after(60.0)) == [gtp_to_action("J8", 15)]
