"""``engine bench threads``: which torch thread setting keeps genmove's speed when another program takes a core.

For each thread setting, ``engine bench genmove`` runs in a process of its own
(a network on a game, tree reuse), alone and with ``--contend`` (a busy process
holding one core, as another engine thinking beside ours in a GUI match), in
interleaved rounds; the figures are the median visits/s of each over all
rounds' genmoves. Settings: ``threads 1``; ``threads N`` (every core, torch's
default); ``threads N pinned`` (``OMP_PROC_BIND=close OMP_PLACES=cores``: each
OpenMP thread bound to one core); ``threads N passive``
(``OMP_WAIT_POLICY=PASSIVE``: a thread waiting at a barrier sleeps instead of
spinning). ``engine gtp --threads`` defaults to what this shows.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from collections.abc import Callable
from typing import Any

from bench.timing import BenchError, engine_process

__all__ = ["measure_threads", "thread_settings"]

PINNED = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
PASSIVE = {"OMP_WAIT_POLICY": "PASSIVE"}


def thread_settings(cores: int) -> dict[str, tuple[int, dict[str, str]]]:
    """The settings compared, by name: torch threads and the OpenMP environment."""
    return {"threads 1": (1, {}), f"threads {cores}": (cores, {}), f"threads {cores} pinned": (cores, PINNED),
            f"threads {cores} passive": (cores, PASSIVE)}


def _genmove_rates(model: str, size: int, visits: int, moves: int, threads: int, env: dict[str, str],
                   contend: bool) -> list[float]:
    command, environment = engine_process("bench", "genmove", "--model", model, "--size", str(size), "--visits",
                                          str(visits), "--moves", str(moves), "--threads", str(threads), "--json",
                                          *(["--contend"] if contend else []), **env)
    done = subprocess.run(command, capture_output=True, text=True, env=environment)
    if done.returncode != 0:
        raise BenchError(f"engine bench genmove failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])["visits_per_s_runs"]


def measure_threads(model: str, size: int, visits: int, moves: int, rounds: int,
                    progress: Callable[[str, float], None] | None = None) -> dict[str, Any]:
    """Median genmove visits/s of every thread setting, alone and contended, over ``rounds`` interleaved rounds;
    ``progress(setting, median so far)`` after each run."""
    cores = len(os.sched_getaffinity(0))
    rates: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, (threads, env) in thread_settings(cores).items():
            for contend in (False, True):
                key = f"{name}, {'contended' if contend else 'alone'}"
                rates.setdefault(key, []).extend(_genmove_rates(model, size, visits, moves, threads, env, contend))
                if progress is not None:
                    progress(key, statistics.median(rates[key]))
    medians = {key: statistics.median(values) for key, values in rates.items()}
    return {"model": model, "size": size, "visits": visits, "cores": cores, "rounds": rounds, "medians": medians,
            "runs": rates}
