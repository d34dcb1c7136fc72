"""How games are scheduled: many in flight with one network call per step, and jobs side by side in threads.

Each game in flight owns a :class:`~engine.search.mcts.SearchJob` (its current move's search: the job
of the :class:`~engine.search.player.MoveSearch` its player began); every step advances all of them through the engine's
:func:`~engine.search.batching.step`, which evaluates their leaves in one call
per evaluator (:mod:`engine.search.batching`). :func:`play_in_flight` keeps K games in flight until all are
played (self-play, matches). :func:`run_in_threads` runs jobs side by side, each
in a thread with its own players: enough for engines in other processes, since a
thread waiting on a pipe leaves the GIL free (matches, GNU Go's games).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, TypeVar

from engine import SearchJob, Submitted, submit_step

__all__ = ["InFlight", "play_in_flight", "run_in_threads", "OVERLAP_LANES"]

OVERLAP_LANES = 2
"""Lanes of :func:`play_in_flight` with an asynchronous evaluator: one runs on the device while the other's trees
are walked."""


class InFlight(Protocol):
    """A game in flight: ``job`` is its current move's search, None once the game is over."""

    job: SearchJob | None

    def play_searched(self) -> None:
        """Play the move the finished ``job`` found, then start the next search (or end the game)."""


_Game = TypeVar("_Game", bound=InFlight)


def play_in_flight(start: Callable[[int], _Game | None], games: int, parallel: int,
                   on_over: Callable[[_Game], None], stop: Callable[[], bool] | None = None,
                   lanes: int = 1) -> tuple[int, list[_Game]]:
    """Play ``games`` games, at most ``parallel`` at a time; ``start(i)`` makes game i, its first search begun,
    or returns None when no more games are to start (a cluster's shared budget ran out): the games in flight
    are then played to the end.

    Every step advances each search by one leaf batch (:func:`submit_step`); a game whose
    search finished plays its move, and ``on_over(game)`` receives each game as it
    ends. ``stop()``, checked every step, ends the run early. Returns the evaluator
    calls made and the games a stop left in flight.

    ``lanes`` > 1 splits the games in flight into that many lanes, each a step behind the one before: a lane's
    leaves go to the evaluator, and the other lanes' evaluations are read and their trees walked while the
    network runs. That pays where the evaluator runs asynchronously (a GPU: :func:`~engine.search.batching.overlaps`);
    elsewhere it only makes the batches smaller.
    """
    lanes = max(1, min(lanes, parallel))
    seats = [parallel // lanes + (lane < parallel % lanes) for lane in range(lanes)]
    playing: list[list[_Game]] = [[] for _ in range(lanes)]
    submitted: list[Submitted | None] = [None] * lanes
    begun = calls = 0

    def settle(lane: int) -> None:
        """Read the lane's evaluation, play the moves its finished searches found, retire the games over."""
        nonlocal calls
        pending, submitted[lane] = submitted[lane], None
        if pending is not None:
            calls += pending.complete()
        for game in list(playing[lane]):
            if game.job is not None and game.job.finished:
                game.play_searched()
            if game.job is None:
                playing[lane].remove(game)
                on_over(game)

    while begun < games or any(playing):
        if stop is not None and stop():
            break
        for lane in range(lanes):
            settle(lane)
            while len(playing[lane]) < seats[lane] and begun < games:
                game = start(begun)
                if game is None:
                    games = begun
                    break
                playing[lane].append(game)
                begun += 1
            submitted[lane] = submit_step([game.job for game in playing[lane] if game.job is not None])
    for lane in range(lanes):
        settle(lane)
    return calls, [game for lane in playing for game in lane]


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
