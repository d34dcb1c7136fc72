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

:class:`LocalEngineProcess` is the same player in a child process, for matches
that play several games at once: ``gomokubench`` and the rollouts are Python
and numba code that holds the GIL, so the threads of ``engine match --jobs 2``
each driving one in this process would share one core between them.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import replace
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

import numpy as np

from engine import Color, EngineError, Game, Outcome, Rules, action_to_gtp, gtp_to_action
from training.gtp_client import GTPEngineError, GTPError
from training.match import MatchConfig, is_baseline, make_agent

__all__ = ["LocalEngine", "LocalEngineProcess"]


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


class LocalEngineProcess:
    """:class:`LocalEngine` ``spec`` in a child process of its own, with the same ``send``, ``name`` and
    genmove timing; a model's network runs on ``threads`` CPU threads there (None: torch's default).

    A command the player refuses raises :class:`GTPError` here with its message; one it fails on, a
    player that cannot start (an unknown level, rules it cannot play) or a child that dies raises
    :class:`GTPEngineError`, as a GTP engine's process would.
    """

    def __init__(self, spec: str, rules: Rules, seed: int = 0, name: str | None = None,
                 match: MatchConfig | None = None, options: Any = None, threads: int | None = None) -> None:
        self.name = name or spec
        self.genmoves = 0
        self.genmove_seconds = 0.0
        context = multiprocessing.get_context("spawn")   # no fork of a parent that holds threads
        self._connection, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, spec, rules, seed, name, match, options, threads),
                                        name=f"local engine {self.name}", daemon=True)
        self._process.start()
        child.close()
        try:
            self.name = self._reply("starting")
        except BaseException:
            self.close()
            raise

    def send(self, command: str) -> str:
        """The player's answer to one GTP command (see :meth:`LocalEngine.send`)."""
        try:
            self._connection.send(command)
        except OSError as error:
            raise GTPEngineError(f"{self.name} has stopped ({error}): cannot send {command!r}") from error
        return self._reply(command)

    def send_many(self, commands: list[str]) -> list[str]:
        return [self.send(command) for command in commands]

    def _reply(self, command: str) -> str:
        """The child's answer to ``command``, waiting as long as it thinks but not past its death."""
        while not self._connection.poll(1.0):
            if not self._process.is_alive():
                raise GTPEngineError(f"{self.name} exited (code {self._process.exitcode}) during {command!r}")
        try:
            status, text, genmoves, seconds = self._connection.recv()
        except EOFError as error:
            raise GTPEngineError(f"{self.name} exited during {command!r}") from error
        if status == "?":
            raise GTPError(self.name, command, text)
        if status == "!":
            raise GTPEngineError(f"{self.name} failed {command!r}: {text}")
        self.genmoves, self.genmove_seconds = genmoves, seconds
        return text

    def close(self) -> None:
        """Stop the child (asked first, killed if it does not go within 10 s)."""
        if self._process.is_alive():
            try:
                self._connection.send(None)
            except OSError:
                pass
            self._process.join(10)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
        self._connection.close()

    def __enter__(self) -> LocalEngineProcess:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _serve(connection: Connection, spec: str, rules: Rules, seed: int, name: str | None, match: MatchConfig | None,
           options: Any, threads: int | None) -> None:
    """The child of :class:`LocalEngineProcess`: a LocalEngine answering commands until told to stop (``None``).

    Each answer is ``(status, text, genmoves, genmove_seconds)``: status ``=`` with the answer, ``?`` with
    the message of a refusal, ``!`` with the error that ended the child.
    """
    try:
        if threads is not None and not is_baseline(spec):
            from engine import set_cpu_threads

            set_cpu_threads(threads)   # a worker process's entry point may: the jobs share the cores
        engine = LocalEngine(spec, rules, seed, name, match, options)
        connection.send(("=", engine.name, 0, 0.0))
        while (command := connection.recv()) is not None:
            try:
                answer = engine.send(command)
            except GTPError as error:
                connection.send(("?", error.message, engine.genmoves, engine.genmove_seconds))
            else:
                connection.send(("=", answer, engine.genmoves, engine.genmove_seconds))
    except (EOFError, KeyboardInterrupt):   # the parent has gone, or the match was interrupted
        return
    except Exception as error:  # noqa: BLE001 -- reported to the parent, which raises it
        connection.send(("!", f"{type(error).__name__}: {error}", 0, 0.0))
