"""The inference actor: one network on one device, evaluating the leaf batches of many self-play actors.

Self-play actors search on CPUs and send each step's leaves (the stacked
position arrays and legal masks the search already made) to an
:class:`InferenceServer` through a :class:`RemoteEvaluator`, which the search
sees as any other evaluator. The server is an asyncio actor: requests that
arrive while the device is busy wait and go together in the next call of the
network (continuous batching), so the batch grows with the number of actors
that feed it, with no timer to tune. One server runs per GPU. On a CPU-only
node the self-play actors run the network themselves by default (see
:class:`~training.cluster.pool.Layout`); :func:`actor_evaluator` loads the
network of either kind of actor.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from engine import Evaluation, Evaluator, PositionBatch, Rules

__all__ = ["InferenceServer", "RemoteEvaluator", "InferenceStats", "actor_evaluator", "describe_evaluator",
           "process_cpu_seconds"]

InferenceStats = dict[str, float]
"""What a server has done since it started: ``calls``, ``positions``, ``busy_s`` (seconds inside the network's
evaluation), ``alive_s``, ``cpu_s`` (its process's CPU time) and ``gpu_utilization`` (percent, from the
driver's NVML where there is a GPU and pynvml; -1 otherwise)."""


class InferenceServer:
    """A model's evaluator behind a queue (made a Ray actor by :mod:`training.cluster.pool`): ``model``,
    ``options`` and ``threads`` as :func:`actor_evaluator` takes them."""

    def __init__(self, model: bytes, rules_text: str, options: Any, threads: int | None) -> None:
        self.rules = Rules.parse(rules_text)
        self.evaluator = actor_evaluator(model, self.rules, options, threads)
        self.executor = ThreadPoolExecutor(1)  # the network runs off the event loop, which keeps taking requests
        self.pending: list[tuple[np.ndarray, np.ndarray, np.ndarray, asyncio.Future[Evaluation]]] = []
        self.draining = False
        self.started = time.monotonic()
        self.stats: InferenceStats = {"calls": 0.0, "positions": 0.0, "busy_s": 0.0}

    async def evaluate(self, cells: np.ndarray, info: np.ndarray, legal: np.ndarray) -> Evaluation:
        """The evaluation of one actor's leaf batch (``PositionBatch`` arrays and ``bool[B, A]`` masks)."""
        future: asyncio.Future[Evaluation] = asyncio.get_running_loop().create_future()
        self.pending.append((cells, info, legal, future))
        if not self.draining:
            self.draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.pending:
                requests, self.pending = self.pending, []
                try:
                    evaluation = await loop.run_in_executor(self.executor, self._evaluate, requests)
                except Exception as error:  # noqa: BLE001 -- each waiting actor gets the error
                    for *_, future in requests:
                        future.set_exception(error)
                    continue
                start = 0
                for cells, _, _, future in requests:
                    future.set_result(evaluation.rows(start, start + len(cells)))
                    start += len(cells)
        finally:
            self.draining = False

    def _evaluate(self, requests: list[tuple[np.ndarray, np.ndarray, np.ndarray, Any]]) -> Evaluation:
        began = time.perf_counter()
        batch = PositionBatch(self.rules, np.concatenate([r[0] for r in requests]),
                              np.concatenate([r[1] for r in requests]))
        evaluation = self.evaluator.evaluate(batch, np.concatenate([r[2] for r in requests]))
        self.stats["busy_s"] += time.perf_counter() - began
        self.stats["calls"] += 1
        self.stats["positions"] += len(batch)
        return evaluation

    async def report(self) -> InferenceStats:
        """The totals so far (see :data:`InferenceStats`)."""
        return {**self.stats, "alive_s": time.monotonic() - self.started, "cpu_s": process_cpu_seconds(),
                "gpu_utilization": _gpu_utilization(getattr(self.evaluator, "device", None))}

    async def clear_cache(self) -> None:
        """Forget cached evaluations (benchmarks time the network, not the cache)."""
        clear = getattr(self.evaluator, "clear_cache", None)
        if clear is not None:
            clear()

    async def describe(self) -> dict[str, Any]:
        """The network's device, dtype, runtime and torch CPU threads (see :func:`describe_evaluator`)."""
        return describe_evaluator(self.evaluator)


def actor_evaluator(model: bytes, rules: Rules, options: Any, threads: int | None) -> Evaluator:
    """The network of an actor (an inference server, or a self-play actor that runs its own), loaded from the
    model file's bytes ``model`` (from Ray's object store: no shared filesystem needed) with ``options`` (an
    :class:`~engine.nn.loading.EvaluatorOptions`) and warmed up (compiled) before a first evaluation waits on
    it. Sets the process's torch CPU threads to ``threads`` (None: every core): the actor's process is its own.
    """
    from engine import load_evaluator, set_cpu_threads

    set_cpu_threads(threads)
    handle, path = tempfile.mkstemp(suffix=".safetensors")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(model)
        evaluator = load_evaluator(rules, path, options)
    finally:
        os.unlink(path)
    warm_up = getattr(evaluator, "warm_up", None)
    if warm_up is not None:
        warm_up(rules.size)
    return evaluator


def describe_evaluator(evaluator: Evaluator) -> dict[str, Any]:
    """Device, dtype, runtime and torch CPU threads of an actor's network, as ``engine bench`` reports them."""
    import torch

    return {"device": str(getattr(evaluator, "device", "cpu")), "dtype": getattr(evaluator, "dtype_name", ""),
            "runtime": getattr(evaluator, "runtime", ""), "threads": torch.get_num_threads()}


def process_cpu_seconds() -> float:
    """CPU seconds this process has spent (user and system), all its threads together: the network's torch
    threads too, not its child processes."""
    times = os.times()
    return times.user + times.system


def _gpu_utilization(device: Any) -> float:
    """The device's utilisation in percent over the last sample period (NVML), or -1 where unknown."""
    if device is None or getattr(device, "type", "cpu") != "cuda":
        return -1.0
    try:
        import torch

        return float(torch.cuda.utilization(device))
    except Exception:  # noqa: BLE001 -- pynvml missing or the driver refusing: unknown, not an error
        return -1.0


class RemoteEvaluator:
    """An evaluator whose network is an :class:`InferenceServer` actor: what a self-play actor searches with.

    ``asynchronous``: the actor's self-play walks its other lane of games (``training.batching.play_in_flight``)
    while the server answers. Worth it where the server's network runs on a GPU; a CPU server shares the
    actors' cores, and there the lanes' halved batches cost the network more than the overlap gains
    (docs/benchmarks.md, *Self-play*)."""

    def __init__(self, server: Any, asynchronous: bool = False) -> None:
        self.server = server
        self.asynchronous = asynchronous

    def evaluate(self, positions: PositionBatch, legal: np.ndarray | None = None) -> Evaluation:
        return self.submit(positions, legal).result()

    def submit(self, positions: PositionBatch, legal: np.ndarray | None = None) -> _Requested:
        """Send the request; its :meth:`_Requested.result` waits for the answer."""
        if legal is None:
            legal = positions.legal_masks()
        return _Requested(self.server.evaluate.remote(positions.cells, positions.info, legal))

    def clear_cache(self) -> None:
        """Forget the server's cached evaluations."""
        import ray

        ray.get(self.server.clear_cache.remote())


class _Requested:
    """A request to an inference server, answered or not yet."""

    def __init__(self, reference: Any) -> None:
        self._reference = reference

    def result(self) -> Evaluation:
        import ray

        return ray.get(self._reference)
