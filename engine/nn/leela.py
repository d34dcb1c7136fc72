"""Leela Zero's weights format: read it into our network, write ours out, cache the conversions.

The format (Leela Zero's README, "Weights format"; ``src/Network.cpp``) is
text, plain or gzipped, one tensor per line, numbers separated by spaces:

=================  ===========================================================
line 1             the version: ``1``, the value head gives the side to move's
                   value; ``2``, black's (as the ELF and minigo converters write)
4 lines            the input convolution, 3x3 from 18 planes to F filters:
                   weights ``[F, 18, 3, 3]``, biases, batch-norm means, variances
8 lines a block    the residual block's two 3x3 convolutions, F to F, 4 lines each
6 lines            policy head: 1x1 convolution to 2 (4 lines), fully connected
                   722 -> 362 (weights ``[362, 722]``, biases)
8 lines            value head: 1x1 convolution to 1 (4 lines), fully connected
                   361 -> 256 and 256 -> 1 (weights and biases each)
=================  ===========================================================

so a network of B blocks has 19 + 8 B lines, and F is the count of the third.
Batch norm has no scale; the bias line is its shift, which Leela Zero
subtracts from the mean: a layer computes ``(conv(x) + bias - mean) /
sqrt(variance + 1e-5)``. The fully connected heads fix the board at 19x19.
Leela Zero's planes are :mod:`encoders.history`'s ``lz18``.

Leela Zero counts rows from the bottom (its ``y = 0`` is GTP row 1), actions
count them from the top. Converting flips every 3x3 kernel top to bottom and
reorders the points of the fully connected layers, so that our network on our
planes computes exactly what Leela Zero's computes on its own; the same
rearrangement converts back.

``--model`` accepts such a file anywhere a model file goes: it is recognised
by its content (:func:`is_leela_zero`), converted once and kept as a model file
in :func:`cache_dir`, named by the weights file's SHA-256, so the next start
reads the model file directly.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
from torch import nn

from engine.atomic import write_bytes
from engine.core.checks import is_number
from engine.nn.config import MAX_BLOCKS
from engine.nn.model_file import MODEL_SUFFIX, Model, ModelFormatError, ModelInfo, save_model
from engine.nn.model_format import GZIP_MAGIC, is_leela_zero
from engine.nn.net import NetConfig, PolicyValueNet
from engine.nn.user_cache import user_cache_dir

__all__ = ["LEELA_VERSIONS", "LEELA_ENCODER", "is_leela_zero", "read_leela", "write_leela", "cache_dir",
           "converted_model_path"]

log = logging.getLogger(__name__)

LEELA_VERSIONS = (1, 2)
LEELA_ENCODER = "lz18"
INPUT_PLANES = 18
BOARD_SIZE = 19
POINTS = BOARD_SIZE * BOARD_SIZE
BLACK_TO_MOVE_PLANE = 16
"""lz18's plane of ones when black is to move: where a version 2 network learns whose value to give."""
EPSILON = 1e-5
"""Leela Zero's batch-norm epsilon."""
HEAD_LINES = 14
MAX_LINES = 1 + 4 + 8 * MAX_BLOCKS + HEAD_LINES
MAX_LINE_CHARS = 64 << 20
"""Longest line read (a 3x3 convolution of 384 filters takes 17 MB at full precision; Leela Zero's widest
networks have 256)."""
MAX_TEXT_CHARS = 2 << 30
"""Most text read in all (Leela Zero's 40-block network of 256 filters takes about 600 MB)."""
_FLIP = np.arange(POINTS).reshape(BOARD_SIZE, BOARD_SIZE)[::-1].reshape(-1)
"""Our point index -> Leela Zero's for the same point (rows counted from the other edge); its own inverse."""


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of the plain or gzipped file, or a ModelFormatError naming the line; read in
    bounded memory (MAX_LINE_CHARS a line, MAX_TEXT_CHARS in all, MAX_LINES lines), so that a small gzipped file
    that unpacks to gigabytes is refused rather than read."""
    name = f"Leela Zero weights {path.name}"
    with open(path, "rb") as handle:
        gzipped = handle.read(2) == GZIP_MAGIC
    number, total = 0, 0
    try:
        with (gzip.open(path, "rt", encoding="ascii") if gzipped else open(path, encoding="ascii")) as handle:
            while text := handle.readline(MAX_LINE_CHARS + 1):
                number, total = number + 1, total + len(text)
                if len(text) > MAX_LINE_CHARS:
                    raise ModelFormatError(f"{name}, line {number}: longer than {MAX_LINE_CHARS} characters")
                if number > MAX_LINES:
                    raise ModelFormatError(f"{name}: more than {MAX_LINES} lines, the most a network of "
                                           f"{MAX_BLOCKS} blocks has")
                if total > MAX_TEXT_CHARS:
                    raise ModelFormatError(f"{name}: more than {MAX_TEXT_CHARS >> 30} GiB of text")
                yield number, text
    except (EOFError, OSError, zlib.error, UnicodeDecodeError) as error:
        raise ModelFormatError(f"{name}, line {number + 1}: cannot be read (truncated or corrupt: {error})") from error


def _layers(net: PolicyValueNet) -> list[tuple[nn.Module, np.ndarray | None, np.ndarray | None]]:
    """The layers in the file's order: ``(module, output order, input order)``.

    A module is a convolution with its batch norm (``nn.Sequential``, 4 lines)
    or a fully connected layer (``nn.Linear``, 2 lines). The orders (None for
    none) take Leela Zero's rows or columns to ours and back: the points of
    the policy's outputs and of the layers reading the 1x1 convolutions.
    """
    heads = net.heads
    convolutions = [net.stem] + [conv for block in net.tower for conv in (block.first, block.second)]
    policy_out = np.concatenate([_FLIP, [POINTS]])
    policy_in = np.concatenate([_FLIP, POINTS + _FLIP])
    return ([(conv, None, None) for conv in convolutions + [heads.policy_conv]]
            + [(heads.policy_fc, policy_out, policy_in), (heads.value_conv, None, None),
               (heads.value_fc[0], None, _FLIP), (heads.value_fc[2], None, None)])


def _expected_sizes(blocks: int, filters: int) -> list[tuple[str, int]]:
    """What each line after the version holds: a description and its count of numbers."""
    def conv(name: str, inputs: int, outputs: int, kernel: int) -> list[tuple[str, int]]:
        return [(f"{name} weights", outputs * inputs * kernel * kernel), (f"{name} biases", outputs),
                (f"{name} batch-norm means", outputs), (f"{name} batch-norm variances", outputs)]

    def dense(name: str, inputs: int, outputs: int) -> list[tuple[str, int]]:
        return [(f"{name} weights", outputs * inputs), (f"{name} biases", outputs)]

    sizes = conv("input convolution", INPUT_PLANES, filters, 3)
    for block in range(1, blocks + 1):
        sizes += conv(f"block {block} first convolution", filters, filters, 3)
        sizes += conv(f"block {block} second convolution", filters, filters, 3)
    sizes += conv("policy convolution", filters, 2, 1) + dense("policy fully connected", 2 * POINTS, POINTS + 1)
    sizes += conv("value convolution", filters, 1, 1) + dense("value fully connected 1", POINTS, 256)
    return sizes + dense("value fully connected 2", 256, 1)


def _parse(path: Path) -> tuple[int, list[tuple[int, np.ndarray]]]:
    """The version and every tensor line as ``(line number, float32 numbers)``."""
    name = f"Leela Zero weights {path.name}"
    version = None
    tensors: list[tuple[int, np.ndarray]] = []
    blank = None
    for number, text in _lines(path):
        if version is None:
            word = text.strip()
            if not word.isdigit() or int(word) not in LEELA_VERSIONS:
                raise ModelFormatError(f"{name}, line 1: version {word[:20]!r}; this engine reads versions "
                                       f"{' and '.join(map(str, LEELA_VERSIONS))}")
            version = int(word)
            continue
        words = text.split()
        if not words:
            blank = blank or number
            continue
        if blank is not None:
            raise ModelFormatError(f"{name}, line {blank}: empty")
        try:
            with np.errstate(over="ignore"):   # a number beyond float32 becomes inf, refused below
                values = np.array(words, dtype=np.float32)
        except ValueError:
            bad = next(word for word in words if not is_number(word))
            raise ModelFormatError(f"{name}, line {number}: {bad[:30]!r} is not a number") from None
        if not np.isfinite(values).all():
            raise ModelFormatError(f"{name}, line {number}: holds infinite or NaN numbers")
        tensors.append((number, values))
    if version is None:
        raise ModelFormatError(f"{name} is empty")
    return version, tensors


def read_leela(path: str | os.PathLike[str]) -> Model:
    """Leela Zero weights (plain or gzipped, version 1 or 2) as our model: ``lz18``, fc heads, 19x19, go.

    Raises :class:`ModelFormatError` naming the line of a malformed or truncated file.
    """
    path = Path(path)
    version, tensors = _parse(path)
    name = f"Leela Zero weights {path.name}"
    blocks, rest = divmod(len(tensors) - 4 - HEAD_LINES, 8)
    if blocks < 0 or rest:
        last = tensors[-1][0] if tensors else 1
        raise ModelFormatError(f"{name} ends after line {last}: {len(tensors) + 1} lines, but a network has 19 + "
                               f"8 x blocks lines (truncated, or not Leela Zero weights)")
    filters = tensors[1][1].size
    for (number, values), (what, size) in zip(tensors, _expected_sizes(blocks, filters)):
        if values.size != size:
            raise ModelFormatError(f"{name}, line {number}: the {what} of a b{blocks}c{filters} network are {size} "
                                   f"numbers, not {values.size} (truncated, or not Leela Zero weights)")
    config = NetConfig(blocks, filters, INPUT_PLANES, BOARD_SIZE, "fc",
                       value_black_plane=BLACK_TO_MOVE_PLANE if version == 2 else None)
    net = PolicyValueNet(config)
    lines = iter(values for _, values in tensors)
    with torch.no_grad():
        for module, rows, columns in _layers(net):
            if isinstance(module, nn.Linear):
                _load_linear(module, next(lines), next(lines), rows, columns)
            else:
                _load_conv_bn(module, next(lines), next(lines), next(lines), next(lines))
    info = ModelInfo(game="go", encoder=LEELA_ENCODER, num_planes=INPUT_PLANES, config=config)
    return Model(net.eval(), info, None)


def _reorder(matrix: np.ndarray, rows: np.ndarray | None, columns: np.ndarray | None) -> np.ndarray:
    if rows is not None:
        matrix = matrix[rows]
    return matrix if columns is None else matrix[:, columns]


def _load_linear(layer: nn.Linear, weights: np.ndarray, biases: np.ndarray, rows: np.ndarray | None,
                 columns: np.ndarray | None) -> None:
    matrix = _reorder(weights.reshape(layer.out_features, layer.in_features), rows, columns)
    layer.weight.copy_(torch.from_numpy(matrix.copy()))
    layer.bias.copy_(torch.from_numpy(biases if rows is None else biases[rows]))


def _load_conv_bn(layer: nn.Module, weights: np.ndarray, biases: np.ndarray, means: np.ndarray,
                  variances: np.ndarray) -> None:
    """Leela Zero's ``(conv + bias - mean) / sqrt(var + eps)`` as our conv and batch norm (scale 1, shift 0)."""
    conv, norm = layer[0], layer[1]
    kernels = weights.reshape(conv.weight.shape)[:, :, ::-1, :]   # rows counted from the other edge
    conv.weight.copy_(torch.from_numpy(kernels.copy()))
    norm.weight.fill_(1.0)
    norm.bias.zero_()
    norm.running_mean.copy_(torch.from_numpy(means - biases))
    norm.running_var.copy_(torch.from_numpy(variances + np.float32(EPSILON - norm.eps)))


def write_leela(path: str | os.PathLike[str], model: Model) -> Path:
    """Write a 19x19 ``lz18`` fc-head Go model as Leela Zero weights (gzipped when ``path`` ends in ``.gz``).

    Version 1, or 2 for a network whose value head gives black's value.
    Auxiliary heads (ownership, score) are left out: Leela Zero has none.
    Written atomically; raises ModelFormatError for a model Leela Zero cannot play.
    """
    path = Path(path)
    config, info = model.net.config, model.info
    if (info.game, info.encoder, config.heads, config.board_size) != ("go", LEELA_ENCODER, "fc", BOARD_SIZE):
        raise ModelFormatError(f"model {model.name} is {info.describe()} with {config.heads} heads; Leela Zero "
                               f"plays 19x19 go networks with fc heads and encoder {LEELA_ENCODER}")
    if config.value_black_plane not in (None, BLACK_TO_MOVE_PLANE):
        raise ModelFormatError(f"model {model.name} reads the side to move from plane {config.value_black_plane}; "
                               f"Leela Zero's is {BLACK_TO_MOVE_PLANE}")
    lines = ["1" if config.value_black_plane is None else "2"]
    with torch.no_grad():
        for module, rows, columns in _layers(model.net):
            tensors = (_linear_lines(module, rows, columns) if isinstance(module, nn.Linear)
                       else _conv_bn_lines(module))
            lines += [" ".join(map("{:.9g}".format, tensor.ravel().tolist())) for tensor in tensors]
    data = ("\n".join(lines) + "\n").encode("ascii")
    return write_bytes(path, gzip.compress(data, mtime=0) if path.name.endswith(".gz") else data)


def _linear_lines(layer: nn.Linear, rows: np.ndarray | None, columns: np.ndarray | None) -> list[np.ndarray]:
    biases = layer.bias.double().cpu().numpy()
    return [_reorder(layer.weight.double().cpu().numpy(), rows, columns), biases if rows is None else biases[rows]]


def _conv_bn_lines(layer: nn.Module) -> list[np.ndarray]:
    """Our conv and batch norm as Leela Zero's four lines: the scale goes into the weights and the mean,
    the shift into the bias (``bias = shift * sqrt(var + eps)``), so the layer computes the same."""
    conv, norm = layer[0], layer[1]
    scale = norm.weight.double().cpu().numpy()
    variances = norm.running_var.double().cpu().numpy() + norm.eps - EPSILON
    weights = conv.weight.double().cpu().numpy() * scale[:, None, None, None]
    return [weights[:, :, ::-1, :], norm.bias.double().cpu().numpy() * np.sqrt(variances + EPSILON),
            norm.running_mean.double().cpu().numpy() * scale, variances]


def cache_dir() -> Path:
    """Where converted networks are kept: ``$XDG_CACHE_HOME/engine/leela-zero`` (``~/.cache`` by default)."""
    return user_cache_dir("leela-zero")


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()[:16]


def converted_model_path(path: str | os.PathLike[str]) -> Path:
    """The model file converted from the Leela Zero weights at ``path``, converting them on first use.

    Named ``<stem>-<SHA-256 prefix>.safetensors`` in :func:`cache_dir`, so an
    edited weights file is converted again and an unchanged one never is.
    """
    path = Path(path)
    stem = path.name.removesuffix(".gz").removesuffix(".txt")
    target = cache_dir() / f"{stem}-{_digest(path)}{MODEL_SUFFIX}"
    if target.is_file():
        return target
    log.info("converting Leela Zero weights %s to %s (once)", path, target)
    model = read_leela(path)
    try:
        return save_model(target, model)
    except OSError as error:
        raise ModelFormatError(f"cannot keep the converted {path.name} in {target.parent} ({error}); set "
                               f"XDG_CACHE_HOME to a writable folder, or convert it with engine convert-lz") from error
