"""The numpy forward pass behind the evaluator protocol: :class:`NetEvaluator`'s behaviour without torch.

``engine gomocup`` runs it by default (``EvaluatorOptions(runtime="numpy")``):
importing torch alone costs about 220 MB and Gomocup's fast games allow 350 MB.
Everything but the forward pass (the cache, the symmetries, legal masking and
renormalisation, value clipping) is :class:`~engine.nn.cached_evaluator.CachedNetEvaluator`'s,
the same code the torch evaluator runs. Always float32 on the CPU, through
numpy's BLAS, whose threads the command sets (:func:`engine.nn.blas.set_blas_threads`).
"""

from __future__ import annotations

import numpy as np

from engine.nn.cached_evaluator import DEFAULT_CACHE_SIZE, CachedNetEvaluator, Encoder
from engine.nn.config import NetOutput
from engine.nn.numpy_net import NumpyModel, NumpyNet

__all__ = ["NumpyEvaluator"]

class NumpyEvaluator(CachedNetEvaluator):
    """A model's network run by :class:`~engine.nn.numpy_net.NumpyNet` behind the evaluator protocol.

    ``model`` is a :class:`~engine.nn.numpy_net.NumpyModel` (from
    :func:`~engine.nn.numpy_net.load_numpy_model`; its encoder must be
    ``encoder``) or a bare :class:`~engine.nn.numpy_net.NumpyNet`. The other
    arguments are :class:`~engine.nn.cached_evaluator.CachedNetEvaluator`'s.
    ``device``, ``dtype_name`` and ``runtime`` say how it runs, as
    :class:`~engine.nn.evaluator.NetEvaluator`'s attributes do.
    """

    device = "cpu"
    dtype_name = "fp32"
    runtime = "numpy"

    def __init__(self, model: NumpyModel | NumpyNet, encoder: Encoder, *, random_symmetry: bool = False,
                 cache_size: int = DEFAULT_CACHE_SIZE, seed: int | None = None, decisive: bool = True) -> None:
        net = model if isinstance(model, NumpyNet) else model.net
        info = None if isinstance(model, NumpyNet) else model.info
        super().__init__(net.config, info, encoder, random_symmetry=random_symmetry, cache_size=cache_size,
                         seed=seed, decisive=decisive)
        self.net = net

    def _forward(self, planes: np.ndarray) -> NetOutput[np.ndarray]:
        return self.net(planes)

    def __repr__(self) -> str:
        return (f"NumpyEvaluator({self.config.name}, encoder={self.encoder.name!r}, "
                f"cache={len(self._cache)}/{self.cache_size})")
