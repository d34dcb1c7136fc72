"""Random networks for tests that compare forward passes: batch norms far from the identity, so that folding
them (``for_inference``, the numpy forward pass) is really tested."""

from __future__ import annotations

import torch

from engine.nn.net import NetConfig, PolicyValueNet

__all__ = ["random_net"]


def random_net(config: NetConfig, seed: int = 0, scales: tuple[float, float] = (0.5, 1.5)) -> PolicyValueNet:
    """A randomly initialised net with non-trivial batch-norm statistics, shifts and scales (uniform in
    ``scales``: a negative one flips its channel), in eval mode."""
    torch.manual_seed(seed)
    net = PolicyValueNet(config)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(*scales)
                module.bias.uniform_(-0.2, 0.2)
    return net.eval()
