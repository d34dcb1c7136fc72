"""The network's forward pass in numpy (float32), for processes that must not import torch.

Importing torch costs about 220 MB of memory before any weight is read, and
Gomocup's fast games allow a brain 350 MB in all (``engine gomocup``, which
therefore runs this by default). :class:`NumpyNet` computes what
:class:`~engine.nn.net.PolicyValueNet` in eval mode computes, for every
architecture it supports (residual tower, ``"fc"`` and ``"pooled"`` heads,
``value_black_plane``, ownership and score heads), from the same
``state_dict`` tensors, with the batch norms folded into the convolutions
before them (as ``PolicyValueNet.for_inference`` folds them).

Layout. Activations are channels-last, ``float32[B, N, N, C]``, so that a 1x1
convolution is one matrix product ``[B*N*N, C] @ [C, C']`` and a 3x3
convolution is im2col (the nine shifted copies of the padded input side by
side, ``[B*N*N, 9C]``) times ``[9C, C']``: both go to numpy's BLAS. The fully
connected policy layer of ``"fc"`` heads reads its input in torch's
channel-major order, so its columns are permuted once at load.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from engine.nn.config import BN_EPSILON, MIN_STDEV, NetConfig, NetOutput
from engine.nn.model_format import ModelInfo, read_weights

__all__ = ["NumpyNet", "NumpyModel", "load_numpy_model"]


@dataclass(frozen=True)
class _Conv:
    """A convolution with its batch norm folded in: ``weight float32[K*K*C_in, C_out]`` (rows in (dy, dx, c)
    order, as im2col lays out its columns) and ``bias float32[C_out]``."""

    weight: np.ndarray
    bias: np.ndarray
    kernel: int


@dataclass(frozen=True)
class _Dense:
    """A fully connected layer as ``x @ weight + bias``: ``weight float32[in, out]``, ``bias float32[out]``."""

    weight: np.ndarray
    bias: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return x @ self.weight + self.bias


def _conv(tensors: Mapping[str, np.ndarray], name: str, folded: bool = True) -> _Conv:
    """The convolution ``name`` (``name.0`` and its batch norm ``name.1`` when ``folded``; a biased one when not),
    in float64 while folding so that the float32 result is the exact one rounded once."""
    if folded:
        weight = tensors[f"{name}.0.weight"].astype(np.float64)
        scale = tensors[f"{name}.1.weight"] / np.sqrt(tensors[f"{name}.1.running_var"].astype(np.float64) + BN_EPSILON)
        weight = weight * scale[:, None, None, None]
        bias = tensors[f"{name}.1.bias"] - tensors[f"{name}.1.running_mean"] * scale
    else:
        weight, bias = tensors[f"{name}.weight"], tensors[f"{name}.bias"]
    outputs, inputs, kernel, _ = weight.shape
    matrix = weight.transpose(2, 3, 1, 0).reshape(kernel * kernel * inputs, outputs)
    return _Conv(np.ascontiguousarray(matrix, np.float32), np.asarray(bias, np.float32), kernel)


def _dense(tensors: Mapping[str, np.ndarray], name: str) -> _Dense:
    return _Dense(np.ascontiguousarray(tensors[f"{name}.weight"].T, np.float32),
                  np.asarray(tensors[f"{name}.bias"], np.float32))


def _apply(conv: _Conv, x: np.ndarray) -> np.ndarray:
    """``conv`` on ``x float32[B, N, N, C]`` (same padding): ``float32[B, N, N, C_out]``, before any ReLU."""
    batch, n, _, channels = x.shape
    if conv.kernel == 1:
        columns = x.reshape(-1, channels)
    else:
        k = conv.kernel
        padded = np.zeros((batch, n + k - 1, n + k - 1, channels), np.float32)
        padded[:, k // 2:k // 2 + n, k // 2:k // 2 + n] = x
        patches = np.empty((batch, n, n, k, k, channels), np.float32)
        for dy in range(k):
            for dx in range(k):
                patches[:, :, :, dy, dx] = padded[:, dy:dy + n, dx:dx + n]
        columns = patches.reshape(-1, k * k * channels)
    out = columns @ conv.weight
    out += conv.bias
    return out.reshape(batch, n, n, -1)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


def _global_pool(x: np.ndarray) -> np.ndarray:
    """``float32[B, 3C]`` from ``x[B, N, N, C]``: per channel the mean, the mean times ``(N - 14) / 10`` and the
    max (as :func:`engine.nn.net.global_pool`)."""
    mean = x.mean(axis=(1, 2), dtype=np.float32)
    return np.concatenate([mean, mean * np.float32((x.shape[1] - 14) / 10), x.max(axis=(1, 2))], axis=1)


class NumpyNet:
    """A :class:`~engine.nn.net.PolicyValueNet`'s inference in numpy, built from its ``state_dict`` tensors
    (names and shapes already checked: :func:`~engine.nn.model_format.read_weights`)."""

    def __init__(self, config: NetConfig, tensors: Mapping[str, np.ndarray]) -> None:
        self.config = config
        self.stem = _conv(tensors, "stem")
        self.tower = [(_conv(tensors, f"tower.{i}.first"), _conv(tensors, f"tower.{i}.second"))
                      for i in range(config.blocks)]
        self.policy_conv = _conv(tensors, "heads.policy_conv")
        self.value_conv = _conv(tensors, "heads.value_conv")
        self.value_hidden = _dense(tensors, "heads.value_fc.0")
        self.value_out = _dense(tensors, "heads.value_fc.2")
        if config.heads == "fc":
            assert config.board_size is not None
            points = config.board_size ** 2
            policy_fc = _dense(tensors, "heads.policy_fc")   # rows (channel, point) -> (point, channel): NHWC
            order = np.arange(2 * points).reshape(2, points).T.reshape(-1)
            self.policy_fc = _Dense(np.ascontiguousarray(policy_fc.weight[order]), policy_fc.bias)
        else:
            self.policy_points = _conv(tensors, "heads.policy_points", folded=False)
            self.policy_pass = _dense(tensors, "heads.policy_pass")
        self.ownership = (_conv(tensors, "ownership_head", folded=False) if "ownership" in config.aux_heads
                          else None)
        self.score = _dense(tensors, "score_head") if "score" in config.aux_heads else None

    def __call__(self, planes: np.ndarray) -> NetOutput[np.ndarray]:
        """``planes[B, C, N, N]`` (any numeric dtype) -> every head as float32 arrays, as
        :meth:`PolicyValueNet.forward <engine.nn.net.PolicyValueNet.forward>` gives them."""
        config = self.config
        if planes.ndim != 4 or planes.shape[1] != config.in_planes or planes.shape[2] != planes.shape[3]:
            raise ValueError(f"expected planes [B, {config.in_planes}, N, N], not {list(planes.shape)}")
        n = planes.shape[-1]
        if config.board_size is not None and n != config.board_size:
            raise ValueError(f"this {config.name} network plays {config.board_size}x{config.board_size}, not {n}x{n}")
        batch = len(planes)
        x = _relu(_apply(self.stem, np.ascontiguousarray(planes.transpose(0, 2, 3, 1), np.float32)))
        for first, second in self.tower:
            y = _relu(_apply(first, x))
            x = _relu(np.add(_apply(second, y), x, out=y))
        p = _relu(_apply(self.policy_conv, x))
        v = _relu(_apply(self.value_conv, x))
        if config.heads == "fc":
            policy = self.policy_fc(p.reshape(batch, -1))
            pooled_value = v.reshape(batch, -1)
            spatial = x
        else:
            pass_logit = self.policy_pass(_global_pool(p))
            policy = np.concatenate([_apply(self.policy_points, p).reshape(batch, -1), pass_logit], axis=1)
            pooled_value = _global_pool(v)
            spatial = v
        hidden = _relu(self.value_hidden(pooled_value))
        value = np.tanh(self.value_out(hidden)[:, 0])
        if config.value_black_plane is not None:   # black's value -> the side to move's
            value = value * (2 * planes[:, config.value_black_plane, 0, 0].astype(np.float32) - 1)
        ownership = score_mean = score_stdev = None
        if self.ownership is not None:
            ownership = np.tanh(_apply(self.ownership, spatial).reshape(batch, -1))
        if self.score is not None:
            mean, spread = self.score(hidden).T
            score_mean = mean * np.float32(n)
            score_stdev = (np.logaddexp(np.float32(0), spread) + np.float32(MIN_STDEV)) * np.float32(n)
        return NetOutput(policy, value, ownership, score_mean, score_stdev).map(
            lambda a: np.ascontiguousarray(a, np.float32))


@dataclass
class NumpyModel:
    """A model file's network for the numpy forward pass, with its description (as
    :class:`~engine.nn.model_file.Model` holds the torch one)."""

    net: NumpyNet
    info: ModelInfo
    path: os.PathLike[str] | None = None

    @property
    def name(self) -> str:
        return self.info.name


def load_numpy_model(path: str | os.PathLike[str], *, expect_game: str | None = None, expect_size: int | None = None,
                     expect_encoder: object = None) -> NumpyModel:
    """Load a model file for the numpy forward pass without importing torch; the same checks and errors as
    :func:`~engine.nn.model_file.load_model` (:func:`~engine.nn.model_format.read_weights`)."""
    path, info, tensors = read_weights(path, expect_game=expect_game, expect_size=expect_size,
                                       expect_encoder=expect_encoder)
    return NumpyModel(NumpyNet(info.config, tensors), info, path)
