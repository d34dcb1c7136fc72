"""The self-play actor and the generation's shared game budget.

A :class:`SelfPlayWorker` runs the very self-play of one process
(:func:`~training.selfplay.play_games`: many games in flight, one evaluator
call per step), with its own network (by default on a CPU-only node) or a
:class:`~training.cluster.inference.RemoteEvaluator` of its node's inference
server (on a GPU node), and streams each game to the driver as it ends (a Ray
generator), so the driver holds every finished game at once and an actor that
dies loses only its games in flight. Before a game starts, the actor takes a
ticket from :class:`GameTickets`: the actors of a generation start exactly the
games it still needs, however many actors there are and whenever they join.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

from engine import Rules
from training.cluster.inference import RemoteEvaluator, actor_evaluator, describe_evaluator, process_cpu_seconds
from training.selfplay import FinishedGame, SelfPlaySummary, play_games, share_config, timed_selfplay
from training.selfplay_config import SelfPlayConfig

__all__ = ["GameTickets", "SelfPlayWorker"]


class GameTickets:
    """The games a generation still has to start (a Ray actor). Each run of an actor's :meth:`SelfPlayWorker.play`
    is a lease, numbered by the driver; when a lease ends, the driver returns its unfinished tickets."""

    def __init__(self, games: int) -> None:
        self.left = games
        self.taken: dict[int, int] = {}

    def take(self, lease: int) -> bool:
        """One game for ``lease`` to start, if any are left."""
        if self.left <= 0:
            return False
        self.left -= 1
        self.taken[lease] = self.taken.get(lease, 0) + 1
        return True

    def release(self, lease: int, delivered: int) -> int:
        """End ``lease``, which delivered ``delivered`` games: the others it took are to be played again.
        Returns how many."""
        lost = self.taken.pop(lease, 0) - delivered
        self.left += max(lost, 0)
        return max(lost, 0)

    def remaining(self) -> int:
        return self.left


class _Handoff:
    """The sink that passes each finished game to the generator that streams it to the driver."""

    def __init__(self, items: "queue.Queue[Any]", wants_sgf: bool) -> None:
        self.items = items
        self.wants_sgf = wants_sgf

    def save(self, finished: FinishedGame) -> None:
        self.items.put(finished)


class SelfPlayWorker:
    """A self-play actor: searches here, and evaluates its leaves with its inference ``server`` (an
    :class:`~training.cluster.inference.InferenceServer` handle) or, with no server, with its own network
    (``model``, ``options`` and ``threads`` as :func:`~training.cluster.inference.actor_evaluator` takes them).
    ``model_name`` names the games' model. ``overlap``: the server runs on a GPU, and the actor walks one lane's
    trees while it answers the other's leaves."""

    def __init__(self, rules_text: str, config: SelfPlayConfig, model_name: str, server: Any = None,
                 model: bytes | None = None, options: Any = None, threads: int | None = 1,
                 overlap: bool = False) -> None:
        self.rules = Rules.parse(rules_text)
        self.config = config
        self.model = model_name
        self.server = server
        if server is not None:
            self.evaluator: Any = RemoteEvaluator(server, asynchronous=overlap)
        elif model is not None:
            self.evaluator = actor_evaluator(model, self.rules, options, threads)
        else:
            raise ValueError("a self-play actor needs an inference server or the model's bytes")
        self.reported = 0.0  # this process's CPU seconds told to the driver (its start-up and loading too)

    def play(self, lease: int, tickets: Any, wants_sgf: bool) -> Iterator[tuple[FinishedGame, float]]:
        """Play games while ``tickets`` gives them, yielding each as it ends with the CPU seconds this
        actor's process spent (its own network's included) since it last told them, or since it started
        (the loop's CPU budget counts them)."""
        import ray

        items: queue.Queue[Any] = queue.Queue()

        def run() -> None:
            try:
                play_games(self.evaluator, self.rules, self.model, share_config(self.config, lease), 1 << 62,
                           _Handoff(items, wants_sgf), more=lambda: ray.get(tickets.take.remote(lease)))
            except BaseException as error:  # noqa: BLE001 -- raised again in the generator, to the driver
                items.put(error)
            else:
                items.put(None)

        threading.Thread(target=run, name=f"self-play lease {lease}", daemon=True).start()
        while (item := items.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            now = process_cpu_seconds()
            yield item, now - self.reported
            self.reported = now

    def bench(self, lease: int, warm_up: float, seconds: float) -> SelfPlaySummary:
        """``engine bench selfplay``'s timed window, played here (see :func:`training.selfplay.timed_selfplay`)."""
        return timed_selfplay(self.evaluator, self.rules, self.model, share_config(self.config, lease), warm_up,
                              seconds, self.evaluator.clear_cache)

    def describe(self) -> dict[str, Any]:
        """The device, dtype, runtime and torch CPU threads of the network this actor searches with: its
        server's, or its own (see :func:`~training.cluster.inference.describe_evaluator`)."""
        import ray

        if self.server is not None:
            return ray.get(self.server.describe.remote())
        return describe_evaluator(self.evaluator)
