"""A front end's network on the CPU: the numpy forward pass at once, torch's compiled network once it is ready.

Importing torch takes 2-3 s, longer than a whole move on a small board, and a front end must answer its
first ``genmove`` at once. :class:`StagedEvaluator` therefore starts on the numpy forward pass
(:mod:`engine.nn.numpy_net`, no torch) and, once the first search on a board size has answered
(:meth:`StagedEvaluator.compile_ahead`), loads the torch network in a background thread, which has the
network compiled ahead of time for that size (:mod:`engine.nn.precompiled`: a separate process, or the
package already in the user's cache). Evaluations move to torch only when its compiled form for the board
size is there (or, where torch does not compile ahead of time, such as on bf16 hardware, as soon as it is
loaded): the eager torch network runs the bundled networks at 0.9-1.2x the numpy one's speed, the compiled
one at about 1.5x. Both forms give the same outputs to float tolerance, and both sit behind one cache.
"""

from __future__ import annotations

import logging
import threading
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
        network = self._torch
        if network is not None and network.ready_for(planes.shape[-1]):
            return network.infer(planes)   # no symmetry of its own: this evaluator drew it
        return self.net(planes)

    def __repr__(self) -> str:
        return (f"StagedEvaluator({self.config.name}, encoder={self.encoder.name!r}, runtime={self.runtime}, "
                f"cache={len(self._cache)}/{self.cache_size})")
