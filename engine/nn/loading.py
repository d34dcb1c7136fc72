"""Building an evaluator from a model file: the one place that joins a network to its encoder.

The encoder is named in the model's metadata; it is imported here, inside the
function, so that ``engine`` still imports no encoder at module level (the
search receives its evaluator ready-made). GTP, self-play and the benchmarks
all come through :func:`load_evaluator`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from engine.core.rules import Rules
from engine.search.evaluator import Evaluator

__all__ = ["EvaluatorOptions", "load_evaluator"]


@dataclass(frozen=True)
class EvaluatorOptions:
    """How to run a network: device (None: cuda, then mps, else cpu), dtype (auto, fp32, bf16),
    a random symmetry per evaluation, the evaluation cache size, the runtime, and whether a board
    size runs eagerly until ``warm_up`` compiled it (``eager_until_compiled``: front ends, which
    must answer at once). Torch's CPU threads are the process's, not an evaluator's: the command
    sets them (``set_cpu_threads``)."""

    device: str | None = None
    dtype: str = "auto"
    random_symmetry: bool = False
    cache_size: int = 1 << 15
    runtime: str = "auto"
    seed: int | None = None
    eager_until_compiled: bool = False


def load_evaluator(rules: Rules, model_path: str | os.PathLike[str] | None,
                   options: EvaluatorOptions = EvaluatorOptions()) -> Evaluator:
    """A NetEvaluator for the model at ``model_path``, or a UniformEvaluator when it is None.

    Raises :class:`~engine.nn.model_file.ModelFormatError` when the file is not a
    model, or its game, board size or encoder does not fit ``rules``.
    """
    from engine.nn.evaluator import NetEvaluator
    from engine.search.evaluator import UniformEvaluator

    if model_path is None:
        return UniformEvaluator()
    from encoders import get_encoder
    from engine.nn.model_file import load_model

    model = load_model(model_path, expect_game=rules.game, expect_size=rules.size)
    encoder = get_encoder(model.info.encoder, rules, model.info.num_planes)
    return NetEvaluator(model, encoder, device=options.device, dtype=options.dtype,
                        random_symmetry=options.random_symmetry, cache_size=options.cache_size,
                        seed=options.seed, runtime=options.runtime,
                        eager_until_compiled=options.eager_until_compiled)
