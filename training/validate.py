"""``validate``: a model's losses on held-out chunks (no augmentation, eval mode)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from training.chunks import Samples

__all__ = ["ValidationResult", "validate"]


@dataclass(frozen=True)
class ValidationResult:
    """Sample-weighted means over the held-out set: policy cross-entropy (nats), top-1 accuracy
    (the network's most likely move is the target's most likely move), value MSE."""

    samples: int
    policy_loss: float
    top1: float
    value_mse: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        return (f"{self.samples} samples: policy loss {self.policy_loss:.4f}, top-1 accuracy {100 * self.top1:.2f}%, "
                f"value MSE {self.value_mse:.4f}")


def validate(net: Any, samples: Samples, batch_size: int = 1024, device: str | None = None) -> ValidationResult:
    """Evaluate ``net`` (a PolicyValueNet) on every sample, in batches."""
    import torch

    from engine import pick_device
    from training.losses import batch_losses

    target = pick_device(device)
    net = net.to(target).eval()
    totals = np.zeros(3)
    count = len(samples)
    if count == 0:
        raise ValueError("no samples to validate on")
    with torch.inference_mode():
        for start in range(0, count, batch_size):
            index = np.arange(start, min(start + batch_size, count))
            planes = torch.from_numpy(samples.planes_at(index)).to(target)
            policy = torch.from_numpy(samples.policy[index].astype(np.float32)).to(target)
            value = torch.from_numpy(samples.value[index]).to(target)
            losses = batch_losses(net, planes, policy, value)
            weight = len(index)
            totals += weight * np.array([losses.policy.item(), losses.top1.item(), losses.value.item()])
    policy_loss, top1, value_mse = totals / count
    return ValidationResult(count, float(policy_loss), float(top1), float(value_mse))
