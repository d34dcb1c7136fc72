"""Self-play on a Ray cluster: the driver that hands out games and keeps each one as it ends.

The driver puts the model in Ray's object store, lays out the actors
(:class:`~training.cluster.pool.ActorPool`), and reads the actors' streams of
finished games, saving each one through the caller's sink (atomically, under
the game's id) before it counts. Faults:

* an actor that dies (or is killed) loses its games in flight only: the
  tickets it took and did not deliver go back to :class:`GameTickets`, Ray
  restarts it, and a new lease picks up the work; an actor that fails twice
  running is replaced;
* the driver killed with ``kill -9`` has saved every game it counted, and a
  resumed run plays only the games still missing (as without Ray);
* a node that joins gets its actors at the driver's next look (every few seconds).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import Rules
from training.cluster.pool import ActorPool, Layout, Slot, game_tickets
from training.cluster.progress import ClusterProgress
from training.selfplay import GameSink, GameSummary, SelfPlaySummary
from training.selfplay_config import SelfPlayConfig

__all__ = ["model_pool", "play_on_ray", "bench_on_ray", "LOOK_EVERY"]

LOOK_EVERY = 3.0
"""Seconds between the driver's looks at the cluster (new nodes, replaced actors, the servers' reports)."""


def _retryable(error: Exception) -> bool:
    """An actor's or object's loss (play the games again), not an error in the self-play code (raise it)."""
    import ray

    if isinstance(error, ray.exceptions.RayTaskError):
        return isinstance(error.cause, ray.exceptions.RayError)
    return isinstance(error, (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError))


def model_pool(model_path: str | Path, rules: Rules, config: SelfPlayConfig, options: Any,
               layout: Layout = Layout()) -> ActorPool:
    """The pool of actors that play with the model at ``model_path`` (no actor starts before ``grow``; use
    it in a ``with`` block, which ends them)."""
    import ray

    from engine import read_info

    return ActorPool(ray.put(Path(model_path).read_bytes()), read_info(model_path).name, rules, config, options,
                     layout)


def play_on_ray(pool: ActorPool, games: int, output: GameSink,
                on_game: Callable[[GameSummary], None] | None = None,
                on_cpu: Callable[[float], None] | None = None, desc: str = "self-play",
                leave: bool = True) -> SelfPlaySummary:
    """Play ``games`` games with ``pool``'s actors and save each through ``output`` as it arrives.

    ``on_cpu(seconds)`` hears of the CPU time the actors spend (a self-play actor's, its own network's
    included, with each game; the inference servers' at the end), which the loop's CPU budget counts;
    ``on_game`` is called after each game is saved (and its CPU time told).
    """
    import ray

    tickets = game_tickets(games)
    summary = SelfPlaySummary()
    progress = ClusterProgress(games, desc, leave)
    started = time.perf_counter()
    leases = itertools.count()
    streams: dict[Any, Slot] = {}
    tally = on_cpu or (lambda _seconds: None)
    failures = 0
    next_look = 0.0
    waiting = False
    try:
        while summary.games < games:
            if time.monotonic() >= next_look:
                pool.grow()
                if not pool.slots and not waiting:
                    progress.write("self-play: no node with CPUs in the cluster yet; waiting for one")
                waiting = not pool.slots
                progress.watch(pool.all_servers(), len(pool.slots))
                idle = [slot for slot in pool.slots if slot.generator is None]
                if idle and ray.get(tickets.remaining.remote()) > 0:
                    for slot in idle:
                        slot.lease, slot.delivered = next(leases), 0
                        slot.generator = slot.actor.play.remote(slot.lease, tickets, output.wants_sgf)
                        streams[slot.generator] = slot
                next_look = time.monotonic() + LOOK_EVERY
            ready, _ = ray.wait(list(streams), num_returns=1, timeout=1.0) if streams else ([], [])
            if not streams:
                time.sleep(0.2)
            for stream in ready:
                slot = streams[stream]
                try:
                    finished, seconds = ray.get(next(stream))
                except StopIteration:  # the lease ran out of tickets and finished its games
                    _end_lease(streams, slot, tickets)
                    next_look = 0.0
                    continue
                except ray.exceptions.RayError as error:
                    if not _retryable(error):
                        raise
                    failures += 1  # in a row, with no game in between
                    if failures > 5 + 3 * len(pool.slots):
                        raise RuntimeError(f"self-play actors keep failing: {error}") from error
                    lost = _end_lease(streams, slot, tickets)
                    progress.write(f"a self-play actor failed ({type(error).__name__}): {lost} games in flight "
                                   f"lost, to be played again")
                    slot.failures += 1
                    if slot.failures >= 2:
                        pool.drop(slot)
                    next_look = 0.0
                    continue
                output.save(finished)
                slot.delivered += 1
                slot.games += 1
                slot.failures = failures = 0
                summary.add(finished.summary)
                tally(seconds)
                progress.game(finished.summary.moves)
                if on_game is not None:
                    on_game(finished.summary)
    finally:
        progress.close()
        tally(_server_cpu(pool))
        ray.kill(tickets)
    summary.seconds = time.perf_counter() - started
    return summary


def _end_lease(streams: dict[Any, Slot], slot: Slot, tickets: Any) -> int:
    """Close ``slot``'s lease: its undelivered tickets go back; returns how many."""
    import ray

    streams.pop(slot.generator, None)
    slot.generator = None
    return int(ray.get(tickets.release.remote(slot.lease, slot.delivered)))


def _server_cpu(pool: ActorPool) -> float:
    """CPU seconds the pool's inference servers spent (loading and compiling included; none without servers)."""
    import ray

    reports = [server.report.remote() for server in pool.all_servers()]
    ready, _ = ray.wait(reports, num_returns=len(reports), timeout=10.0)
    total = 0.0
    for ref in ready:
        try:
            total += ray.get(ref)["cpu_s"]
        except ray.exceptions.RayError:
            pass
    return total


def bench_on_ray(model_path: str | Path, rules: Rules, config: SelfPlayConfig, options: Any, layout: Layout,
                 warm_up: float, seconds: float) -> tuple[SelfPlaySummary, dict[str, Any]]:
    """``engine bench selfplay --ray``: every self-play actor plays a timed window (after ``warm_up`` s) at
    once. Returns their summed totals (``seconds``: the windows' mean) and the network's device, dtype,
    runtime and threads, the actor and server counts, and with servers their busy share (warm-up included)
    and mean batch (None without servers)."""
    import statistics

    import ray

    with model_pool(model_path, rules, config, options, layout) as pool:
        pool.grow()
        servers = pool.all_servers()
        described = ray.get([slot.actor.describe.remote() for slot in pool.slots])[0]  # all loaded, compiled
        before = ray.get([server.report.remote() for server in servers])
        summaries = ray.get([slot.actor.bench.remote(lease, warm_up, seconds)
                             for lease, slot in enumerate(pool.slots)])
        after = ray.get([server.report.remote() for server in servers])
    total = SelfPlaySummary()
    for part in summaries:
        total.merge(part)
    total.seconds = statistics.mean(part.seconds for part in summaries)
    busy, span, calls, positions = (sum(a[key] - b[key] for a, b in zip(after, before))
                                    for key in ("busy_s", "alive_s", "calls", "positions"))
    return total, {**described, "actors": len(summaries), "servers": len(servers),
                   "inference_busy_share": busy / span if span > 0 else None,
                   "server_batch_mean": positions / calls if calls else None}
