"""The policy/value network: a residual tower with AlphaGo Zero or size-independent heads.

Shapes. Input ``float[B, C, N, N]`` (C = ``in_planes``, row 0 at the top, as
actions count); output a :class:`NetOutput`: ``policy float[B, N*N + 1]``
(unnormalised logits, pass last) and ``value float[B]`` in [-1, 1], plus the
auxiliary heads the config names (None for those it does not), everything
from the side to move's point of view:

``ownership float[B, N*N]``
    in [-1, 1] per point (tanh): +1 the side to move will own it at the end, -1
    the opponent will (KataGo's ownership head).
``score_mean float[B]``, ``score_stdev float[B]``
    the final score difference (own points minus the opponent's, komi included)
    as a mean and a standard deviation, in points. The layer computes O(1)
    numbers ``(m, s)``; the outputs are ``m * N`` and ``(softplus(s) + 0.01) *
    N`` for an N x N board, so a lead of a whole board row is one unit and the
    standard deviation is always positive.

Two head types, chosen by :attr:`NetConfig.heads`:

``"fc"`` (AlphaGo Zero)
    policy: 1x1 conv to 2 filters, BN, ReLU, fully connected to N*N + 1;
    value: 1x1 conv to 1 filter, BN, ReLU, fully connected 256, ReLU,
    fully connected 1, tanh. The fully connected layers fix the board size.
``"pooled"`` (size-independent, after KataGo)
    policy: 1x1 conv to 32 filters, BN, ReLU, then a 1x1 conv to one logit
    per point; the pass logit is a linear function of those 32 features
    pooled over the board. value: 1x1 conv to 32 filters, BN, ReLU, pooled,
    fully connected 256, ReLU, fully connected 1, tanh. Pooling gives three
    numbers per channel: the mean, the mean scaled by ``(N - 14) / 10`` (so
    the head can tell board sizes apart) and the max. No layer depends on N,
    so the same weights play every board size.

A network converted from Leela Zero's weights version 2 (ELF, minigo) has a
value head that gives black's value; :attr:`NetConfig.value_black_plane` names
the input plane that is ones when black is to move, and the forward turns the
value to the side to move, so every caller still sees side-to-move values.

The auxiliary heads (:attr:`NetConfig.aux_heads`) are the same for both: the
ownership is a 1x1 convolution (over the trunk for ``"fc"``, whose value
convolution has a single filter; over the 32 value features for ``"pooled"``,
as KataGo's), the score a fully connected layer from the value head's hidden
layer of 256 (two outputs: mean and spread). Neither depends on N, so pooled
networks stay size-independent. A network without them has exactly the
tensors of one written before they existed.
"""

from __future__ import annotations

import copy

import torch
from torch import Tensor, nn

from engine.nn.config import (
    AUX_HEADS,
    BN_EPSILON,
    HEADS,
    MIN_STDEV,
    POOLED_HEAD_FILTERS,
    VALUE_HIDDEN,
    NetConfig,
    NetOutput,
    parse_aux_heads,
)

__all__ = ["NetConfig", "NetOutput", "PolicyValueNet", "HEADS", "AUX_HEADS", "parse_aux_heads"]


def _conv_bn(in_channels: int, out_channels: int, kernel: int) -> nn.Sequential:
    """Convolution (no bias: batch norm follows) and batch norm, same padding."""
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=False),
                         nn.BatchNorm2d(out_channels, eps=BN_EPSILON))


class ResidualBlock(nn.Module):
    """conv-BN-ReLU-conv-BN, plus the input, then ReLU."""

    def __init__(self, filters: int) -> None:
        super().__init__()
        self.first = _conv_bn(filters, filters, 3)
        self.second = _conv_bn(filters, filters, 3)

    def forward(self, x: Tensor) -> Tensor:
        y = torch.relu(self.first(x))
        return torch.relu(self.second(y) + x)


def global_pool(x: Tensor) -> Tensor:
    """``float[B, 3C]``: per channel the mean, the mean times ``(N - 14) / 10`` and the max."""
    mean = x.mean(dim=(2, 3))
    scale = (x.shape[-1] - 14) / 10
    return torch.cat([mean, mean * scale, x.amax(dim=(2, 3))], dim=1)


class FullyConnectedHeads(nn.Module):
    """AlphaGo Zero's policy and value heads, for one board size."""

    def __init__(self, filters: int, size: int) -> None:
        super().__init__()
        points = size * size
        self.spatial_channels = filters   # the ownership convolution reads the trunk
        self.policy_conv = _conv_bn(filters, 2, 1)
        self.policy_fc = nn.Linear(2 * points, points + 1)
        self.value_conv = _conv_bn(filters, 1, 1)
        self.value_fc = nn.Sequential(nn.Linear(points, VALUE_HIDDEN), nn.ReLU(), nn.Linear(VALUE_HIDDEN, 1))

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Policy logits, value, the features the ownership reads and the value's hidden layer."""
        policy = self.policy_fc(torch.relu(self.policy_conv(x)).flatten(1))
        hidden = self.value_fc[1](self.value_fc[0](torch.relu(self.value_conv(x)).flatten(1)))
        return policy, torch.tanh(self.value_fc[2](hidden)).squeeze(1), x, hidden


class PooledHeads(nn.Module):
    """Convolutional policy with a pooled pass logit and a pooled value: any board size."""

    def __init__(self, filters: int) -> None:
        super().__init__()
        width = POOLED_HEAD_FILTERS
        self.spatial_channels = width   # the ownership convolution reads the value features
        self.policy_conv = _conv_bn(filters, width, 1)
        self.policy_points = nn.Conv2d(width, 1, 1)
        self.policy_pass = nn.Linear(3 * width, 1)
        self.value_conv = _conv_bn(filters, width, 1)
        self.value_fc = nn.Sequential(nn.Linear(3 * width, VALUE_HIDDEN), nn.ReLU(), nn.Linear(VALUE_HIDDEN, 1))

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Policy logits, value, the features the ownership reads and the value's hidden layer."""
        p = torch.relu(self.policy_conv(x))
        policy = torch.cat([self.policy_points(p).flatten(1), self.policy_pass(global_pool(p))], dim=1)
        v = torch.relu(self.value_conv(x))
        hidden = self.value_fc[1](self.value_fc[0](global_pool(v)))
        return policy, torch.tanh(self.value_fc[2](hidden)).squeeze(1), v, hidden


class PolicyValueNet(nn.Module):
    """The residual tower and its heads, built from a :class:`NetConfig`."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        self.stem = _conv_bn(config.in_planes, config.filters, 3)
        self.tower = nn.Sequential(*[ResidualBlock(config.filters) for _ in range(config.blocks)])
        if config.heads == "fc":
            assert config.board_size is not None
            self.heads: nn.Module = FullyConnectedHeads(config.filters, config.board_size)
        else:
            self.heads = PooledHeads(config.filters)
        channels = self.heads.spatial_channels
        self.ownership_head = nn.Conv2d(channels, 1, 1) if "ownership" in config.aux_heads else None
        self.score_head = nn.Linear(VALUE_HIDDEN, 2) if "score" in config.aux_heads else None

    def forward(self, planes: Tensor) -> NetOutput[Tensor]:
        """``planes float[B, C, N, N]`` -> the heads' outputs (see the module docstring for units)."""
        if planes.ndim != 4 or planes.shape[1] != self.config.in_planes or planes.shape[2] != planes.shape[3]:
            raise ValueError(f"expected planes [B, {self.config.in_planes}, N, N], not {list(planes.shape)}")
        size = self.config.board_size
        if size is not None and planes.shape[-1] != size:
            raise ValueError(f"this {self.config.name} network plays {size}x{size}, not "
                             f"{planes.shape[-1]}x{planes.shape[-1]}")
        return self.from_trunk(self.tower(torch.relu(self.stem(planes))), planes)

    def from_trunk(self, trunk: Tensor, planes: Tensor) -> NetOutput[Tensor]:
        """The heads' outputs from the tower's features ``trunk`` (``planes``: the input they came from,
        for a black-value network's side to move); a tower computed another way (int8) shares the heads."""
        policy, value, spatial, hidden = self.heads(trunk)
        if self.config.value_black_plane is not None:   # black's value -> the side to move's
            value = value * (2 * planes[:, self.config.value_black_plane, 0, 0] - 1)
        ownership = score_mean = score_stdev = None
        if self.ownership_head is not None:
            ownership = torch.tanh(self.ownership_head(spatial)).flatten(1)
        if self.score_head is not None:
            n = planes.shape[-1]
            mean, spread = self.score_head(hidden).unbind(1)
            score_mean = mean * n
            score_stdev = (nn.functional.softplus(spread) + MIN_STDEV) * n
        return NetOutput(policy, value, ownership, score_mean, score_stdev)

    def for_inference(self) -> "PolicyValueNet":
        """A frozen copy in eval mode with every batch norm folded into the convolution before it.

        Same outputs (to float rounding), one operation fewer per layer; the
        original keeps training.
        """
        frozen = copy.deepcopy(self).eval()
        _fold_batch_norms(frozen)
        return frozen.requires_grad_(False)


def _fold_batch_norms(module: nn.Module) -> None:
    """Replace every conv + batch norm pair (built by ``_conv_bn``) by one biased convolution."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    for name, child in module.named_children():
        if (isinstance(child, nn.Sequential) and len(child) == 2 and isinstance(child[0], nn.Conv2d)
                and isinstance(child[1], nn.BatchNorm2d)):
            setattr(module, name, fuse_conv_bn_eval(child[0], child[1]))
        else:
            _fold_batch_norms(child)
