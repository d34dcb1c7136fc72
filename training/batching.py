"""Many games in flight, one network call per step: :func:`play_in_flight`, shared by self-play and matches.

Each game in flight owns a :class:`~engine.search.batching.SearchJob` (its
current move's search); every step advances all of them through the engine's
:func:`~engine.search.batching.step`, which evaluates their leaves in one call
per evaluator. :func:`play_in_flight` keeps K games in flight until all are played.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from engine import SearchJob, step

__all__ = ["InFlight", "play_in_flight"]


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
