"""``evaluate``: matches between two players, with alternating colours and batched searches.

A player is a model file, ``random`` (uniformly random legal moves) or
``mcts-rollouts[:N]`` (pure MCTS: N simulations per move, each leaf valued by
one random playout, c_puct 5 and no first-play reduction; default N = 1000,
the seeds' yardstick). Several games run
at once; the searches of the games in flight share one call per evaluator and
step (:mod:`training.batching`). Game i has player A as black when i is even.
Games differ through the opening moves, sampled from the visits for the first
``temperature_moves`` moves, and a random board symmetry per evaluation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
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
    Rules,
    SearchConfig,
    dump_sgf,
    write_text,
)
from training.baselines import RolloutEvaluator, random_move
from training.batching import SearchJob, step
from training.selfplay import search_comment
from training.stats import elo_difference, elo_interval, signed, wilson_interval

__all__ = ["MatchConfig", "Agent", "MatchResult", "make_agent", "play_match", "is_baseline", "DEFAULT_ROLLOUT_VISITS"]

DEFAULT_ROLLOUT_VISITS = 1000
ROLLOUT_C_PUCT = 5.0
"""Exploration of pure MCTS, as the seeds' rollout player has it: with uniform priors over ~N*N moves
the network's c_puct (1.25) would keep revisiting the first child that looks no worse than its parent."""


@dataclass(frozen=True)
class MatchConfig:
    """Games, visits per move of model players, games in flight, leaf batch, opening randomness, resignation."""

    games: int = 100
    visits: int = 400
    parallel_games: int = 8
    batch_size: int = 8
    temperature: float = 1.0
    temperature_moves: int = 2
    resign_threshold: float | None = -0.95
    resign_consecutive: int = 3
    seed: int = 0


@dataclass
class Agent:
    """A match player: ``evaluator`` None plays random moves; otherwise a search of ``visits`` visits."""

    name: str
    evaluator: Evaluator | None = None
    visits: int = 0
    batch_size: int = 8
    config: MatchConfig = field(default_factory=MatchConfig)
    c_puct: float = 1.25
    fpu_reduction: float = 0.25

    def player(self, seed: int) -> Player | None:
        if self.evaluator is None:
            return None
        cfg = self.config
        search = SearchConfig(c_puct=self.c_puct, fpu_reduction=self.fpu_reduction, batch_size=self.batch_size)
        config = PlayerConfig(visits=self.visits, noise=False, temperature=cfg.temperature,
                              temperature_moves=cfg.temperature_moves, resign_threshold=cfg.resign_threshold,
                              resign_consecutive=cfg.resign_consecutive, reuse_tree=True,
                              remove_dead_stones=False, search=search)  # games are scored as the board stands
        return Player(self.evaluator, config, seed=seed)


def is_baseline(spec: str) -> bool:
    """Whether ``spec`` names a baseline player rather than a model file."""
    word = spec.strip().lower()
    return word == "random" or word == "mcts-rollouts" or word.startswith("mcts-rollouts:")


def make_agent(spec: str, rules: Rules, config: MatchConfig, options: Any = None) -> Agent:
    """The player ``spec`` names: ``random``, ``mcts-rollouts[:N]`` or a model path (loaded for ``rules``)."""
    word = spec.strip().lower()
    if word == "random":
        return Agent("random", config=config)
    if word == "mcts-rollouts" or word.startswith("mcts-rollouts:"):
        _, _, count = word.partition(":")
        try:
            visits = int(count) if count else DEFAULT_ROLLOUT_VISITS
        except ValueError:
            raise ValueError(f"bad baseline {spec!r}: expected mcts-rollouts:N with a whole number N") from None
        if visits < 2:
            raise ValueError(f"mcts-rollouts needs at least 2 simulations per move, not {visits}")
        return Agent(f"mcts-rollouts:{visits}", RolloutEvaluator(1, config.seed), visits, batch_size=1, config=config,
                     c_puct=ROLLOUT_C_PUCT, fpu_reduction=0.0)
    from engine import EvaluatorOptions, load_evaluator, read_info

    options = options or EvaluatorOptions(random_symmetry=True)
    evaluator = load_evaluator(rules, spec, options)
    return Agent(read_info(spec).name, evaluator, config.visits, batch_size=config.batch_size, config=config)


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
                "elo_interval": [elo_low, elo_high], "moves": self.moves, "seconds": self.seconds}

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

    def advance(self) -> None:
        """Play random players' moves until a search is needed (started here) or the game is over."""
        self.job = None
        while not self.game.is_over:
            color = int(self.game.to_play)
            player = self.players[color]
            if player is not None:
                agent = self.agents[color]
                assert agent.evaluator is not None
                self.job = SearchJob(player.search_for(self.game), agent.evaluator, agent.visits)
                return
            self.game.play(random_move(self.game, self.rng))
            self.comments.append(None)

    def finish_move(self) -> None:
        assert self.job is not None
        result = self.job.result()
        mover = self.game.to_play
        decision = self.players[int(mover)].decide(self.game, result)  # type: ignore[union-attr]
        if decision.resign:
            self.game.resign(mover)
            return
        assert decision.action is not None
        self.comments.append(search_comment(result, True, self.game.rules.size))
        self.game.play(decision.action)


def play_match(a: Agent, b: Agent, rules: Rules, config: MatchConfig, sgf_dir: str | Path | None = None,
               on_game: Callable[[MatchResult], None] | None = None) -> MatchResult:
    """Play ``config.games`` games of A against B, colours alternating, and return A's results."""
    result = MatchResult(a.name, b.name)
    rng = np.random.default_rng(config.seed)
    started = time.perf_counter()
    active: list[_MatchGame] = []
    begun = 0
    while begun < config.games or active:
        while len(active) < config.parallel_games and begun < config.games:
            black, white = (a, b) if begun % 2 == 0 else (b, a)
            match = _MatchGame(begun, rules, black, white, int(rng.integers(2 ** 62)))
            match.advance()
            active.append(match)
            begun += 1
        step([match.job for match in active if match.job is not None])
        for match in list(active):
            if match.job is not None and match.job.finished:
                match.finish_move()
                match.advance()
            if match.game.is_over:
                active.remove(match)
                _finish(match, result, a, b, sgf_dir)
                if on_game is not None:
                    on_game(result)
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
