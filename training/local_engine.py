"""A baseline or a model in place of a GTP engine: ``engine match "engine gtp --game gomoku ..." gomokubench:hard``.

:func:`~training.gtp_games.play_game` speaks to its engines through ``send``;
:class:`LocalEngine` answers the commands it sends (``boardsize``,
``clear_board``, ``komi``, ``play``, ``genmove``, ``final_score``, ``quit``) over its own
:class:`~engine.core.game.Game`, choosing its moves as the baseline of the same
name in ``engine evaluate`` (:func:`~training.match.make_agent`): ``random``,
``mcts-rollouts[:N]`` or ``gomokubench[:LEVEL]``, in this process. So anyone
can rerun a strength check against a named baseline without a GTP wrapper for it.
A model file plays as in ``engine evaluate`` too (the match player's visits), which
is how ``engine loop`` rates its generations against a GTP engine such as GNU Go.
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import TracebackType
from typing import Any

import numpy as np

from engine import Color, EngineError, Game, Outcome, Rules, action_to_gtp, gtp_to_action
from training.gtp_client import GTPError
from training.match import MatchConfig, make_agent

__all__ = ["LocalEngine"]


class LocalEngine:
    """The baseline or model file ``spec`` under ``rules``, with GTPClient's ``send``, ``name`` and genmove
    timing; a model plays as ``match.player`` says, its network run with ``options``."""

    def __init__(self, spec: str, rules: Rules, seed: int = 0, name: str | None = None,
                 match: MatchConfig | None = None, options: Any = None) -> None:
        self.rules = rules
        self.agent = make_agent(spec, rules, replace(match or MatchConfig(), seed=seed), options)
        self.name = name or self.agent.name
        self.rng = np.random.default_rng(seed)
        self.player = self.agent.player(seed)
        self.game = Game(rules)
        self.genmoves = 0  # genmove commands answered, and the seconds they took (thinking time)
        self.genmove_seconds = 0.0

    def send(self, command: str) -> str:
        """Answer one command as a GTP engine would (GTPError for one it does not know or refuses)."""
        words = command.split()
        try:
            if words[0] == "boardsize":
                if int(words[1]) != self.rules.size:
                    raise GTPError(self.name, command, f"this baseline plays on {self.rules.size}x{self.rules.size}")
                return ""
            if words[0] in ("clear_board", "quit"):
                self.game = Game(self.rules)
                if self.player is not None:
                    self.player.new_game()
                return ""
            if words[0] == "komi":
                return ""
            if words[0] == "play":
                self.game.play(gtp_to_action(words[2], self.rules.size), Color.parse(words[1]))
                return ""
            if words[0] == "genmove":
                return self._genmove(Color.parse(words[1]))
            if words[0] == "final_score":  # the board as it stands, under the rules
                return Outcome.from_lead(self.game.score()).to_sgf()
        except (EngineError, ValueError, IndexError) as error:
            raise GTPError(self.name, command, str(error)) from error
        raise GTPError(self.name, command, "unknown command")

    def send_many(self, commands: list[str]) -> list[str]:
        return [self.send(command) for command in commands]

    def _genmove(self, color: Color) -> str:
        started = time.perf_counter()
        game = self.game if self.game.to_play == color else self.game.with_side_to_move(color)
        if self.player is None:
            action = self.agent.mover(game, self.rng)
        else:
            decision = self.player.choose(game)
            if decision.resign:
                return "resign"
            assert decision.action is not None
            action = decision.action
        self.game.play(action, color)
        self.genmoves += 1
        self.genmove_seconds += time.perf_counter() - started
        return action_to_gtp(action, self.rules.size)

    def close(self) -> None:
        """Nothing to stop: the baseline runs in this process."""

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
