"""A network's arithmetic per position, and the share of a GPU's dense bf16 peak a measured rate reaches.

The count is torch's own (``torch.utils.flop_counter``: 2 FLOPs a multiply-add,
convolutions and matrix products), on one position through the eager network,
so it follows any architecture without a formula to keep. Peaks are the
vendors' dense (no sparsity) bf16 tensor-core figures; a GPU not in the table
gets no share rather than a guess.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DENSE_BF16_TFLOPS", "flops_per_position", "dense_bf16_peak"]

DENSE_BF16_TFLOPS = {  # matched in order against torch.cuda.get_device_name()
    "H100 PCIe": 756.0,
    "H100 NVL": 835.0,
    "H100": 989.0,  # SXM (the H100 80GB HBM3)
    "H200": 989.0,
    "A100": 312.0,
    "L40S": 362.0,
    "L4": 121.0,
}


def flops_per_position(net: Any, in_planes: int, size: int) -> float:
    """FLOPs of one position's forward pass through ``net`` (a PolicyValueNet, left unchanged)."""
    import copy

    import torch
    from torch.utils.flop_counter import FlopCounterMode

    probe = copy.deepcopy(net).float().cpu().eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        probe(torch.zeros(1, in_planes, size, size))
    return float(counter.get_total_flops())


def dense_bf16_peak(device: Any) -> tuple[str, float] | None:
    """(name, dense bf16 peak in TFLOPS) of a CUDA ``device`` listed in :data:`DENSE_BF16_TFLOPS`, else None."""
    import torch

    if getattr(device, "type", str(device)) != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    for key, tflops in DENSE_BF16_TFLOPS.items():
        if key in name:
            return name, tflops
    return None
