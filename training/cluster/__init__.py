"""Self-play and training on a Ray cluster (``--ray auto|local|ADDRESS``): ``pip install -e ".[ray]"``.

* :mod:`training.cluster.connect`: joining a cluster for a command.
* :mod:`training.cluster.storage`: the run directory as a shared path or an fsspec URL.
* :mod:`training.cluster.inference`: the inference actor (one per GPU), batching the leaves of many
  self-play actors into one network call, and the loading of an actor's network.
* :mod:`training.cluster.worker`: the self-play actor and the generation's shared game budget.
* :mod:`training.cluster.pool`: the actors' layout over the nodes, grown as nodes join.
* :mod:`training.cluster.selfplay`: the driver that hands out games and saves each as it ends.
* :mod:`training.cluster.train`: a generation's training as a Ray Train job (torch DDP on several GPUs).
* :mod:`training.cluster.progress`: one progress display for the whole cluster.
* :mod:`training.cluster.backend`: all of it as the loop's backend.

Ray is imported only inside the functions that need it, so importing this package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import lazy_getattr

if TYPE_CHECKING:
    from training.cluster.backend import RayCluster
    from training.cluster.connect import connected
    from training.cluster.pool import Layout
    from training.cluster.selfplay import bench_on_ray, model_pool, play_on_ray
    from training.cluster.storage import RunStore
    from training.cluster.train import train_on_ray

__all__ = [
    "RayCluster", "RunStore", "Layout", "connected", "model_pool", "play_on_ray", "bench_on_ray", "train_on_ray",
]

__getattr__ = lazy_getattr(__name__, __file__)
