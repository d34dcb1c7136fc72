"""The player seam of every match: what a referee speaks to, and the player that plays in this process.

A :class:`MatchPlayer` starts a game under given rules (``new_game``), takes
Black's handicap stones if the game has them (``place_handicap``), hears
every move (``play``), makes its own (``genmove``) and may judge a finished Go
game (``final_score``). Two adapters:

* :class:`LocalPlayer` plays in this process, as an :class:`Agent` describes it:
  a network searched by the engine's :class:`~engine.Player`, pure MCTS with
  random playouts, or a player without a search tree (random moves,
  gomokubench's alpha-beta);
* :class:`~training.gtp_player.GtpPlayer` is another engine's process, spoken to
  in GTP (:class:`~training.player_process.PlayerProcess` is a LocalPlayer in a
  child process of its own).

``genmove`` is a generator: an in-process search begins its move through the
player's one seam (:meth:`~engine.Player.begin`) and yields the move's
:class:`~engine.SearchJob`, so that a scheduler steps the searches of many games
with one network call per step (:func:`training.batching.play_in_flight`); it
finishes the move into the player's decision and returns the action, or None to
resign. A player in another process yields nothing.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import numpy as np

from engine import (
    DEFAULT_PLAYOUTS,
    Color,
    EngineError,
    Evaluator,
    Game,
    Outcome,
    Player,
    PlayerConfig,
    Rules,
    SearchJob,
    estimate_ownership,
    judged_outcome,
    playout_ownership,
    step,
    with_handicap_bonus,
)
from training.baselines import Mover, random_move
from training.match_config import match_player_config
from training.selfplay import search_comment

__all__ = ["Moves", "MatchPlayer", "Agent", "LocalPlayer", "play_through"]

Moves = Generator[SearchJob, None, "int | None"]
"""A genmove in progress: the searches it needs stepped, then the action it plays (None: it resigns)."""
_Result = TypeVar("_Result")


class MatchPlayer(Protocol):
    """One seat of a match: a player that plays one game at a time. ``name`` is how game records and errors
    call it; ``comment`` what its last move's search saw (None where it did not say); ``genmoves`` and
    ``genmove_seconds`` count its moves and the seconds from asking for each to its answer."""

    name: str
    comment: str | None
    genmoves: int
    genmove_seconds: float

    def new_game(self, rules: Rules, seed: int) -> None:
        """Start an empty board under ``rules``; ``seed`` draws what is random in this game's play."""

    def place_handicap(self, actions: Sequence[int]) -> None:
        """Put Black's handicap stones (GTP's fixed placement, in its order) on the new game's empty board; White
        moves next."""

    def play(self, color: Color, action: int) -> None:
        """Hear another player's move (a random opening move too)."""

    def genmove(self, color: Color) -> Moves:
        """Choose ``color``'s move and play it on its own board."""

    def final_score(self) -> Outcome | None:
        """Its judgement of the game as it stands, dead stones removed (None: it has none)."""

    def close(self) -> None:
        """Stop what it runs (a process); it plays no more."""


@dataclass
class Agent:
    """A player of this process: with an ``evaluator`` a :class:`~engine.Player` with ``config`` searches its
    moves; without one ``mover`` chooses them (default: uniformly random legal moves). As a match's contestant its
    seats are :class:`LocalPlayer` s called ``name``."""

    name: str
    evaluator: Evaluator | None = None
    config: PlayerConfig = field(default_factory=match_player_config)
    mover: Mover = random_move

    @property
    def seat_name(self) -> str:
        return self.name

    def seat(self, job: int = 0) -> LocalPlayer:
        """A new seat: the agents' seats share the evaluator (and its cache), each has its own tree."""
        return LocalPlayer(self)


class LocalPlayer:
    """The in-process adapter: ``agent`` plays on a board of its own."""

    def __init__(self, agent: Agent, name: str | None = None) -> None:
        self.agent = agent
        self.name = name or agent.name
        self.comment: str | None = None
        self.genmoves = 0
        self.genmove_seconds = 0.0
        self._game: Game | None = None
        self._player: Player | None = None
        self._rng = np.random.default_rng()
        self._seed: int | None = None

    @property
    def game(self) -> Game:
        if self._game is None:
            raise ValueError(f"{self.name} has no game: start one with new_game")
        return self._game

    def new_game(self, rules: Rules, seed: int) -> None:
        self._game = Game(rules)
        self._rng = np.random.default_rng(seed)
        self._seed = seed
        evaluator = self.agent.evaluator
        self._player = None if evaluator is None else Player(evaluator, self.agent.config, seed=seed)

    def place_handicap(self, actions: Sequence[int]) -> None:
        """The stones on a board played and scored at the komi plus White's handicap bonus, as ``engine gtp``
        plays a handicap game (:func:`~engine.with_handicap_bonus`)."""
        if self.game.moves:
            raise EngineError("handicap stones go on an empty board")
        game = Game(with_handicap_bonus(self.game.rules, len(actions)))
        game.place_handicap(actions)
        self._game = game

    def play(self, color: Color, action: int) -> None:
        self.game.play(action, color)

    def genmove(self, color: Color) -> Moves:
        started = time.perf_counter()
        game = Player.for_color(self.game, color)
        if self._player is None:
            action: int | None = self.agent.mover(game, self._rng)
            self.comment = None
        else:
            move = self._player.begin(game)
            if move.job is not None:
                yield move.job
            decision = move.finish()
            action = decision.action
            self.comment = None if action is None or decision.search is None else search_comment(
                decision.search, True, game.rules.size)
        if action is not None:
            self.game.play(action, color)
        self.genmoves += 1
        self.genmove_seconds += time.perf_counter() - started
        return action

    def final_score(self) -> Outcome | None:
        """Go: the board with the stones that the ownership calls dead removed (the network's, or random
        playouts' where it has none), as ``engine gtp`` scores; Gomoku: the rules' verdict."""
        game = self.game
        if game.rules.game != "go":
            return game.outcome()
        evaluator = self.agent.evaluator
        ownership = (playout_ownership(game, DEFAULT_PLAYOUTS, seed=self._seed) if evaluator is None
                     else estimate_ownership(evaluator, game, seed=self._seed))
        return judged_outcome(game, ownership)

    def close(self) -> None:
        """Nothing to stop: it plays in this process."""


def play_through(searches: Generator[SearchJob, None, _Result]) -> _Result:
    """A genmove, or a whole refereed game, played alone: each search it yields stepped to its end; what it
    returns."""
    try:
        job = next(searches)
        while True:
            while not job.finished:
                step([job])
            job = searches.send(None)
    except StopIteration as stop:
        return stop.value
