"""How games are scheduled: many in flight with one network call per step, and jobs side by side in threads.

Each game in flight owns a :class:`~engine.search.mcts.SearchJob` (its
current move's search); every step advances all of them through the engine's
:func:`~engine.search.batching.step`, which evaluates their leaves in one call
per evaluator. :func:`play_in_flight` keeps K games in flight until all are
played (self-play, matches). :func:`run_in_threads` runs jobs side by side, each
in a thread with its own players: enough for engines in other processes, since a
thread waiting on a pipe leaves the GIL free (matches, GNU Go's games).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, TypeVar

from engine import SearchJob, step

__all__ = ["InFlight", "play_in_flight", "run_in_threads"]


class InFlight(Protocol):
    """A game in flight: ``job`` is its current move's search, None once the game is over."""

    job: SearchJob | None

    def play_searched(self) -> None:
        """Play the move the finished ``job`` found, then start the next search (or end the game)."""


_Game = TypeVar("_Game", bound=InFlight)


def play_in_flight(start: Callable[[int], _Game | None], games: int, parallel: int,
                   on_over: Callable[[_Game], None], stop: Callable[[], bool] | None = None) -> tuple[int, list[_Game]]:
    """Play ``games`` games, at most ``parallel`` at a time; ``start(i)`` makes game i, its first search begun,
    or returns None when no more games are to start (a cluster's shared budget ran out): the games in flight
    are then played to the end.

    Every step advances each search by one leaf batch (:func:`step`); a game whose
    search finished plays its move, and ``on_over(game)`` receives each game as it
    ends. ``stop()``, checked every step, ends the run early. Returns the evaluator
    calls made and the games a stop left in flight.
    """
    active: list[_Game] = []
    begun = calls = 0
    while begun < games or active:
        if stop is not None and stop():
            break
        while len(active) < parallel and begun < games:
            game = start(begun)
            if game is None:
                games = begun
                break
            active.append(game)
            begun += 1
        calls += step([game.job for game in active if game.job is not None])
        for game in list(active):
            if game.job is not None and game.job.finished:
                game.play_searched()
            if game.job is None:
                active.remove(game)
                on_over(game)
    return calls, active


def run_in_threads(jobs: int, work: Callable[[int, Callable[[], bool]], None]) -> None:
    """Call ``work(job, stopped)`` for each of ``jobs`` jobs, each in a thread of its own (one job: in this
    thread). ``stopped()`` turns true once any job has failed, so that the others stop after what they are doing;
    the first error is raised here when all have ended."""
    failures: list[BaseException] = []

    def run(job: int) -> None:
        try:
            work(job, lambda: bool(failures))
        except BaseException as error:  # noqa: BLE001 -- raised again in the calling thread
            failures.append(error)

    if jobs == 1:
        run(0)
    else:
        threads = [threading.Thread(target=run, args=(job,), name=f"job {job + 1}") for job in range(jobs)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]
