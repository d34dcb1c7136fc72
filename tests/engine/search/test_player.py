"""Player decisions: the colour asked for, resignation, passing, cleanup, playing on, temperature, reuse, time."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE, Color, GameOverError
from engine.search.config import PlayerConfig, SearchConfig
from engine.search.deadline import Deadline
from engine.search.evaluator import Evaluation
from engine.search.mcts import SearchResult
from engine.search.player import GUARD_SHARE, Player
from engine.search.resign import earliest_resignation


class Constant:
    """Uniform priors; every position is worth ``value`` to black (so ``-value`` to white)."""

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        masks = np.stack([p.legal_mask() for p in positions]).astype(np.float32)
        priors = masks / np.maximum(masks.sum(axis=1, keepdims=True), 1)
        values = [self.value if p.to_play == BLACK else -self.value for p in positions]
        return Evaluation(priors, np.asarray(values, np.float32))


def _player(value: float = 0.0, **options: object) -> Player:
    config = PlayerConfig(**{"visits": 64, "search": SearchConfig(batch_size=8), **options})  # type: ignore[arg-type]
    return Player(Constant(value), config, seed=0)


def test_plays_for_the_colour_asked_even_out_of_turn() -> None:
    game = Game(Rules.go(9))
    decision = _player().choose(game, WHITE)
    assert decision.action is not None and not decision.resign
    game.play(decision.action, WHITE)  # legal for white although black was to move
    assert game.moves[-1].color == Color.WHITE


@pytest.mark.parametrize("rules, moves", [
    (Rules.gomoku(9, 5), ["A1", "A9", "B1", "B9", "C1", "C9", "D1", "D9", "E1"]),   # black's five on the first line
    (Rules.chain_reaction(2), ["A1", "A2", "A1"]),                     # black's corner explodes and takes A2
], ids=["gomoku", "chain-reaction"])
def test_resigns_a_lost_game_that_is_over_and_has_no_move_in_a_won_one(rules: Rules, moves: list[str]) -> None:
    game = Game(rules)
    for vertex in moves:
        game.play(gtp_to_action(vertex, rules.size))
    decision = _player().choose(game, WHITE)
    assert decision.resign and decision.action is None and decision.search is None
    with pytest.raises(GameOverError, match="the game is over"):
        _player().choose(game, BLACK)


def test_resigns_only_after_several_hopeless_moves() -> None:
    player = _player(value=-0.99, resign_threshold=-0.9, resign_consecutive=3)
    game = Game(Rules.go(9))
    assert [player.choose(game).resign for _ in range(3)] == [False, False, True]


def test_never_resigns_without_a_threshold() -> None:
    player = _player(value=-1.0, resign_threshold=None)
    game = Game(Rules.go(9))
    assert not any(player.choose(game).resign for _ in range(4))


class Scored(Constant):
    """:class:`Constant` with a score head: black leads by ``lead`` points everywhere."""

    def __init__(self, value: float, lead: float) -> None:
        super().__init__(value)
        self.lead = lead

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        black = np.asarray([1.0 if p.to_play == BLACK else -1.0 for p in positions], np.float32)
        return super().evaluate(positions, legal)._replace(score_mean=self.lead * black,
                                                           score_stdev=np.full(len(positions), 5.0, np.float32))


def _resignations(player: Player, game: Game, white_moves: int) -> list[bool]:
    """Whether white (to move) resigned at each of its moves, black answering with the same player's moves."""
    resigned = []
    for _ in range(white_moves):
        decision = player.choose(game)
        resigned.append(decision.resign)
        if decision.resign:
            break
        game.play(decision.action)
        game.play(player.choose(game).action)
    return resigned


def test_a_side_giving_handicap_plays_on_until_the_handicap_allows_resigning() -> None:
    """Two stones on 9x9: nobody resigns in the first 9 moves (4 a stone at 1/18 of the board each); white's
    hopeless moves count from its move 10 on, so it resigns at its third after that, its eighth in all."""
    game = Game(Rules.go(9, komi=0.5))
    game.place_handicap([gtp_to_action("C3", 9), gtp_to_action("G7", 9)])
    assert earliest_resignation(game) == 9
    player = _player(value=0.99, resign_threshold=-0.9, resign_consecutive=3)
    assert _resignations(player, game, 10) == [False] * 7 + [True]


@pytest.mark.parametrize("lead, resigns", [(30.0, True), (5.0, False)])
def test_a_hopeless_value_resigns_only_with_the_score_far_enough_behind(lead: float, resigns: bool) -> None:
    player = Player(Scored(0.99, lead), PlayerConfig(visits=16, search=SearchConfig(batch_size=8),
                                                     resign_min_score=10.0), seed=0)
    game = Game(Rules.go(9))
    game.play(gtp_to_action("E5", 9))
    resigned = _resignations(player, game, 5)
    assert resigned == ([False, False, True] if resigns else [False] * 5)


class HopelessButScored(Constant):
    """Uniform priors; black wins every position (0.99), and a stone on ``good`` is worth 10 points to its
    owner (the score, from the side to move)."""

    def __init__(self, good: int) -> None:
        super().__init__(0.99)
        self.good = good

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        leads = []
        for p in positions:
            owner = int(p.board().reshape(-1)[self.good])
            lead = 30.0 + {0: 0.0, BLACK: 10.0, WHITE: -10.0}[owner]   # black's
            leads.append(lead if p.to_play == BLACK else -lead)
        return super().evaluate(positions, legal)._replace(score_mean=np.asarray(leads, np.float32),
                                                           score_stdev=np.full(len(positions), 5.0, np.float32))


def test_white_giving_handicap_plays_for_points_where_every_move_reads_lost() -> None:
    """Every move is lost for white by the win rate; only the score tells that C3 gains 10 points. With the
    handicap score utility (every player's default) white plays it; in an even game, or with the utility off, the
    visits ignore it."""
    good = gtp_to_action("C3", 9)
    config = PlayerConfig(visits=200, search=SearchConfig(batch_size=4), resign_threshold=None)  # on by default
    handicap = Game(Rules.go(9, komi=0.5))
    handicap.place_handicap([gtp_to_action("G7", 9), gtp_to_action("G3", 9)])
    even = Game(Rules.go(9, komi=0.5))
    even.play(gtp_to_action("G7", 9))
    decision = Player(HopelessButScored(good), config, seed=0).choose(handicap)
    assert decision.action == good and decision.search is not None
    for game, player_config in ((even, config), (handicap, replace(config, handicap_score_utility=0.0))):
        search = Player(HopelessButScored(good), player_config, seed=0).choose(game).search
        assert search is not None and search.visits[good] <= 2 * np.median(search.visits[search.visits > 0])


class ShunsPass(Constant):
    """Constant's values, and no prior on pass: a search that never visits it."""

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        evaluation = super().evaluate(positions, legal)
        evaluation.priors[:, -1] = 0.0
        return evaluation


@pytest.mark.parametrize("scoring", ["chinese", "japanese"])
def test_passes_back_when_the_opponent_passed_and_the_game_is_won(scoring: str) -> None:
    """Under area and territory scoring alike: black's C3 owns the settled 5x5 board, so black ends the game
    even where its search never looked at the pass."""
    game = Game(Rules.go(5, scoring, komi=0.5))
    for vertex in ["C3", "pass"]:
        game.play(gtp_to_action(vertex, 5))
    assert _player().choose(game).action == game.rules.pass_action
    config = PlayerConfig(visits=64, search=SearchConfig(batch_size=8))
    assert Player(ShunsPass(0.0), config, seed=0).choose(game).action == game.rules.pass_action


def test_does_not_pass_into_a_loss() -> None:
    """White passed; black is behind on the board, so black must not end the game by passing."""
    game = Game(Rules.go(5, "chinese", komi=0.5))
    game.setup(white=[gtp_to_action("C3", 5)], to_play=WHITE)
    game.play(game.rules.pass_action)  # white passes: black to move, white owns the board
    for _ in range(5):
        decision = _player().choose(game)
        assert decision.action != game.rules.pass_action


def test_temperature_samples_in_the_opening_and_is_greedy_after() -> None:
    game = Game(Rules.go(9))
    player = _player(temperature_moves=30, reuse_tree=False)
    sampled = {player.choose(game).action for _ in range(12)}
    assert len(sampled) > 1
    greedy = _player(temperature_moves=0, reuse_tree=False)
    assert len({greedy.choose(game).action for _ in range(4)}) == 1


def test_opening_moves_are_drawn_only_among_the_near_best() -> None:
    """With ``near_best`` 0.5 a move the search visited less than half as often as its favourite is never
    played, however often the opening is drawn; the near-best ones all are; with 0 every visited move is."""
    game = Game(Rules.go(5, "chinese"))
    visits = np.zeros(26, np.float32)
    visits[[12, 7, 13, 6, 0]] = [100, 60, 50, 49, 30]
    result = SearchResult(visits, np.zeros_like(visits), np.full(26, 1 / 26, np.float32), 0.0, 289, 0.1, [])
    player = Player(Constant(), PlayerConfig(temperature_moves=None, near_best=0.5), seed=3)
    chosen = {player.decide(game, result).action for _ in range(300)}
    assert chosen == {12, 7, 13}
    every = Player(Constant(), PlayerConfig(temperature_moves=None), seed=3)
    assert {every.decide(game, result).action for _ in range(300)} == {12, 7, 13, 6, 0}


def test_near_best_is_counted_among_the_moves_not_proven_lost() -> None:
    """The most visited moves proven lost: the opening draws among the near-best of the others (the filter
    once took the lost favourite's visits as its yardstick, kept no move and drew from NaN probabilities)."""
    game = Game(Rules.go(5, "chinese"))
    visits = np.zeros(26, np.float32)
    visits[[12, 6, 7, 13]] = [100, 90, 30, 10]
    proven = np.zeros(26, np.int8)
    proven[[12, 6]] = -1
    result = SearchResult(visits, np.zeros_like(visits), np.full(26, 1 / 26, np.float32), 0.0, 230, 0.1, [],
                          proven=proven)
    player = Player(Constant(), PlayerConfig(temperature_moves=None, near_best=0.5), seed=3)
    assert {player.decide(game, result).action for _ in range(100)} == {7}


def test_a_sharp_temperature_on_many_visits_is_a_distribution() -> None:
    visits = np.zeros(26, np.float32)
    visits[[3, 4]] = [40_000, 39_000]
    result = SearchResult(visits, np.zeros_like(visits), np.full(26, 1 / 26, np.float32), 0.0, 79_000, 0.1, [])
    policy = result.policy(0.01)   # 40,000 ** 100 overflows a float64
    assert np.isfinite(policy).all() and policy.sum() == pytest.approx(1.0) and policy[3] > 0.9


def test_the_opening_is_the_boards_unless_a_count_is_given() -> None:
    visits = np.zeros(26, np.float32)
    visits[[12, 7]] = [100, 100]
    result = SearchResult(visits, np.zeros_like(visits), np.full(26, 1 / 26, np.float32), 0.0, 200, 0.1, [])
    game = Game(Rules.go(5, "chinese"))
    for move in ("A1", "E5", "A5", "E1"):   # a sixth of 25 points: the fifth move is past the opening
        game.play(gtp_to_action(move, 5))
    board = Player(Constant(), PlayerConfig(temperature_moves=None, near_best=0.5), seed=0)
    assert {board.decide(game, result).action for _ in range(40)} == {7}, "argmax: the first of the tied"
    given = Player(Constant(), PlayerConfig(temperature_moves=5, near_best=0.5), seed=0)
    assert {given.decide(game, result).action for _ in range(40)} == {12, 7}


def test_tree_reuse_carries_visits_into_the_next_search() -> None:
    player = _player(visits=200)
    game = Game(Rules.go(9))
    first = player.choose(game)
    game.play(first.action)
    kept = int(first.search.visits[first.action])
    reply = player.choose(game, BLACK if game.to_play == BLACK else WHITE)
    assert reply.search.simulations == 200 - kept


def test_judges_a_game_ending_pass_with_dead_stones_removed() -> None:
    """White's lone A9 stone is dead: passing back would lose, though the bare board says white wins."""
    game = Game(Rules.go(9, "chinese"))
    for vertex in ["E5", "A9", "pass"]:
        game.play(gtp_to_action(vertex, 9))
    assert game.score() < 0  # scored as it stands, white leads on komi
    assert _player().choose(game).action != game.rules.pass_action
    assert _player(remove_dead_stones=False).choose(game).action == game.rules.pass_action


def test_does_not_pass_back_on_an_unsettled_board() -> None:
    """Black passed after two stones: white leads on komi as the board stands, but the board is one
    neutral region, so white plays on (GNU Go, scoring this, calls the A1 stone dead)."""
    game = Game(Rules.go(9, "chinese"))
    for vertex in ["E5", "A1", "pass"]:
        game.play(gtp_to_action(vertex, 9))
    assert game.score() < 0
    for seed in range(3):
        player = Player(Constant(0.0), PlayerConfig(visits=64, search=SearchConfig(batch_size=8)), seed=seed)
        assert player.choose(game).action != game.rules.pass_action
    assert _player(remove_dead_stones=False).choose(game).action == game.rules.pass_action


class WhiteOwnsAll(Constant):
    """Constant's priors and values, and an ownership head that gives white every point."""

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        evaluation = super().evaluate(positions, legal)
        white = np.float32([[1.0 if p.to_play == WHITE else -1.0] * p.size ** 2 for p in positions])
        return evaluation._replace(ownership=white)


def test_judges_a_pass_with_the_networks_ownership_when_it_has_one() -> None:
    """Black's E5 and white's A9, black passed. The playout estimate calls A9 dead, so white plays on
    (see above); a network that calls E5 dead makes the board white's, so white passes back and wins."""
    game = Game(Rules.go(9, "chinese"))
    for vertex in ["E5", "A9", "pass"]:
        game.play(gtp_to_action(vertex, 9))
    config = PlayerConfig(visits=64, search=SearchConfig(batch_size=8))
    assert Player(Constant(0.0), config, seed=0).choose(game).action != game.rules.pass_action
    assert Player(WhiteOwnsAll(0.0), config, seed=0).choose(game).action == game.rules.pass_action


class PassLover(Constant):
    """Every prior on pass: a network that wants to pass whatever the board says."""

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        evaluation = super().evaluate(positions, legal)
        evaluation.priors[:] = 0.0
        evaluation.priors[:, -1] = 1.0
        return evaluation


def _column_e(game: Game, color: Color) -> None:
    stones = [gtp_to_action(f"E{row}", 9) for row in range(1, 10)]
    game.setup(**({"black": stones} if color == Color.BLACK else {"white": stones}), to_play=WHITE)


def test_does_not_pass_first_while_losing_on_the_judged_board() -> None:
    """GTP play judges every pass: white, owning nothing, must not pass although its network wants to."""
    game = Game(Rules.go(9, "chinese"))
    _column_e(game, Color.BLACK)
    judged = Player(PassLover(), PlayerConfig(visits=32, search=SearchConfig(batch_size=8)), seed=0)
    assert judged.choose(game).action != game.rules.pass_action
    strict = Player(PassLover(), PlayerConfig(visits=32, remove_dead_stones=False,
                                               search=SearchConfig(batch_size=8)), seed=0)
    decision = strict.choose(game)  # self-play: a first pass is not judged, but the search proves it lost
    assert decision.search is not None and decision.search.proven[game.rules.pass_action] == -1
    assert decision.action == decision.search.best_action != game.rules.pass_action


def test_passes_first_when_winning_on_the_judged_board() -> None:
    game = Game(Rules.go(9, "chinese"))
    _column_e(game, Color.WHITE)
    judged = Player(PassLover(), PlayerConfig(visits=32, search=SearchConfig(batch_size=8)), seed=0)
    assert judged.choose(game).action == game.rules.pass_action


def test_playing_on_after_a_pass_never_fills_its_own_area() -> None:
    """White passed and leads; black's search likes a pass best, then column A, which black already owns:
    black plays on elsewhere, since moves in its own area cannot gain a point and can fill its own eyes."""
    game = Game(Rules.go(9, "chinese"))
    game.setup(black=[gtp_to_action(f"B{row}", 9) for row in range(1, 10)],
               white=[gtp_to_action(f"D{row}", 9) for row in range(1, 10)], to_play=WHITE)
    game.play(game.rules.pass_action)
    assert game.score() < 0
    column_a = [gtp_to_action(f"A{row}", 9) for row in range(1, 10)]
    visits = np.zeros(game.rules.num_actions, np.float32)
    visits[game.rules.pass_action], visits[column_a], visits[gtp_to_action("G5", 9)] = 50, 10, 1
    result = SearchResult(visits, np.zeros_like(visits), np.zeros_like(visits), -0.5, 100, 0.1, [])
    for strict in (False, True):  # GTP (dead stones judged) and self-play (the board as it stands)
        player = _player(remove_dead_stones=not strict)
        assert player.decide(game, result).action == gtp_to_action("G5", 9)


# ---------------------------------------------------------------- cleanup
def _lone_white_stone_in_blacks_area() -> Game:
    """5x5: black's wall on column C and row 5, a dead white stone on A1; black to move."""
    game = Game(Rules.go(5, "chinese", komi=0.5))
    wall = [gtp_to_action(v, 5) for v in ("C1", "C2", "C3", "C4", "C5", "D5", "E5")]
    game.setup(black=wall, white=[gtp_to_action("A1", 5)], to_play=BLACK)
    return game


def test_cleanup_captures_dead_opponent_stones_instead_of_passing() -> None:
    """The search likes a pass best, then B2, then B1 (by prior): with A1 called dead, black plays B2."""
    game = _lone_white_stone_in_blacks_area()
    visits = np.zeros(game.rules.num_actions, np.float32)
    priors = np.zeros_like(visits)
    visits[game.rules.pass_action], visits[gtp_to_action("B2", 5)] = 50, 3
    priors[gtp_to_action("B1", 5)] = 0.5
    result = SearchResult(visits, np.zeros_like(visits), priors, 0.5, 53, 0.1, [])
    player = _player(remove_dead_stones=False)  # the pass is not judged: the search's choice stands
    a1, c3 = gtp_to_action("A1", 5), gtp_to_action("C3", 5)
    assert player.decide(game, result).action == game.rules.pass_action
    assert player.decide(game, result, dead=[c3]).action == game.rules.pass_action  # only its own stones are dead
    assert player.decide(game, result, dead=[a1]).action == gtp_to_action("B2", 5)
    visits[gtp_to_action("B2", 5)] = 0
    assert player.decide(game, result, dead=[a1]).action == gtp_to_action("B1", 5)  # no visits: the prior decides


def test_cleanup_reaches_the_decision_through_choose() -> None:
    game = _lone_white_stone_in_blacks_area()
    config = PlayerConfig(visits=32, remove_dead_stones=False, search=SearchConfig(batch_size=8))
    assert Player(PassLover(), config, seed=0).choose(game).action == game.rules.pass_action
    cleanup = Player(PassLover(), config, seed=0).choose(game, dead=[gtp_to_action("A1", 5)])
    assert cleanup.action not in (None, game.rules.pass_action)
    assert game.is_legal(cleanup.action)


# ---------------------------------------------------------------- play on
def test_plays_on_in_a_game_that_two_passes_ended_without_changing_it() -> None:
    """GTP knows no end of game: asked for a move after two passes, the player goes on from the board."""
    game = Game(Rules.go(9, "chinese"))
    for vertex in ["E5", "pass", "pass"]:
        game.play(gtp_to_action(vertex, 9))
    assert game.is_over
    decision = _player().choose(game, WHITE)
    assert decision.action is not None and decision.search.simulations > 0
    assert game.is_over and len(game.moves) == 3  # the caller's game is as it was
    game.play_on()
    game.play(decision.action, WHITE)


def test_after_going_on_an_earlier_pass_is_not_answered_by_passing_back() -> None:
    """Black leads on a settled board. With white's pass pending black passes back whatever the search
    says; in a game that went on after two passes no pass is pending, so the search's move stands."""
    game = Game(Rules.go(5, "chinese", komi=0.5))
    visits = np.zeros(game.rules.num_actions, np.float32)
    visits[gtp_to_action("A1", 5)] = 10
    result = SearchResult(visits, np.zeros_like(visits), np.zeros_like(visits), 0.5, 10, 0.1, [])
    for vertex in ["C3", "pass"]:
        game.play(gtp_to_action(vertex, 5), BLACK)  # black twice: black passed, and moves again
    game.play(game.rules.pass_action, WHITE)
    assert game.is_over and game.to_play == Color.BLACK
    game.play_on()
    assert _player().decide(game, result).action == gtp_to_action("A1", 5)
    pending = Game(Rules.go(5, "chinese", komi=0.5))
    for vertex in ["C3", "pass"]:
        pending.play(gtp_to_action(vertex, 5))
    assert np.array_equal(pending.position.board(), game.position.board()) and pending.to_play == Color.BLACK
    assert _player().decide(pending, result).action == game.rules.pass_action


def test_a_timed_move_shares_its_time_between_the_threat_guard_and_the_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard reads until its share of the move's time (here it overruns it, as a threat search under
    way may) and the search has what is left: the move is due when its time is, not the guard's time later."""
    given: list[float] = []

    def slow_guard(game: Game, evaluator: object, *, deadline: Deadline | None = None) -> None:
        assert deadline is not None
        given.append(deadline.remaining())
        time.sleep(0.6)

    player = _player(visits=1_000_000)
    player.choose(Game(Rules.gomoku(9)), seconds=0.1)   # the first search's one-off costs are not the guard's
    monkeypatch.setattr("engine.search.player.guarded_moves", slow_guard)
    player = _player(visits=1_000_000, threat_guard=True)
    started = time.monotonic()
    decision = player.choose(Game(Rules.gomoku(9)), seconds=1.0)
    # due at 1 s; had the search been given its full second after the guard's 0.6 s, 1.6 s
    assert time.monotonic() - started < 1.3 and decision.action is not None
    assert given and given[0] <= GUARD_SHARE * 1.0


def test_a_search_that_visited_nothing_plays_the_best_prior() -> None:
    game = Game(Rules.gomoku(9))
    result = SearchResult(np.zeros(82, np.float32), np.zeros(82, np.float32), np.eye(82, dtype=np.float32)[40],
                          0.0, 1, 0.0, [])
    assert _player().decide(game, result).action == 40


@pytest.mark.slow   # the threat guard's searches take minutes in plain Python (NUMBA_DISABLE_JIT=1)
@pytest.mark.parametrize("rules", [Rules.go(9), Rules.gomoku(15), Rules.gomoku(15, 5, "renju"), Rules.gomoku(7)])
def test_a_rehearsal_plays_two_moves_and_leaves_the_player_fresh(rules: Rules) -> None:
    player = _player(threat_guard=True)
    player.rehearse(rules, visits=16)
    assert player._search is None
