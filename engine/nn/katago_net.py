"""A KataGo network as a torch module, built from its file's description (:mod:`engine.nn.katago_format`).

``KataGoNet(model)(spatial, global_inputs)`` takes KataGo's inputs for a batch
on one N x N board: ``spatial float32[B, 22, N, N]`` (plane 0 is 1 on the
board: it is the mask every layer applies, so boards smaller than the input
work as in KataGo) and ``global_inputs float32[B, 19]``, and gives the raw
heads (:class:`KataGoOutput`), all from the side to move: policy logits over
the N*N points (row-major from the top left) then pass, the value logits
(win, loss, no result), the score values before scaling, and the ownership
logits. :func:`postprocess` turns them into what KataGo reports. The module is
float32 and in eval mode; nothing in it trains.

The arithmetic is KataGo's (its engine's reference CPU backend): batch norm
folded into a scale and bias, global pooling as mean, mean scaled by
``(sqrt(area) - 14) / 10`` and max (the value head's third feature is a
quadratic of the same), attention over the points on the board with rotary
embeddings at each point's (x, y).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from engine.nn.katago_format import (
    Activation,
    AttentionBlock,
    BatchNorm,
    Conv,
    FeedForwardBlock,
    GlobalPoolBlock,
    KataGoModel,
    MatMul,
    NestedBottleneckBlock,
    OrdinaryBlock,
    RMSNorm,
)

__all__ = ["KataGoNet", "KataGoOutput", "postprocess", "KataGoResult"]


class KataGoOutput(NamedTuple):
    """The raw heads of a batch of B positions on N x N, from the side to move."""

    policy: torch.Tensor  # [B, N*N + 1] logits, pass last (the ordinary policy channel)
    value: torch.Tensor  # [B, 3] logits: win, loss, no result
    score: torch.Tensor  # [B, 4 or 6]: score mean, stdev and variance time before softplus, lead, errors
    ownership: torch.Tensor  # [B, N*N] logits (tanh: -1 the opponent's, +1 the side to move's)


def _tensor(array: np.ndarray) -> nn.Parameter:
    return nn.Parameter(torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)), requires_grad=False)


def _activate(x: torch.Tensor, kind: str) -> torch.Tensor:
    if kind == "relu":
        return F.relu(x)
    if kind == "mish":
        return F.mish(x)
    if kind == "silu":
        return F.silu(x)
    return x


class _Conv(nn.Module):
    def __init__(self, conv: Conv) -> None:
        super().__init__()
        self.weight = _tensor(conv.weights)
        self.dilation = conv.dilation
        kh, kw = conv.weights.shape[2:]
        self.padding = (conv.dilation[0] * (kh // 2), conv.dilation[1] * (kw // 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, self.weight, padding=self.padding, dilation=self.dilation)


class _NormAct(nn.Module):
    """Folded batch norm, then the activation, zero off the board."""

    def __init__(self, norm: BatchNorm, activation: Activation) -> None:
        super().__init__()
        self.scale = _tensor(norm.scale.reshape(1, -1, 1, 1))
        self.bias = _tensor(norm.bias.reshape(1, -1, 1, 1))
        self.kind = activation.kind

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return _activate(x * self.scale + self.bias, self.kind) * mask


class _RMSNormAct(nn.Module):
    """The trunk tip's RMS norm (per point, or over the whole board), then the activation, zero off the board."""

    def __init__(self, norm: RMSNorm, activation: Activation) -> None:
        super().__init__()
        self.gamma = _tensor(norm.gamma.reshape(1, -1, 1, 1))
        self.beta = _tensor(norm.beta.reshape(1, -1, 1, 1))
        self.epsilon, self.spatial, self.kind = norm.epsilon, norm.spatial, activation.kind

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        squares = (x * x) * mask
        if self.spatial:
            count = mask.sum(dim=(1, 2, 3), keepdim=True) * x.shape[1]
            mean = squares.sum(dim=(1, 2, 3), keepdim=True) / count
        else:
            mean = squares.mean(dim=1, keepdim=True)
        return _activate(x * torch.rsqrt(mean + self.epsilon) * self.gamma + self.beta, self.kind) * mask


def _pool(x: torch.Tensor, mask: torch.Tensor, area: torch.Tensor, value_head: bool = False) -> torch.Tensor:
    """``[B, 3C]``: KataGo's global pooling of ``x[B, C, N, N]`` (zero off the board) over the board's
    ``area[B, 1]`` points: the mean, the mean scaled by board size, and the max (value head: a quadratic)."""
    mean = x.sum(dim=(2, 3)) / area
    offset = (torch.sqrt(area) - 14.0) * 0.1
    if value_head:
        third = mean * (offset * offset - 0.1)
    else:
        third = (x + (mask - 1.0)).amax(dim=(2, 3))
    return torch.cat([mean, mean * offset, third], dim=1)


class _Ordinary(nn.Module):
    def __init__(self, block: OrdinaryBlock) -> None:
        super().__init__()
        self.pre = _NormAct(block.pre_norm, block.pre_act)
        self.conv1 = _Conv(block.conv1)
        self.mid = _NormAct(block.mid_norm, block.mid_act)
        self.conv2 = _Conv(block.conv2)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, area: torch.Tensor) -> torch.Tensor:
        return x + self.conv2(self.mid(self.conv1(self.pre(x, mask)), mask))


class _PoolingBranch(nn.Module):
    """The global pooling branch of a global pooling block and of the policy head: a convolution, its norm
    and activation, pooled over the board to ``[B, 3C]``; :meth:`bias` turns that into a bias per channel
    of the other branch."""

    def __init__(self, conv: Conv, norm: BatchNorm, activation: Activation, to_bias: MatMul) -> None:
        super().__init__()
        self.conv = _Conv(conv)
        self.norm = _NormAct(norm, activation)
        self.to_bias = _tensor(to_bias.weights)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, area: torch.Tensor) -> torch.Tensor:
        return _pool(self.norm(self.conv(x), mask), mask, area)

    def bias(self, pooled: torch.Tensor) -> torch.Tensor:
        """``[B, C', 1, 1]`` from the branch's ``pooled[B, 3C]``."""
        return (pooled @ self.to_bias)[:, :, None, None]


class _GlobalPool(nn.Module):
    def __init__(self, block: GlobalPoolBlock) -> None:
        super().__init__()
        self.pre = _NormAct(block.pre_norm, block.pre_act)
        self.regular = _Conv(block.regular_conv)
        self.pooling = _PoolingBranch(block.gpool_conv, block.gpool_norm, block.gpool_act, block.gpool_to_bias)
        self.mid = _NormAct(block.mid_norm, block.mid_act)
        self.final = _Conv(block.final_conv)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, area: torch.Tensor) -> torch.Tensor:
        normed = self.pre(x, mask)
        regular = self.regular(normed) + self.pooling.bias(self.pooling(normed, mask, area))
        return x + self.final(self.mid(regular, mask))


class _NestedBottleneck(nn.Module):
    def __init__(self, block: NestedBottleneckBlock) -> None:
        super().__init__()
        self.pre = _NormAct(block.pre_norm, block.pre_act)
        self.pre_conv = _Conv(block.pre_conv)
        self.blocks = nn.ModuleList(_block(inner) for inner in block.blocks)
        self.post = _NormAct(block.post_norm, block.post_act)
        self.post_conv = _Conv(block.post_conv)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, area: torch.Tensor) -> torch.Tensor:
        inner = self.pre_conv(self.pre(x, mask))
        for block in self.blocks:
            inner = block(inner, mask, area)
        return x + self.post_conv(self.post(inner, mask))


def _transformer_norm(x: torch.Tensor, weight: torch.Tensor, epsilon: float) -> torch.Tensor:
    """RMS norm over the channels of ``x[B, S, C]`` at each point."""
    return x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + epsilon) * weight


def _points(x: torch.Tensor) -> torch.Tensor:
    """``[B, C, N, N]`` as ``[B, N*N, C]`` (points row-major from the top left)."""
    return x.flatten(2).transpose(1, 2)


class _Attention(nn.Module):
    def __init__(self, block: AttentionBlock) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.q_dim, self.v_dim = block.heads, block.kv_heads, block.q_dim, block.v_dim
        self.norm, self.epsilon = _tensor(block.norm.weight), block.norm.epsilon
        self.q, self.k, self.v, self.out = (_tensor(m.weights) for m in (block.q, block.k, block.v, block.out))
        self.rope_freqs = None if block.rope_freqs is None else _tensor(block.rope_freqs)
        self.rope_theta = block.rope_theta
        self._angles: dict[tuple[int, int], torch.Tensor] = {}

    def angles(self, height: int, width: int, device: torch.device) -> torch.Tensor | None:
        """``[heads, N*N, q_dim / 2]`` rotation angles of each pair at each point (None without rotary
        embeddings): learned per key/value head from x and y frequencies, or fixed from theta (the first half
        of the pairs turn with the row, the second with the column)."""
        if self.rope_freqs is None and self.rope_theta is None:
            return None
        key = (height, width)
        if key not in self._angles:
            ys, xs = torch.meshgrid(
                torch.arange(height, dtype=torch.float32), torch.arange(width, dtype=torch.float32), indexing="ij"
            )
            xs, ys = xs.reshape(-1, 1), ys.reshape(-1, 1)
            pairs = self.q_dim // 2
            if self.rope_freqs is not None:
                freqs = self.rope_freqs.detach().cpu()
                per_kv = xs[None] * freqs[:, None, :, 0] + ys[None] * freqs[:, None, :, 1]  # [kv, S, pairs]
                angles = per_kv.repeat_interleave(self.heads // self.kv_heads, dim=0)
            else:
                half = pairs // 2
                pair = torch.arange(pairs)
                index = torch.where(pair < half, pair, pair - half)
                freq = 1.0 / torch.pow(torch.tensor(self.rope_theta, dtype=torch.float32), (2 * index).float() / pairs)
                coordinate = torch.where(pair < half, ys, xs)
                angles = (coordinate * freq)[None].expand(self.heads, -1, -1)
            self._angles[key] = angles.contiguous()
        return self._angles[key].to(device)

    @staticmethod
    def rotate(x: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
        """Rotate the channel pairs (2p, 2p + 1) of ``x[B, H, S, D]`` by ``angles[H, S, D / 2]``."""
        cos, sin = torch.cos(angles), torch.sin(angles)
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, area: torch.Tensor) -> torch.Tensor:
        batch, channels, height, width = x.shape
        points = height * width
        seq = _transformer_norm(_points(x), self.norm, self.epsilon) * _points(mask)
        group = self.heads // self.kv_heads
        q = (seq @ self.q).view(batch, points, self.heads, self.q_dim).transpose(1, 2)
        k = (seq @ self.k).view(batch, points, self.kv_heads, self.q_dim).transpose(1, 2)
        v = (seq @ self.v).view(batch, points, self.kv_heads, self.v_dim).transpose(1, 2)
        angles = self.angles(height, width, x.device)
        if angles is not None:
            q = self.rotate(q, angles)
            k = self.rotate(k, angles[::group])
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-1, -2)) / float(np.sqrt(self.q_dim))
        on_board = mask.reshape(batch, 1, 1, points) > 0
        weights = torch.softmax(scores.masked_fill(~on_board, float("-inf")), dim=-1)
        attended = (weights @ v).transpose(1, 2).reshape(batch, points, self.heads * self.v_dim)
        update = (attended @ self.out) * _points(mask)
        return x + update.transpose(1, 2).reshape(batch, channels, height, width)


class _FeedForward(nn.Module):
    def __init__(self, block: FeedForwardBlock) -> None:
        super().__init__()
        self.norm, self.epsilon = _tensor(block.norm.weight), block.norm.epsilon
        self.linear1, self.gate, self.linear2 = (_tensor(m.weights) for m in (block.linear1, block.gate, block.linear2))

    def forward(self, x: torch.Tensor, mask: torch.Tensor, area: torch.Tensor) -> torch.Tensor:
        batch, channels, height, width = x.shape
        seq = _transformer_norm(_points(x), self.norm, self.epsilon)
        update = ((F.silu(seq @ self.linear1) * (seq @ self.gate)) @ self.linear2) * _points(mask)
        return x + update.transpose(1, 2).reshape(batch, channels, height, width)


def _block(block: object) -> nn.Module:
    kinds = {
        OrdinaryBlock: _Ordinary,
        GlobalPoolBlock: _GlobalPool,
        NestedBottleneckBlock: _NestedBottleneck,
        AttentionBlock: _Attention,
        FeedForwardBlock: _FeedForward,
    }
    return kinds[type(block)](block)


def _matmul(layer: MatMul | None) -> nn.Parameter | None:
    return None if layer is None else _tensor(layer.weights)


class KataGoNet(nn.Module):
    """The torch network of a :class:`~engine.nn.katago_format.KataGoModel` (see the module docstring)."""

    def __init__(self, model: KataGoModel) -> None:
        super().__init__()
        self.model = model
        trunk, policy, value = model.trunk, model.policy, model.value
        self.initial_conv = _Conv(trunk.initial_conv)
        self.initial_matmul = _tensor(trunk.initial_matmul.weights)
        self.blocks = nn.ModuleList(_block(block) for block in trunk.blocks)
        self.tip = (
            _RMSNormAct(trunk.tip_norm, trunk.tip_act)
            if isinstance(trunk.tip_norm, RMSNorm)
            else _NormAct(trunk.tip_norm, trunk.tip_act)
        )
        self.p1 = _Conv(policy.p1_conv)
        self.g1 = _PoolingBranch(policy.g1_conv, policy.g1_norm, policy.g1_act, policy.gpool_to_bias)
        self.p1_norm = _NormAct(policy.p1_norm, policy.p1_act)
        self.p2 = _Conv(policy.p2_conv)
        self.pass_mul = _tensor(policy.pass_mul.weights)
        self.pass_bias = None if policy.pass_bias is None else _tensor(policy.pass_bias.weights)
        self.pass_kind = None if policy.pass_act is None else policy.pass_act.kind
        self.pass_mul2 = _matmul(policy.pass_mul2)
        self.v1 = _Conv(value.v1_conv)
        self.v1_norm = _NormAct(value.v1_norm, value.v1_act)
        self.v2_mul, self.v2_bias = _tensor(value.v2_mul.weights), _tensor(value.v2_bias.weights)
        self.v2_kind = value.v2_act.kind
        self.v3_mul, self.v3_bias = _tensor(value.v3_mul.weights), _tensor(value.v3_bias.weights)
        self.sv3_mul, self.sv3_bias = _tensor(value.sv3_mul.weights), _tensor(value.sv3_bias.weights)
        self.ownership = _Conv(value.ownership_conv)
        self.eval()

    def forward(self, spatial: torch.Tensor, global_inputs: torch.Tensor) -> KataGoOutput:
        mask = spatial[:, :1]
        area = mask.sum(dim=(2, 3))
        x = self.initial_conv(spatial) + (global_inputs @ self.initial_matmul)[:, :, None, None]
        for block in self.blocks:
            x = block(x, mask, area)
        x = self.tip(x, mask)
        batch = x.shape[0]

        g1 = self.g1(x, mask, area)
        p1 = self.p1_norm(self.p1(x) + self.g1.bias(g1), mask)
        policy = self.p2(p1)[:, 0].reshape(batch, -1)
        passing = g1 @ self.pass_mul
        if self.pass_mul2 is not None and self.pass_bias is not None and self.pass_kind is not None:
            passing = _activate(passing + self.pass_bias, self.pass_kind) @ self.pass_mul2

        v1 = self.v1_norm(self.v1(x), mask)
        v2 = _activate(_pool(v1, mask, area, value_head=True) @ self.v2_mul + self.v2_bias, self.v2_kind)
        return KataGoOutput(
            torch.cat([policy, passing[:, :1]], dim=1),
            v2 @ self.v3_mul + self.v3_bias,
            v2 @ self.sv3_mul + self.sv3_bias,
            self.ownership(v1).reshape(batch, -1),
        )


class KataGoResult(NamedTuple):
    """What KataGo reports for a batch, from the side to move (numpy float32 arrays)."""

    policy: np.ndarray  # [B, N*N + 1] logits
    win: np.ndarray  # [B] probabilities of a win, a loss, no result (they sum to 1)
    loss: np.ndarray
    no_result: np.ndarray
    score_mean: np.ndarray  # [B] points, the self-play score
    score_stdev: np.ndarray  # [B] points
    lead: np.ndarray  # [B] points
    variance_time: np.ndarray  # [B]
    ownership: np.ndarray  # [B, N*N] in [-1, 1]


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.where(x > 40.0, x, np.log1p(np.exp(np.minimum(x, 40.0))))


def postprocess(out: KataGoOutput, model: KataGoModel, no_result_possible: np.ndarray | bool = True) -> KataGoResult:
    """KataGo's raw heads turned into its reported outputs: softmax of the value logits, the scores scaled by
    the model's multipliers (softplus for the stdev and the variance time) and weighted by the chance of a
    result, tanh of the ownership. ``no_result_possible`` (``bool[B]`` or one for all): False where the
    rules cannot end without a result (superko with area scoring), whose no-result chance is then 0."""
    value = out.value.double().cpu().numpy()
    score = out.score.double().cpu().numpy()
    possible = np.broadcast_to(np.asarray(no_result_possible, dtype=bool), value.shape[:1])
    exp = np.exp(value - np.where(possible, value.max(axis=1), value[:, :2].max(axis=1))[:, None])
    exp[~possible, 2] = 0.0
    probs = exp / exp.sum(axis=1, keepdims=True)
    result = 1.0 - probs[:, 2]
    m = model.multipliers
    f32 = np.float32
    return KataGoResult(
        out.policy.float().cpu().numpy(),
        probs[:, 0].astype(f32),
        probs[:, 1].astype(f32),
        probs[:, 2].astype(f32),
        (score[:, 0] * m.score_mean * result).astype(f32),
        (_softplus(score[:, 1]) * m.score_stdev).astype(f32),
        (score[:, 2] * m.lead * result).astype(f32),
        (_softplus(score[:, 3]) * m.variance_time).astype(f32),
        np.tanh(out.ownership.float().cpu().numpy()),
    )
