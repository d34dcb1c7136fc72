"""The residual tower in int8 on the CPU, calibrated when the network loads (``--dtype int8``).

Where the bf16 3x3 convolutions already run at a CPU's bf16 peak, a faster
network needs cheaper operations: int8 products (VNNI) run at twice bf16's
rate, at a small cost in accuracy (docs/networks.md, *int8*; ``engine bench net
--dtype int8`` measures the speed).

Scheme: the stem (planes to filters, ~1% of the work; bf16 where the CPU has
it natively) and the heads run in float; each residual block takes uint8
activations (one scale per tensor) and int8 weights (one scale per output
channel, the largest magnitude to 127), and ends in oneDNN's fused add and
ReLU, requantized. Activation ranges are the float network's smallest and
largest values, per tensor, over calibration planes: positions of random
legal play (:func:`calibration_planes`) of the evaluator's board size, from
the empty board to a crowded one; values beyond them are clipped.
``tests/engine/nn/test_int8.py`` holds the accuracy's bounds.

torch's quantized tensors are deprecated (still in torch 2.13, which CI pins;
their deprecation warning is silenced when this module loads: it would reach
a GUI's console); when a later torch drops them, ``--dtype int8`` says
so and the other dtypes are unaffected.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch
    from torch import nn

    from engine.core.rules import Rules
    from engine.nn.config import NetOutput
    from engine.nn.net import PolicyValueNet

__all__ = ["Int8Network", "calibration_planes", "int8_available"]

warnings.filterwarnings("ignore", message=r"torch\.quantize_per_tensor, torch\.quantize_per_channel",
                        category=UserWarning)   # torch's deprecation of quantized tensors: see above

CALIBRATION_GAMES = 24
"""Random games whose positions calibrate the activation ranges (one position per game)."""


def int8_available() -> str | None:
    """None when this torch has oneDNN's quantized convolutions on the CPU, else why not."""
    import torch

    engines = torch.backends.quantized.supported_engines
    if "x86" not in engines and "onednn" not in engines:
        return f"this torch has no x86 or onednn quantized engine (only {', '.join(engines) or 'none'})"
    try:
        import torch.ao.nn.intrinsic.quantized  # noqa: F401
        import torch.ao.nn.quantized  # noqa: F401
    except ImportError as error:
        return f"this torch has no quantized modules ({error})"
    return None


def calibration_planes(rules: "Rules", encoder: object, games: int = CALIBRATION_GAMES,
                       seed: int = 0) -> np.ndarray:
    """Encoded positions of random legal play: game ``i`` stops after a share ``i / games`` of 1.2 N*N
    moves, so the set runs from the empty board to a crowded one with captures."""
    from engine.core.game import Game

    rng = np.random.default_rng(seed)
    positions = []
    for index in range(games):
        game = Game(rules)
        for _ in range(int(1.2 * rules.num_points * index / max(1, games - 1))):
            if game.is_over:
                break
            legal = np.flatnonzero(game.legal_mask()[:-1])
            if legal.size == 0:
                break
            game.play(int(rng.choice(legal)))
        positions.append(game.position)
    return np.asarray(encoder.encode_batch(positions), dtype=np.float32)  # type: ignore[attr-defined]


def _activation_qparams(low: float, high: float) -> tuple[float, int]:
    """uint8 scale and zero point for values in [low, high] (0 always inside)."""
    low, high = min(low, 0.0), max(high, 0.0)
    scale = max(high - low, 1e-6) / 255
    return scale, int(np.clip(round(-low / scale), 0, 255))


def _quantized_conv(conv: "nn.Conv2d", relu: bool, scale: float, zero_point: int) -> "nn.Module":
    """``conv`` (batch norm folded in, so biased) with int8 weights, one scale per output channel."""
    import torch
    import torch.ao.nn.intrinsic.quantized as fused
    import torch.ao.nn.quantized as quantized

    weight = conv.weight.detach().float()
    channels = weight.shape[0]
    weight_scales = (weight.abs().amax(dim=(1, 2, 3)) / 127).clamp(min=1e-12).double()
    qweight = torch.quantize_per_channel(weight, weight_scales, torch.zeros(channels, dtype=torch.long), 0,
                                         torch.qint8)
    cls = fused.ConvReLU2d if relu else quantized.Conv2d
    layer = cls(conv.in_channels, conv.out_channels, conv.kernel_size, padding=conv.padding)
    layer.set_weight_bias(qweight, None if conv.bias is None else conv.bias.detach().float())
    layer.scale, layer.zero_point = scale, zero_point
    return layer


class Int8Network:
    """A folded :class:`~engine.nn.net.PolicyValueNet` (``for_inference``) whose residual blocks run in int8.

    Called like the network: planes ``float[B, C, N, N]`` in, its :class:`NetOutput` out (float32).
    ``calibration``: planes whose float activations set each layer's range.
    """

    def __init__(self, net: "PolicyValueNet", calibration: np.ndarray, *, bf16_stem: bool = False) -> None:
        import torch

        why_not = int8_available()
        if why_not is not None:
            raise ValueError(f"--dtype int8 is not available: {why_not}")
        engines = torch.backends.quantized.supported_engines
        torch.backends.quantized.engine = "x86" if "x86" in engines else "onednn"
        self.net = net
        self.bf16_stem = bf16_stem
        ranges = self._activation_ranges(torch.from_numpy(np.ascontiguousarray(calibration, np.float32)))
        self.input_qparams = _activation_qparams(*ranges[0])
        self.blocks = []
        for index, block in enumerate(net.tower):
            inner, branch, out = ranges[1 + 3 * index: 4 + 3 * index]
            self.blocks.append((_quantized_conv(block.first, True, *_activation_qparams(*inner)),
                                _quantized_conv(block.second, False, *_activation_qparams(*branch)),
                                _activation_qparams(*out)))

    def _activation_ranges(self, planes: "torch.Tensor") -> list[tuple[float, float]]:
        """The float network's (smallest, largest) value on ``planes`` at every tensor the int8 tower
        quantizes: the stem's output, then per block the inner ReLU, the branch before the residual add
        (which can be negative) and the block's output."""
        import torch

        def extent(tensor: torch.Tensor) -> tuple[float, float]:
            return float(tensor.min()), float(tensor.max())

        with torch.inference_mode():
            x = torch.relu(self.net.stem(planes))
            ranges = [extent(x)]
            for block in self.net.tower:
                inner = torch.relu(block.first(x))
                branch = block.second(inner)
                x = torch.relu(branch + x)
                ranges += [extent(inner), extent(branch), extent(x)]
        return ranges

    def trunk(self, planes: "torch.Tensor") -> "torch.Tensor":
        """The stem in float32 (bf16 if ``bf16_stem``), the residual blocks in int8: the trunk's features as
        float32."""
        import torch

        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16_stem):
            x = torch.relu(self.net.stem(planes.float()))
        x = torch.quantize_per_tensor(x.float(), *self.input_qparams, torch.quint8).contiguous(
            memory_format=torch.channels_last)
        for first, second, (scale, zero_point) in self.blocks:
            x = torch.ops.quantized.add_relu(second(first(x)), x, scale, zero_point)
        return x.dequantize().contiguous()

    def __call__(self, planes: "torch.Tensor") -> "NetOutput[torch.Tensor]":
        return self.net.from_trunk(self.trunk(planes), planes)
