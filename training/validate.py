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
    (the network's most likely move is the target's most likely move), value MSE.

    For a network with the score head, ``score_mae``: the mean absolute error of the score mean, in
    points; with the ownership head, ``ownership_accuracy``: the share of points with an owner whose
    owner the sign of the ownership output names. Both over the ``aux_samples`` samples that have
    those targets (None when the network lacks the head or no sample has the targets).
    """

    samples: int
    policy_loss: float
    top1: float
    value_mse: float
    aux_samples: int = 0
    score_mae: float | None = None
    ownership_accuracy: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        text = (f"{self.samples} samples: policy loss {self.policy_loss:.4f}, top-1 accuracy "
                f"{100 * self.top1:.2f}%, value MSE {self.value_mse:.4f}")
        if self.score_mae is not None:
            text += f"; score mean absolute error {self.score_mae:.2f} points"
        if self.ownership_accuracy is not None:
            text += f"; ownership accuracy {100 * self.ownership_accuracy:.2f}%"
        if self.score_mae is not None or self.ownership_accuracy is not None:
            text += f" (on {self.aux_samples} samples of scored games)"
        return text


def validate(net: Any, samples: Samples, batch_size: int = 1024, device: str | None = None) -> ValidationResult:
    """Evaluate ``net`` (a PolicyValueNet) on every sample, in batches."""
    import torch

    from engine import pick_device
    from training.losses import Batch, batch_losses

    target = pick_device(device)
    net = net.to(target).eval()
    totals = np.zeros(3)
    score_error = owned_right = owned_points = 0.0
    count = len(samples)
    if count == 0:
        raise ValueError("no samples to validate on")
    with torch.inference_mode():
        for start in range(0, count, batch_size):
            index = np.arange(start, min(start + batch_size, count))
            batch = Batch(*(torch.from_numpy(a).to(target) for a in samples.batch_at(index)))
            losses = batch_losses(net, batch)
            totals += len(index) * np.array([losses.policy.item(), losses.top1.item(), losses.value.item()])
            out, mask = losses.outputs, batch.aux_mask
            if out.score_mean is not None:
                score_error += float((out.score_mean.float() - batch.score).abs()[mask].sum())
            if out.ownership is not None:
                decided = (batch.ownership != 0) & mask[:, None]
                owned_right += float((torch.sign(out.ownership.float()) == batch.ownership)[decided].sum())
                owned_points += float(decided.sum())
    policy_loss, top1, value_mse = totals / count
    scored = int(samples.aux_mask.sum())
    config = net.config
    score_mae = score_error / scored if scored and "score" in config.aux_heads else None
    accuracy = owned_right / owned_points if owned_points else None
    return ValidationResult(count, float(policy_loss), float(top1), float(value_mse), scored, score_mae, accuracy)
