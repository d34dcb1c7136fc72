"""Loading what a user names as a network: model files, Leela Zero weights and KataGo's networks, and the
evaluator that plays them.

Wherever a network file is given (``--model``, a match's player, self-play),
Leela Zero weights serve too: :func:`model_path` recognises them by their
content and converts them once into a model file kept in a cache
(:func:`engine.nn.leela.converted_model_path`); :func:`read_info` and
:func:`load_model` read either kind. :func:`load_evaluator` is the one place
that joins a network to its encoder. The encoder is named in the model's
metadata; it is imported inside the function, so that ``engine`` still imports
no encoder at module level (the search receives its evaluator ready-made).
KataGo's model files (``.bin.gz``, ``.bin``, ``.txt.gz``, ``.txt``:
:mod:`engine.nn.katago_format`) are played as they are, by
:class:`~engine.nn.katago_evaluator.KataGoEvaluator`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.checks import check_choice
from engine.core.rules import Rules
from engine.nn import model_format
from engine.nn.config import RUNTIMES
from engine.nn.model_format import ModelInfo, is_katago_model, is_leela_zero
from engine.search.evaluator import Evaluator

if TYPE_CHECKING:
    from engine.nn.model_file import Model

__all__ = ["EvaluatorOptions", "model_path", "read_info", "load_model", "load_evaluator", "compile_ahead"]


def model_path(path: str | os.PathLike[str]) -> Path:
    """The model file behind ``path``: itself, or for Leela Zero weights the model file converted from them
    (once; converting imports torch)."""
    if not is_leela_zero(path):
        return Path(path)
    from engine.nn.leela import converted_model_path

    return converted_model_path(path)


def read_info(path: str | os.PathLike[str]) -> ModelInfo:
    """The description of a model file or of Leela Zero weights, without loading the weights (a KataGo
    model is read whole)."""
    if is_katago_model(path):
        from engine.nn.katago_evaluator import read_katago_info

        return read_katago_info(path)
    return model_format.read_info(model_path(path))


def load_model(path: str | os.PathLike[str], **expect: Any) -> Model:
    """The torch network of a model file or of Leela Zero weights (``expect``:
    :func:`engine.nn.model_file.load_model`'s checks)."""
    from engine.nn import model_file

    if is_katago_model(path):
        raise model_format.ModelFormatError(f"{Path(path).name} is a KataGo network: it plays through "
                                            f"load_evaluator, and is not one of this engine's model files")
    return model_file.load_model(model_path(path), **expect)



@dataclass(frozen=True)
class EvaluatorOptions:
    """How to run a network: device (None: cuda, then mps, else cpu), dtype (auto, fp32, bf16, int8:
    ``engine.nn.config.DTYPES``), a random symmetry per evaluation, the evaluation cache size, the
    runtime, whether the network is compiled ahead of time by a separate process while it runs eagerly
    (``ahead_of_time``: front ends, which must answer at once and keep their pace; see
    :class:`~engine.nn.evaluator.NetEvaluator`), and whether Gomoku's decisive
    and anti-decisive moves correct the network (``decisive``: see
    :class:`~engine.nn.cached_evaluator.CachedNetEvaluator`). Torch's CPU threads are the process's,
    not an evaluator's: the command sets them (``set_cpu_threads``).

    ``runtime``: one of :data:`~engine.nn.config.RUNTIMES`. ``auto``, ``eager`` and ``compile`` run the torch network
    (:func:`~engine.nn.evaluator.pick_runtime`); ``numpy`` runs the numpy forward pass
    (:mod:`engine.nn.numpy_evaluator`) and never imports torch, on the CPU in float32 (``device``
    None or cpu, ``dtype`` auto or fp32), its threads numpy's BLAS's (``set_blas_threads``)."""

    device: str | None = None
    dtype: str = "auto"
    random_symmetry: bool = False
    cache_size: int = 1 << 15
    runtime: str = "auto"
    seed: int | None = None
    ahead_of_time: bool = False
    decisive: bool = True


def load_evaluator(rules: Rules, path: str | os.PathLike[str] | None,
                   options: EvaluatorOptions = EvaluatorOptions()) -> Evaluator:
    """A network evaluator for the model file or Leela Zero weights at ``path`` (a NumpyEvaluator for runtime
    ``numpy``, which imports no torch; for a front end's ``auto`` on a machine without a GPU a StagedEvaluator,
    numpy until torch's compiled network is ready; else a NetEvaluator), or a UniformEvaluator when it is None.

    Raises :class:`~engine.nn.model_format.ModelFormatError` when the file is not a
    model, or its game, board size or encoder does not fit ``rules``; ValueError for
    options the runtime cannot honour.
    """
    from engine.search.evaluator import UniformEvaluator

    check_choice("runtime", options.runtime, RUNTIMES)
    if path is None:
        return UniformEvaluator()
    from encoders import get_encoder

    if is_katago_model(path):
        from encoders.katago import KataGoEncoder
        from engine.nn.katago_evaluator import load_katago_evaluator

        return load_katago_evaluator(rules, path, KataGoEncoder, options)
    path = model_path(path)
    staged = _staged(options)
    if options.runtime == "numpy" or staged:
        from engine.nn.numpy_evaluator import NumpyEvaluator
        from engine.nn.numpy_net import load_numpy_model
        from engine.nn.staged_evaluator import StagedEvaluator

        if options.device not in (None, "cpu") or options.dtype not in ("auto", "fp32"):
            raise ValueError(f"the numpy runtime runs float32 on the cpu, not {options.dtype} on "
                             f"{options.device}")
        numpy_model = load_numpy_model(path, expect_game=rules.game, expect_size=rules.size)
        encoder = get_encoder(numpy_model.info.encoder, rules, numpy_model.info.num_planes)
        common = dict(random_symmetry=options.random_symmetry, cache_size=options.cache_size, seed=options.seed,
                      decisive=options.decisive)
        if staged:
            return StagedEvaluator(numpy_model, encoder, path, device=options.device, dtype=options.dtype, **common)
        return NumpyEvaluator(numpy_model, encoder, **common)
    from engine.nn import model_file
    from engine.nn.evaluator import NetEvaluator

    model = model_file.load_model(path, expect_game=rules.game, expect_size=rules.size)
    encoder = get_encoder(model.info.encoder, rules, model.info.num_planes)
    return NetEvaluator(model, encoder, device=options.device, dtype=options.dtype,
                        random_symmetry=options.random_symmetry, cache_size=options.cache_size,
                        seed=options.seed, runtime=options.runtime,
                        ahead_of_time=options.ahead_of_time, decisive=options.decisive)


def _staged(options: EvaluatorOptions) -> bool:
    """Whether a front end's network starts on numpy and moves to torch in the background
    (:mod:`engine.nn.staged_evaluator`): for the runtime ``auto`` on a machine without a GPU, where torch's
    import would delay the first move by seconds."""
    return (options.ahead_of_time and options.runtime == "auto" and options.device in (None, "cpu")
            and options.dtype in ("auto", "fp32") and not _accelerator_present())


def _accelerator_present() -> bool:
    """Whether torch may find a GPU here (CUDA, ROCm, WSL's, Apple's), judged without importing it."""
    return sys.platform == "darwin" or any(os.path.exists(device) for device in ("/dev/nvidiactl", "/dev/kfd",
                                                                                     "/dev/dxg"))


def compile_ahead(evaluator: Evaluator, size: int) -> None:
    """Have ``evaluator``'s network compiled for ``size`` x ``size`` boards by a separate process, where it is a
    torch network loaded with ``ahead_of_time``; any other evaluator has nothing to compile. Returns at once."""
    start = getattr(evaluator, "compile_ahead", None)   # NetEvaluator's; importing it here would import torch
    if start is not None:
        start(size)
