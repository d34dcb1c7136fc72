"""Where the actors run: self-play actors, and the inference servers they feed, laid out over the cluster's nodes.

Each alive node gets its self-play actors (one per CPU its servers leave, or
``actors_per_node``), which run their own network on a CPU-only node and feed
the node's servers (one per GPU) on a GPU node (:class:`Layout`), all pinned to
the node so that leaves cross no network. :meth:`ActorPool.grow` looks at the
nodes again (the driver calls it every few seconds): a node that joined gets
its actors, and an actor dropped after failing is replaced. Self-play actors
restart after a crash (``max_restarts``); servers restart too, and a request
they lost is retried (``max_task_retries``: an evaluation has no side effect).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from engine import Rules
from training.selfplay_config import SelfPlayConfig

__all__ = ["Layout", "Slot", "ActorPool"]

WORKER_RESTARTS = 3
SERVER_RESTARTS = 3


INFERENCE = ("auto", "server", "actor")
"""Where a node's network runs (:attr:`Layout.inference`)."""


@dataclass(frozen=True)
class Layout:
    """Where the network runs and how many actors a node gets.

    ``inference``: ``server``, in inference servers that the node's self-play actors feed (one per GPU; one on
    a CPU-only node, taking ``server_cpus``); ``actor``, in every self-play actor (on the device the evaluator
    options pick: a GPU node's GPU, unless they say cpu); ``auto``, servers on GPU nodes and in-actor networks
    on CPU-only nodes. On a CPU the network is most (~85%) of self-play's work and batching across actors
    gains little past ~100 positions a call, so a CPU server keeps the cores of the actors that wait on it
    idle: actors that each alternate search and their own one-thread network use every core.
    ``actors_per_node``: self-play actors (None: one per CPU the servers leave). ``threads``: torch threads of
    each network on a CPU, a CPU server's (None: every core) or each self-play actor's own (None: 1).
    """

    actors_per_node: int | None = None
    server_cpus: float = 1.0
    threads: int | None = None
    inference: str = "auto"

    def __post_init__(self) -> None:
        if self.inference not in INFERENCE:
            raise ValueError(f"inference {self.inference!r}: expected one of {', '.join(INFERENCE)}")

    def plan(self, cpus: float, gpus: int) -> tuple[int, float, int, float]:
        """(servers, CPUs each, self-play actors, CPUs each) for a node with ``cpus`` and ``gpus``; no servers:
        the self-play actors run their own network."""
        if self.inference == "actor" or (self.inference == "auto" and gpus == 0):
            servers, server_cpus = 0, 0.0
        else:
            servers = max(gpus, 1)
            server_cpus = min(self.server_cpus, cpus / 2) if gpus == 0 else min(1.0, cpus / (servers + 1))
        left = max(cpus - servers * server_cpus, 0.0)
        actors = self.actors_per_node or max(int(left), 1)
        return servers, server_cpus, actors, min(1.0, left / actors) if left > 0 else 0.0


@dataclass
class Slot:
    """One self-play actor and the lease it is playing (``generator``: its stream of finished games;
    ``delivered``: the lease's games so far, ``games``: the actor's in all)."""

    actor: Any
    node: str
    lease: int = -1
    generator: Any = None
    delivered: int = 0
    games: int = 0
    failures: int = 0


@functools.cache
def _remote_classes() -> tuple[Any, Any, Any]:
    import ray

    from training.cluster.inference import InferenceServer
    from training.cluster.worker import GameTickets, SelfPlayWorker

    return (ray.remote(max_restarts=SERVER_RESTARTS, max_task_retries=SERVER_RESTARTS)(InferenceServer),
            ray.remote(max_restarts=WORKER_RESTARTS, max_task_retries=0)(SelfPlayWorker),
            ray.remote(num_cpus=0)(GameTickets))


def game_tickets(games: int) -> Any:
    """A :class:`~training.cluster.worker.GameTickets` actor holding ``games`` games."""
    return _remote_classes()[2].remote(games)


@dataclass
class ActorPool:
    """The self-play and inference actors of one model (create, :meth:`grow`, :meth:`close`)."""

    model: Any  # the model file's bytes in the object store (ray.put)
    model_name: str
    rules: Rules
    config: SelfPlayConfig
    options: Any
    layout: Layout = field(default_factory=Layout)
    slots: list[Slot] = field(default_factory=list)
    servers: dict[str, list[Any]] = field(default_factory=dict)
    wanted: dict[str, int] = field(default_factory=dict)

    def grow(self) -> list[Slot]:
        """Actors for nodes that have none yet and in place of dropped ones; returns the new slots."""
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        server_class, worker_class, _ = _remote_classes()
        new = []
        for node in ray.nodes():
            resources = node.get("Resources", {})
            if not node.get("Alive") or resources.get("CPU", 0.0) <= 0:
                continue
            node_id = node["NodeID"]
            servers, server_cpus, actors, actor_cpus = self.layout.plan(resources.get("CPU", 0.0),
                                                                        int(resources.get("GPU", 0)))
            pin = NodeAffinitySchedulingStrategy(node_id, soft=False)
            gpu = 1 if resources.get("GPU", 0) >= 1 else 0
            if node_id not in self.servers:
                self.servers[node_id] = [
                    server_class.options(num_cpus=server_cpus, num_gpus=gpu, scheduling_strategy=pin).remote(
                        self.model, str(self.rules), self.options, self.layout.threads if not gpu else None)
                    for _ in range(servers)]
                self.wanted[node_id] = actors
            have = sum(1 for slot in self.slots if slot.node == node_id)
            for index in range(have, self.wanted[node_id]):
                here = self.servers[node_id]
                network = ({"server": here[index % len(here)], "overlap": bool(gpu)} if here else
                           {"model": self.model, "options": self.options, "threads": self.layout.threads or 1})
                actor = worker_class.options(num_cpus=actor_cpus, scheduling_strategy=pin).remote(
                    str(self.rules), self.config, self.model_name, **network)
                new.append(Slot(actor, node_id))
        self.slots += new
        return new

    def drop(self, slot: Slot) -> None:
        """Give up on an actor that keeps failing; :meth:`grow` puts a new one in its place."""
        import ray

        self.slots.remove(slot)
        ray.kill(slot.actor, no_restart=True)

    def all_servers(self) -> list[Any]:
        return [server for servers in self.servers.values() for server in servers]

    def __enter__(self) -> "ActorPool":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End every actor of the pool."""
        import ray

        for actor in [slot.actor for slot in self.slots] + self.all_servers():
            ray.kill(actor, no_restart=True)
        self.slots.clear()
        self.servers.clear()
