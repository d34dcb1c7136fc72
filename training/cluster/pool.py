"""Where the actors run: inference servers and self-play actors laid out over the cluster's nodes.

Each alive node gets its servers (one per GPU; one on a CPU-only node) and its
self-play actors (one per CPU left, or ``actors_per_node``), pinned to it so
that leaves cross no network. :meth:`ActorPool.grow` looks at the nodes again
(the driver calls it every few seconds): a node that joined gets its actors,
and an actor dropped after failing is replaced. Self-play actors restart after
a crash (``max_restarts``); servers restart too, and a request they lost is
retried (``max_task_retries``: an evaluation has no side effect).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from engine import Rules
from training.selfplay import SelfPlayConfig

__all__ = ["Layout", "Slot", "ActorPool"]

WORKER_RESTARTS = 3
SERVER_RESTARTS = 3


@dataclass(frozen=True)
class Layout:
    """How many actors a node gets: ``actors_per_node`` self-play actors (None: one per CPU the servers
    leave), servers as the node's GPUs (one on a CPU-only node, taking ``server_cpus``); ``threads``:
    torch threads of a CPU server (None: its CPUs)."""

    actors_per_node: int | None = None
    server_cpus: float = 1.0
    threads: int | None = None

    def plan(self, cpus: float, gpus: int) -> tuple[int, float, int, float]:
        """(servers, CPUs each, self-play actors, CPUs each) for a node with ``cpus`` and ``gpus``."""
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
    server: Any
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
            if node_id not in self.servers:
                gpu = 1 if resources.get("GPU", 0) >= 1 else 0
                self.servers[node_id] = [
                    server_class.options(num_cpus=server_cpus, num_gpus=gpu, scheduling_strategy=pin).remote(
                        self.model, str(self.rules), self.options, self.layout.threads if not gpu else None)
                    for _ in range(servers)]
                self.wanted[node_id] = actors
            have = sum(1 for slot in self.slots if slot.node == node_id)
            for index in range(have, self.wanted[node_id]):
                server = self.servers[node_id][index % len(self.servers[node_id])]
                actor = worker_class.options(num_cpus=actor_cpus, scheduling_strategy=pin).remote(
                    str(self.rules), self.config, self.model_name, server)
                new.append(Slot(actor, server, node_id))
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
