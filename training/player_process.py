"""A :class:`~training.players.LocalPlayer` in a child process of its own, for matches that play games side by side.

Baselines and rollouts are Python and numba code that holds the GIL, so the
threads of ``engine match --jobs 2`` each driving one in this process would
share one core between them. :class:`PlayerProcess` has the seam's methods; each
call is sent to the child and answered there.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from engine import Color, EngineError, Outcome, Rules
from training.errors import PlayerError
from training.players import Agent, LocalPlayer, Moves, play_through

__all__ = ["PlayerProcess"]


class PlayerProcess:
    """The agent that ``make_agent()`` builds, played by a LocalPlayer called ``name`` in a child process; a network
    runs on ``threads`` torch threads there (None: torch is left alone).

    A call the player refuses (an illegal move) raises :class:`PlayerError` naming it and leaves the child
    running; a player that cannot start, a call it fails on, or a child that dies raises PlayerError too.
    """

    def __init__(self, make_agent: Callable[[], Agent], name: str, threads: int | None = None) -> None:
        self.name = name
        self.comment: str | None = None
        self.genmoves = 0
        self.genmove_seconds = 0.0
        context = multiprocessing.get_context("spawn")   # no fork of a parent that holds threads
        self._connection, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, make_agent, name, threads),
                                        name=f"match player {name}", daemon=True)
        self._process.start()
        child.close()
        try:
            self._reply("starting")
        except BaseException:
            self.close()
            raise

    def new_game(self, rules: Rules, seed: int) -> None:
        self._call("new_game", rules, seed)

    def place_handicap(self, actions: Sequence[int]) -> None:
        self._call("place_handicap", list(actions))

    def play(self, color: Color, action: int) -> None:
        self._call("play", color, action)

    def genmove(self, color: Color) -> Moves:
        yield from ()   # it searches in its own process
        return self._call("genmove", color)

    def final_score(self) -> Outcome | None:
        return self._call("final_score")

    def _call(self, method: str, *args: Any) -> Any:
        try:
            self._connection.send((method, args))
        except OSError as error:
            raise PlayerError(f"{self.name} has stopped ({error}): cannot {method}") from error
        return self._reply(method)

    def _reply(self, method: str) -> Any:
        """The child's answer, waiting as long as it thinks but not past its death."""
        while not self._connection.poll(1.0):
            if not self._process.is_alive():
                raise PlayerError(f"{self.name} exited (code {self._process.exitcode}) during {method}")
        try:
            status, value, self.comment, self.genmoves, self.genmove_seconds = self._connection.recv()
        except EOFError as error:
            raise PlayerError(f"{self.name} exited during {method}") from error
        if status == "?":
            raise PlayerError(f"{self.name} refused {method}: {value}")
        if status == "!":
            raise PlayerError(f"{self.name} failed {method}: {value}")
        return value

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


def _serve(connection: Connection, make_agent: Callable[[], Agent], name: str, threads: int | None) -> None:
    """The child: a LocalPlayer answering calls until told to stop (``None``).

    Each answer is ``(status, value, comment, genmoves, genmove_seconds)``: status ``=`` with the value, ``?``
    with the message of a refusal, ``!`` with the error that ended the child.
    """
    try:
        if threads is not None:
            from engine import set_cpu_threads

            set_cpu_threads(threads)   # a worker process's entry point may: the jobs share the cores
        player = LocalPlayer(make_agent(), name)
        connection.send(("=", None, None, 0, 0.0))
        while (call := connection.recv()) is not None:
            method, args = call
            try:
                value = getattr(player, method)(*args)
                if method == "genmove":
                    value = play_through(value)
            except (EngineError, ValueError) as error:
                connection.send(("?", str(error), player.comment, player.genmoves, player.genmove_seconds))
            else:
                connection.send(("=", value, player.comment, player.genmoves, player.genmove_seconds))
    except (EOFError, KeyboardInterrupt):   # the parent has gone, or the match was interrupted
        return
    except Exception as error:  # noqa: BLE001 -- reported to the parent, which raises it
        connection.send(("!", f"{type(error).__name__}: {error}", None, 0, 0.0))
