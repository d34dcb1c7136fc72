"""The training objective, shared by ``train`` and ``validate``.

For a batch of planes ``x``, search policies ``pi [B, A]`` and results ``z [B]``
(both from the side to move), with the network's ``(logits, v) = f(x)``:

* policy loss: cross-entropy ``-sum_a pi_a log softmax(logits)_a``, batch mean (nats);
* value loss: mean squared error ``(v - z)^2``, batch mean (v and z in [-1, 1]);
* L2: ``c * sum w^2`` over the convolution and fully connected weights (not biases or batch norms).

The loss minimised is ``policy + value_weight * value + L2``, as AlphaGo Zero's.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

__all__ = ["BatchLosses", "batch_losses", "l2_penalty", "decayed_parameters"]


@dataclass
class BatchLosses:
    policy: Tensor
    value: Tensor
    top1: Tensor
    logits: Tensor


def batch_losses(net: nn.Module, planes: Tensor, policy: Tensor, value: Tensor) -> BatchLosses:
    """Policy cross-entropy, value MSE and top-1 agreement (argmax of logits == argmax of pi) of a batch."""
    logits, predicted = net(planes)
    log_probs = torch.log_softmax(logits.float(), dim=1)
    policy_loss = -(policy * log_probs).sum(dim=1).mean()
    value_loss = torch.mean((predicted.float() - value) ** 2)
    top1 = (logits.argmax(dim=1) == policy.argmax(dim=1)).float().mean()
    return BatchLosses(policy_loss, value_loss, top1, logits)


def decayed_parameters(net: nn.Module) -> list[Tensor]:
    """The weights L2 applies to: those of convolutions and linear layers."""
    return [module.weight for module in net.modules() if isinstance(module, (nn.Conv2d, nn.Linear))]


def l2_penalty(weights: list[Tensor], coefficient: float) -> Tensor:
    return coefficient * sum(torch.sum(w * w) for w in weights)
