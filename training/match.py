"""``evaluate``: matches between two players, with alternating colours and batched searches.

A player is a model file, ``random`` (uniformly random legal moves),
``mcts-rollouts[:N]`` (pure MCTS: N simulations per move, each leaf valued by
one random playout, c_puct 5 and no first-play reduction; default N = 1000,
the seeds' yardstick) or, in Gomoku, ``gomokubench[:LEVEL]`` (the alpha-beta
player of the gomokubench package, :mod:`training.gomokubench`; default its
strongest level, ``hard``). Model players play by the match's
:class:`~engine.search.player.PlayerConfig`. Several games run
at once; the searches of the games in flight share one call per evaluator and
step (:func:`training.batching.play_in_flight`). Game i has player A as black when i is even.
Games differ through the opening moves, sampled from the visits for the player's first
``temperature_moves`` moves, and a random board symmetry per evaluation.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine import (
    BLACK,
    WHITE,
    Color,
    Evaluator,
    Game,
    Outcome,
    Player,
    PlayerConfig,
    RolloutEvaluator,
    Rules,
    SearchConfig,
    SearchJob,
    dump_sgf,
    write_text,
)
from training.baselines import Mover, random_move
from training.batching import play_in_flight
from training.selfplay import search_comment
from training.stats import elo_difference, elo_interval, signed, wilson_interval

__all__ = ["MatchConfig", "Agent", "MatchResult", "make_agent", "play_match", "is_baseline", "is_local", "match_rules",
           "DEFAULT_ROLLOUT_VISITS", "BASELINES"]

DEFAULT_ROLLOUT_VISITS = 1000
BASELINES = "random, mcts-rollouts[:N], gomokubench[:easy|standard|hard]"
"""The baseline players' names, as error messages list them."""


def _match_player() -> PlayerConfig:
    """How model players play a match: 400 visits, no noise, the first 2 moves sampled from the visits
    (so that games differ), resignation at -0.95 three times running, tree reuse, Gomoku's threat guard;
    games are scored as the board stands (no dead-stone estimate)."""
    return PlayerConfig(visits=400, noise=False, temperature=1.0, temperature_moves=2, resign_threshold=-0.95,
                        resign_consecutive=3, reuse_tree=True, remove_dead_stones=False, threat_guard=True,
                        search=SearchConfig(batch_size=8))


@dataclass(frozen=True)
class MatchConfig:
    """Games, games in flight, how model players play (``player``: visits, leaf batch, opening, resignation)."""

    games: int = 100
    parallel_games: int = 8
    player: PlayerConfig = field(default_factory=_match_player)
    seed: int = 0


@dataclass
class Agent:
    """A match player: with an ``evaluator`` a :class:`Player` with ``config`` searches its moves; without
    one ``mover`` chooses them (default: uniformly random legal moves)."""

    name: str
    evaluator: Evaluator | None = None
    config: PlayerConfig = field(default_factory=_match_player)
    mover: Mover = random_move

    def player(self, seed: int) -> Player | None:
        return None if self.evaluator is None else Player(self.evaluator, self.config, seed=seed)

    @property
    def visits(self) -> int:
        """Root visits of each move's search."""
        assert self.config.visits is not None
        return self.config.visits


def is_baseline(spec: str) -> bool:
    """Whether ``spec`` names a baseline player rather than a model file."""
    word = spec.strip().lower().partition(":")[0]
    return word in ("random", "mcts-rollouts", "gomokubench")


def is_local(spec: str) -> bool:
    """Whether ``spec`` names a player this process runs, a baseline or a model file, rather than a GTP
    engine's command line. A model file is an existing file that is not executable: ``/usr/games/gnugo``
    alone is a command."""
    if is_baseline(spec):
        return True
    path = spec.strip()
    return bool(path) and not any(c.isspace() for c in path) and os.path.isfile(path) and not os.access(path, os.X_OK)


def match_rules(a: str, b: str, rules_text: str | None = None, game: str | None = None, size: int | None = None,
                win_length: int | None = None) -> Rules:
    """The rules of a match between players ``a`` and ``b``: a model's (:func:`~training.models.model_rules`),
    or with two baselines ``rules_text``, else ``game``'s defaults on ``size``. ValueError when a player is
    neither a model file nor a baseline, or two baselines leave the game or board open."""
    from engine import read_info
    from training.models import default_rules, model_rules

    models = [spec for spec in (a, b) if not is_baseline(spec)]
    for spec in models:
        if not Path(spec).is_file():
            raise ValueError(f"{spec} is neither a model file nor a baseline ({BASELINES})")
    if models:
        return model_rules(read_info(models[0]), rules_text, size, win_length)
    if rules_text:
        return Rules.parse(rules_text, size=size)
    if game is None or size is None:
        raise ValueError("two baselines: give the rules, or the game and the board size")
    return default_rules(game, size, win_length)


def make_agent(spec: str, rules: Rules, config: MatchConfig, options: Any = None) -> Agent:
    """The player ``spec`` names: ``random``, ``mcts-rollouts[:N]``, ``gomokubench[:LEVEL]`` or a model path
    (loaded for ``rules``)."""
    word = spec.strip().lower()
    if word == "random":
        return Agent("random")
    if word == "gomokubench" or word.startswith("gomokubench:"):
        from training.gomokubench import STRONGEST, GomokubenchPlayer

        mover = GomokubenchPlayer(word.partition(":")[2] or STRONGEST)
        mover.check_rules(Game(rules))
        return Agent(f"gomokubench:{mover.level}", mover=mover)
    if word == "mcts-rollouts" or word.startswith("mcts-rollouts:"):
        _, _, count = word.partition(":")
        try:
            visits = int(count) if count else DEFAULT_ROLLOUT_VISITS
        except ValueError:
            raise ValueError(f"bad baseline {spec!r}: expected mcts-rollouts:N with a whole number N") from None
        if visits < 2:
            raise ValueError(f"mcts-rollouts needs at least 2 simulations per move, not {visits}")
        search = config.player.search.for_rollouts(try_every_move=False)
        return Agent(f"mcts-rollouts:{visits}", RolloutEvaluator(1, config.seed),
                     replace(config.player, visits=visits, search=search, threat_guard=False))
    from engine import EvaluatorOptions, load_evaluator, read_info

    options = options or EvaluatorOptions(random_symmetry=True)
    evaluator = load_evaluator(rules, spec, options)
    return Agent(read_info(spec).name, evaluator, config.player)


@dataclass
class MatchResult:
    """A's results against B. ``a_as_black`` counts A's wins and games with black."""

    a: str
    b: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    a_black_wins: int = 0
    a_black_games: int = 0
    moves: int = 0
    seconds: float = 0.0
    a_move_seconds: float = 0.0  # mean thinking time a move (GTP matches: a genmove's answer time)
    b_move_seconds: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else 0.5

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.score, self.games)

    @property
    def elo(self) -> float:
        return elo_difference(self.rate, self.games)

    def elo_interval(self) -> tuple[float, float]:
        return elo_interval(self.score, self.games)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        elo_low, elo_high = self.elo_interval()
        return {"a": self.a, "b": self.b, "games": self.games, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "a_black_wins": self.a_black_wins, "a_black_games": self.a_black_games,
                "win_rate": self.rate, "win_rate_interval": [low, high], "elo": self.elo,
                "elo_interval": [elo_low, elo_high], "moves": self.moves, "seconds": self.seconds,
                "a_move_seconds": self.a_move_seconds, "b_move_seconds": self.b_move_seconds}

    def add(self, outcome: Outcome, a_color: Color, moves: int) -> None:
        """Count one finished game in which A played ``a_color``."""
        self.moves += moves
        value = outcome.value_for(a_color)
        self.wins += value > 0
        self.losses += value < 0
        self.draws += value == 0
        if a_color == Color.BLACK:
            self.a_black_games += 1
            self.a_black_wins += value > 0

    def describe(self) -> str:
        low, high = self.interval()
        elo_low, elo_high = self.elo_interval()
        return (f"{self.a} vs {self.b}: {self.wins} wins, {self.losses} losses, {self.draws} draws in {self.games} "
                f"games ({self.a_black_wins}/{self.a_black_games} wins as black); win rate {100 * self.rate:.1f}% "
                f"[95% CI {100 * low:.1f}-{100 * high:.1f}%], Elo {signed(self.elo)} [{signed(elo_low)}, "
                f"{signed(elo_high)}]")


class _MatchGame:
    """One game in flight: the two players and the current move's search."""

    def __init__(self, index: int, rules: Rules, black: Agent, white: Agent, seed: int) -> None:
        self.index = index
        self.game = Game(rules)
        self.agents = {BLACK: black, WHITE: white}
        self.players = {BLACK: black.player(seed), WHITE: white.player(seed + 1)}
        self.rng = np.random.default_rng(seed)
        self.comments: list[str | None] = []
        self.job: SearchJob | None = None
        self.advance()

    def advance(self) -> None:
        """Play random players' moves until a search is needed (started here) or the game is over."""
        self.job = None
        while not self.game.is_over:
            color = int(self.game.to_play)
            player = self.players[color]
            if player is not None:
                agent = self.agents[color]
                assert agent.evaluator is not None
                self.job = SearchJob(player.search_for(self.game, to_play=True), agent.evaluator, agent.visits)
                return
            self.game.play(self.agents[color].mover(self.game, self.rng))
            self.comments.append(None)

    def play_searched(self) -> None:
        """Decide and play (or resign) after the search, then advance to the next search."""
        assert self.job is not None
        result = self.job.result()
        mover = self.game.to_play
        decision = self.players[int(mover)].decide(self.game, result)  # type: ignore[union-attr]
        if decision.resign:
            self.game.resign(mover)
        else:
            assert decision.action is not None
            self.comments.append(search_comment(result, True, self.game.rules.size))
            self.game.play(decision.action)
        self.advance()


def play_match(a: Agent, b: Agent, rules: Rules, config: MatchConfig, sgf_dir: str | Path | None = None,
               on_game: Callable[[MatchResult], None] | None = None) -> MatchResult:
    """Play ``config.games`` games of A against B, colours alternating, and return A's results."""
    result = MatchResult(a.name, b.name)
    rng = np.random.default_rng(config.seed)
    started = time.perf_counter()

    def start(index: int) -> _MatchGame:
        black, white = (a, b) if index % 2 == 0 else (b, a)
        return _MatchGame(index, rules, black, white, int(rng.integers(2 ** 62)))

    def over(match: _MatchGame) -> None:
        _finish(match, result, a, b, sgf_dir)
        if on_game is not None:
            on_game(result)

    play_in_flight(start, config.games, config.parallel_games, over)
    result.seconds = time.perf_counter() - started
    return result


def _finish(match: _MatchGame, result: MatchResult, a: Agent, b: Agent, sgf_dir: str | Path | None) -> None:
    a_color = Color.BLACK if match.index % 2 == 0 else Color.WHITE
    outcome = match.game.outcome()
    assert outcome is not None
    result.add(outcome, a_color, len(match.game.moves))
    if sgf_dir is not None:
        black, white = (a, b) if a_color == Color.BLACK else (b, a)
        text = dump_sgf(match.game, black_name=black.name, white_name=white.name, comments=match.comments,
                        properties={"GN": f"{a.name} vs {b.name}, game {match.index + 1}"})
        write_text(Path(sgf_dir) / f"game-{match.index + 1:04d}.sgf", text)
