"""KataGo's networks behind the evaluator protocol, so that our search plays them.

:class:`KataGoEvaluator` encodes a batch with the ``katago-v7`` encoder
(``encoders.katago``: KataGo's 22 spatial and 19 global features, the latter
as constant planes), runs :class:`~engine.nn.katago_net.KataGoNet` in float32
with torch, and reports what KataGo reports (:func:`~engine.nn.katago_net.postprocess`),
from the side to move: the policy logits (masked to the legal moves by
:class:`~engine.nn.cached_evaluator.CachedNetEvaluator`), the value as the
chance of winning minus the chance of losing, the score as KataGo's *lead*
(the points the side to move is ahead by: what KataGo's analysis calls
``scoreLead``) with KataGo's score stdev, and the ownership. The cache keys
include the rules, whose komi and ko rule are inputs of the network.

:func:`katago_info` is the :class:`~engine.nn.model_format.ModelInfo` of a
KataGo file: Go on any board up to 19x19, encoder ``katago-v7``.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.nn.cached_evaluator import DEFAULT_CACHE_SIZE, CachedNetEvaluator, Encoder
from engine.nn.config import NetConfig, NetOutput
from engine.nn.katago_format import KataGoModel, read_katago_model
from engine.nn.model_format import ModelFormatError, ModelInfo

__all__ = [
    "KataGoEvaluator",
    "katago_info",
    "read_katago_info",
    "load_katago_evaluator",
    "KATAGO_ENCODER",
    "KATAGO_MAX_SIZE",
]

KATAGO_ENCODER = "katago-v7"
KATAGO_PLANES = 41
KATAGO_MAX_SIZE = 19
"""The largest board KataGo's networks are run on (its engine's default build)."""
_KO_RULE, _TERRITORY = 22 + 6, 22 + 9  # the planes of the global features that say the ko rule and scoring


def katago_info(model: KataGoModel) -> ModelInfo:
    """The description of a KataGo network as our model files give one: Go, any size, encoder ``katago-v7``."""
    config = NetConfig(
        blocks=model.blocks,
        filters=model.trunk.channels,
        in_planes=KATAGO_PLANES,
        board_size=None,
        heads="pooled",
        aux_heads=("ownership", "score"),
    )
    return ModelInfo(game="go", encoder=KATAGO_ENCODER, num_planes=KATAGO_PLANES, config=config)


def read_katago_info(path: str | os.PathLike[str]) -> ModelInfo:
    """:func:`katago_info` of the KataGo model file at ``path`` (reads the whole file)."""
    return katago_info(read_katago_model(path))


class KataGoEvaluator(CachedNetEvaluator):
    """A KataGo network behind the :class:`~engine.search.evaluator.Evaluator` protocol (see the module
    docstring). ``device``: None picks cuda, then mps, else cpu. ``random_symmetry``, ``seed`` and the
    cache are :class:`~engine.nn.cached_evaluator.CachedNetEvaluator`'s. ``dtype_name`` and ``runtime`` say
    how it runs, as :class:`~engine.nn.evaluator.NetEvaluator`'s attributes do."""

    dtype_name = "fp32"
    runtime = "eager"

    def __init__(
        self,
        model: KataGoModel,
        encoder: Encoder,
        *,
        device: str | None = None,
        random_symmetry: bool = False,
        cache_size: int = DEFAULT_CACHE_SIZE,
        seed: int | None = None,
    ) -> None:
        from engine.nn.evaluator import pick_device
        from engine.nn.katago_net import KataGoNet

        info = katago_info(model)
        super().__init__(
            info.config,
            info,
            encoder,
            random_symmetry=random_symmetry,
            cache_size=cache_size,
            seed=seed,
            decisive=False,
        )
        self.model = model
        self.device = pick_device(device)
        self.net = KataGoNet(model).to(self.device)

    def _keys(self, batch: PositionBatch) -> list[Hashable]:
        return [(key, batch.rules) for key in super()._keys(batch)]

    def _forward(self, planes: np.ndarray) -> NetOutput[np.ndarray]:
        """The network on ``katago-v7`` planes ``[B, 41, N, N]``: the spatial features, then the global ones as
        constant planes (read at the first point)."""
        import torch

        from engine.nn.katago_net import postprocess

        planes = np.asarray(planes, dtype=np.float32)
        spatial, global_ = planes[:, : self.model.spatial_inputs], planes[:, self.model.spatial_inputs :, 0, 0]
        with torch.inference_mode():
            out = self.net(
                torch.from_numpy(np.ascontiguousarray(spatial)).to(self.device),
                torch.from_numpy(np.ascontiguousarray(global_)).to(self.device),
            )
        superko_area = (planes[:, _KO_RULE, 0, 0] != 0) & (planes[:, _TERRITORY, 0, 0] == 0)
        result = postprocess(out, self.model, no_result_possible=~superko_area)
        return NetOutput(result.policy, result.win - result.loss, result.ownership, result.lead, result.score_stdev)

    def __repr__(self) -> str:
        return (
            f"KataGoEvaluator({self.model.name}, version {self.model.version}, encoder={self.encoder.name!r}, "
            f"device={self.device}, dtype={self.dtype_name}, cache={len(self._cache)}/{self.cache_size})"
        )


def load_katago_evaluator(
    rules: Rules, path: str | os.PathLike[str], encoder_factory: Any, options: Any
) -> KataGoEvaluator:
    """The evaluator of the KataGo model file at ``path`` for ``rules`` (Go up to 19x19), with the encoder
    ``encoder_factory(rules, pass_alive_suicide)`` builds and :class:`~engine.nn.loading.EvaluatorOptions`
    ``options`` (float32 on torch only: ``dtype`` auto or fp32, ``runtime`` anything but numpy)."""
    path = Path(path)
    if rules.game != "go" or rules.size > KATAGO_MAX_SIZE:
        raise ModelFormatError(
            f"KataGo model {path.name} plays Go on boards up to {KATAGO_MAX_SIZE}x"
            f"{KATAGO_MAX_SIZE}; this game is {rules.game} {rules.size}x{rules.size}"
        )
    if options.dtype not in ("auto", "fp32") or options.runtime == "numpy":
        raise ValueError(f"KataGo networks run in fp32 on torch, not {options.dtype} on the {options.runtime} runtime")
    model = read_katago_model(path)
    encoder = encoder_factory(rules, model.pass_alive_assumes_suicide)
    return KataGoEvaluator(
        model,
        encoder,
        device=options.device,
        random_symmetry=options.random_symmetry,
        cache_size=options.cache_size,
        seed=options.seed,
    )
