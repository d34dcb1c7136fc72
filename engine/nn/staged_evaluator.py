"""A front end's network on the CPU: the numpy forward pass at once, torch's compiled network once it is ready.

Importing torch takes 2-3 s, longer than a whole move on a small board, and a front end must answer its
first ``genmove`` at once. :class:`StagedEvaluator` therefore starts on the numpy forward pass
(:mod:`engine.nn.numpy_net`, no torch) and, once the first search on a board size has answered
(:meth:`StagedEvaluator.compile_ahead`), loads the torch network in a background thread, which has the
network compiled ahead of time for that size (:mod:`engine.nn.precompiled`: a separate process, or the
package already in the user's cache). Evaluations move to torch's compiled form for a board size once it is
there; until then to torch's eager network if, timed once on the first batch of that size, it beats numpy's
(how much depends on the CPU: with bf16 arithmetic in hardware it can be several times faster, without it
about as fast), else they stay on numpy. The compile runs at the lowest priority, so on a core the engine
keeps busy (pondering, analysis) it can take most of an hour; the eager network carries that time. All forms
give the same outputs to float tolerance (bf16's, where torch runs in bf16), and all sit behind one cache.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.nn.config import NetOutput
from engine.nn.numpy_evaluator import NumpyEvaluator
from engine.nn.numpy_net import NumpyModel

if TYPE_CHECKING:
    from engine.nn.cached_evaluator import Encoder
    from engine.nn.evaluator import NetEvaluator

__all__ = ["StagedEvaluator"]

log = logging.getLogger(__name__)


class StagedEvaluator(NumpyEvaluator):
    """The network of the model file at ``path`` (loaded for numpy as ``model``), on numpy until torch's
    compiled form is ready. ``device`` and ``dtype`` are the torch network's (None and ``auto``: as
    :class:`~engine.nn.evaluator.NetEvaluator` picks them); the other arguments are
    :class:`~engine.nn.cached_evaluator.CachedNetEvaluator`'s. Thread-safe as the evaluators it joins."""

    def __init__(self, model: NumpyModel, encoder: Encoder, path: Path, *, device: str | None = None,
                 dtype: str = "auto", random_symmetry: bool = False, cache_size: int, seed: int | None = None,
                 decisive: bool = True) -> None:
        super().__init__(model, encoder, random_symmetry=random_symmetry, cache_size=cache_size, seed=seed,
                         decisive=decisive)
        self.path = Path(path)
        self._device = device
        self._dtype = dtype
        self._seed = seed
        self._torch: NetEvaluator | None = None
        self._sizes: set[int] = set()   # board sizes to compile for, once torch is loaded
        self._eager_pays: dict[int, bool] = {}   # board size: torch's eager network beats numpy's (timed once)
        self._loader: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def runtime(self) -> str:   # type: ignore[override]  # NumpyEvaluator's is a class constant
        return "numpy" if self._torch is None else f"numpy, then torch {self._torch.runtime}"

    @property
    def compiled_sizes(self) -> frozenset[int]:
        """The board sizes whose evaluations run on torch's compiled network."""
        return frozenset() if self._torch is None else self._torch.compiled_sizes

    def compile_ahead(self, size: int) -> None:
        """Have torch's network compiled for ``size`` x ``size`` boards, loading torch first in a background
        thread (once); returns at once."""
        with self._lock:
            if self._torch is not None:
                self._torch.compile_ahead(size)
                return
            self._sizes.add(size)
            if self._loader is None:
                self._loader = threading.Thread(target=self._load_torch, name="engine-torch-network", daemon=True)
                self._loader.start()

    def wait_for_torch(self, timeout: float | None = None) -> bool:
        """Block until the background load of torch's network has ended (``timeout`` seconds at most); whether
        it has. For tests and benchmarks: moves never wait for it."""
        loader = self._loader
        if loader is not None:
            loader.join(timeout)
        return self._torch is not None

    def _load_torch(self) -> None:
        from engine.nn.evaluator import NetEvaluator
        from engine.nn.model_file import load_model

        try:
            network = NetEvaluator(load_model(self.path), self.encoder, device=self._device, dtype=self._dtype,
                                   cache_size=0, seed=self._seed, ahead_of_time=True, decisive=self.decisive)
        except Exception:  # noqa: BLE001 -- the numpy network plays on: slower, not wrong
            log.warning("the torch network did not load: the numpy forward pass plays on", exc_info=True)
            return
        with self._lock:
            self._torch = network
            sizes, self._sizes = self._sizes, set()
        for size in sorted(sizes):
            network.compile_ahead(size)
        log.info("network: %r loaded (moves run on it once it is compiled for their board size)", network)

    def _forward(self, planes: np.ndarray) -> NetOutput[np.ndarray]:
        network, size = self._torch, planes.shape[-1]
        if network is None:
            return self.net(planes)
        if network.ready_for(size):
            return network.infer(planes)   # no symmetry of its own: this evaluator drew it
        eager_pays = self._eager_pays.get(size)
        if eager_pays is None:
            return self._timed_forward(network, planes)
        return network.infer(planes) if eager_pays else self.net(planes)

    def _timed_forward(self, network: NetEvaluator, planes: np.ndarray) -> NetOutput[np.ndarray]:
        """The first batch of a board size after torch loaded, before it is compiled: on torch's eager network
        (twice, its first pass setting up its kernels) and on numpy's, timed; which is faster decides where the
        size's batches run until the compiled form is there. The faster one's outputs."""
        size = planes.shape[-1]
        network.infer(planes)
        started = time.perf_counter()
        eager = network.infer(planes)
        eager_seconds = time.perf_counter() - started
        started = time.perf_counter()
        numpy = self.net(planes)
        eager_pays = self._eager_pays[size] = eager_seconds < time.perf_counter() - started
        log.info("network: %dx%d boards run on torch's eager network until it is compiled: %s", size, size,
                 "faster than numpy's" if eager_pays else "no, numpy's is faster")
        return eager if eager_pays else numpy

    def __repr__(self) -> str:
        return (f"StagedEvaluator({self.config.name}, encoder={self.encoder.name!r}, runtime={self.runtime}, "
                f"cache={len(self._cache)}/{self.cache_size})")
