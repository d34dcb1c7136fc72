"""Joining a Ray cluster for a command: ``--ray local`` (a cluster of this machine, started and stopped with
the command), ``--ray auto`` (the cluster this machine belongs to, as ``ray start`` or ``ray up`` made it) or
``--ray ADDRESS`` (``HOST:PORT`` of a head node, or ``ray://HOST:10001`` through Ray Client)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["LOOPBACK_ENV", "connected", "describe_cluster"]

LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
"""The environment in which a ``--ray local`` cluster binds the loopback address only (the commands set it
before Ray is imported: Ray reads it at import time): a single machine's cluster needs no network."""


@contextlib.contextmanager
def connected(target: str, num_cpus: int | None = None, dashboard: bool | None = None) -> Iterator[None]:
    """Ray initialised for ``target`` while the block runs; a cluster this call started is shut down after it.

    When this process has already joined a cluster (a test, a notebook), that cluster is used as it is.
    ``num_cpus`` and ``dashboard`` apply to ``local`` only (None: every core; the dashboard where Ray's
    ``default`` extra is installed, as ``ray.init`` decides).
    """
    import ray

    if ray.is_initialized():
        yield
        return
    if target == "local":
        # the local cluster's processes start from this one and inherit its environment (caches, PYTHONPATH)
        ray.init(num_cpus=num_cpus, include_dashboard=dashboard)
    else:
        ray.init(address=target)
    try:
        yield
    finally:
        ray.shutdown()


def describe_cluster() -> str:
    """``3 nodes, 48 CPUs, 2 GPUs``: what the joined cluster holds now."""
    import ray

    resources = ray.cluster_resources()
    alive = sum(1 for node in ray.nodes() if node.get("Alive"))
    gpus = int(resources.get("GPU", 0))
    return (f"{alive} node{'s' * (alive != 1)}, {int(resources.get('CPU', 0))} CPUs"
            + (f", {gpus} GPU{'s' * (gpus != 1)}" if gpus else ""))
