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

from engine.lazy import lazy_getattr

__all__ = ["RayCluster", "RunStore", "Layout", "connected", "model_pool", "play_on_ray", "bench_on_ray", "train_on_ray"]

_HOMES = {"RayCluster": "backend", "RunStore": "storage", "Layout": "pool", "connected": "connect",
          "model_pool": "selfplay", "play_on_ray": "selfplay", "bench_on_ray": "selfplay", "train_on_ray": "train"}

__getattr__ = lazy_getattr("training.cluster", {name: f"training.cluster.{home}" for name, home in _HOMES.items()})
