"""The training objective, shared by ``train`` and ``validate``.

For a :class:`Batch` (planes ``x``, search policies ``pi [B, A]``, results
``z [B]``, final ownership ``o [B, N*N]`` and score ``s [B]`` in points, all
from the side to move, and ``m [B]``, whether a sample has the last two), with
the network's outputs ``f(x)`` (:class:`~engine.nn.net.NetOutput`):

* policy loss: cross-entropy ``-sum_a pi_a log softmax(logits)_a``, batch mean (nats);
* value loss: mean squared error ``(v - z)^2``, batch mean (v and z in [-1, 1]);
* ownership loss (KataGo's target, as a squared error): the per-point mean of
  ``(ownership - o)^2``, averaged over the samples with ``m``;
* score mean loss: Huber (delta 1) of ``(score_mean - s) / N``, the error in
  units of the board size (a row of points on N x N), over the samples with ``m``;
* score spread loss: the Gaussian negative log-likelihood of ``s / N`` under
  mean ``score_mean / N`` (held fixed: the term trains the spread only) and
  standard deviation ``score_stdev / N``: ``log(stdev / N) + (s - mean)^2 / (2 stdev^2)``,
  over the samples with ``m`` (it may be negative);
* L2: ``c * sum w^2`` over the convolution and fully connected weights (not biases or batch norms).

A term whose head the network lacks is None; a batch without masked-in samples
gives 0 for the auxiliary terms, and a masked-out sample adds nothing to them
(nor to their gradients). The loss minimised (:func:`total_loss`) is
``policy + value_weight * value + ownership_weight * ownership + score_weight *
score_mean + stdev_weight * score_stdev + L2``: AlphaGo Zero's, plus KataGo's
auxiliary targets with small weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import torch
from torch import Tensor, nn

__all__ = ["Batch", "BatchLosses", "batch_losses", "total_loss", "masked_mean", "l2_penalty", "decayed_parameters",
           "AUX_TERMS"]

AUX_TERMS = ("ownership", "score_mean", "score_stdev")
"""The auxiliary loss terms, named as the :class:`BatchLosses` fields and the weights ``<term>_weight``."""


class Batch(NamedTuple):
    """A minibatch of training targets as tensors (see the module docstring)."""

    planes: Tensor      # float32[B, C, N, N]
    policy: Tensor      # float32[B, A]
    value: Tensor       # float32[B]
    ownership: Tensor   # float32[B, N*N], +1 / -1 / 0
    score: Tensor       # float32[B], points
    aux_mask: Tensor    # bool[B]


@dataclass
class BatchLosses:
    """The terms of one batch (scalars; None for a head the network lacks) and the network's outputs."""

    policy: Tensor
    value: Tensor
    ownership: Tensor | None
    score_mean: Tensor | None
    score_stdev: Tensor | None
    top1: Tensor
    outputs: Any   # NetOutput[Tensor]


def masked_mean(per_sample: Tensor, mask: Tensor) -> Tensor:
    """The mean of ``per_sample[B]`` over the samples ``mask[B]`` keeps; 0 when it keeps none."""
    weights = mask.to(per_sample.dtype)
    return (per_sample * weights).sum() / weights.sum().clamp(min=1.0)


def batch_losses(net: nn.Module, batch: Batch) -> BatchLosses:
    """Every loss term of a batch and top-1 agreement (argmax of the logits == argmax of pi)."""
    out = net(batch.planes)
    log_probs = torch.log_softmax(out.policy.float(), dim=1)
    policy_loss = -(batch.policy * log_probs).sum(dim=1).mean()
    value_loss = torch.mean((out.value.float() - batch.value) ** 2)
    top1 = (out.policy.argmax(dim=1) == batch.policy.argmax(dim=1)).float().mean()
    ownership = score_mean = score_stdev = None
    if out.ownership is not None:
        ownership = masked_mean(((out.ownership.float() - batch.ownership) ** 2).mean(dim=1), batch.aux_mask)
    if out.score_mean is not None:
        size = batch.planes.shape[-1]
        mean, stdev, target = out.score_mean.float() / size, out.score_stdev.float() / size, batch.score / size
        huber = nn.functional.huber_loss(mean, target, reduction="none", delta=1.0)
        score_mean = masked_mean(huber, batch.aux_mask)
        nll = torch.log(stdev) + 0.5 * ((target - mean.detach()) / stdev) ** 2
        score_stdev = masked_mean(nll, batch.aux_mask)
    return BatchLosses(policy_loss, value_loss, ownership, score_mean, score_stdev, top1, out)


def total_loss(losses: BatchLosses, config: Any, l2: Tensor) -> Tensor:
    """The loss minimised: policy, the weighted value and auxiliary terms (``config.<term>_weight``), L2."""
    loss = losses.policy + config.value_weight * losses.value + l2
    for term in AUX_TERMS:
        value = getattr(losses, term)
        if value is not None:
            loss = loss + getattr(config, f"{term}_weight") * value
    return loss


def decayed_parameters(net: nn.Module) -> list[Tensor]:
    """The weights L2 applies to: those of convolutions and linear layers."""
    return [module.weight for module in net.modules() if isinstance(module, (nn.Conv2d, nn.Linear))]


def l2_penalty(weights: list[Tensor], coefficient: float) -> Tensor:
    return coefficient * sum(torch.sum(w * w) for w in weights)
