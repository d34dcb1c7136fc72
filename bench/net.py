"""``engine bench net``: network inference speed in positions per second.

The workload is :meth:`engine.nn.evaluator.NetEvaluator.infer` (host planes to
device, forward pass, logits and values back to the host) on a batch of
random 0/1 planes through a randomly initialised network: the network's cost
inside a search, without encoding, masking or the cache. Weights do not
change the speed, so no model file is needed.

``runtime="numpy"`` times the numpy forward pass
(:class:`~engine.nn.numpy_evaluator.NumpyEvaluator`, float32 on the CPU) on
the same random network; its threads are then numpy's BLAS's.

It also reports the arithmetic rate (``tflops``: positions/s times the
network's FLOPs a position, :mod:`bench.peak`) and, in bf16 on a GPU
whose dense bf16 peak is known (an H100 SXM: 989 TFLOPS), the share of that
peak it reaches (``peak_share``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from bench.peak import dense_bf16_peak, flops_per_position
from bench.timing import measure_rate

__all__ = ["measure_net"]


def measure_net(blocks: int, filters: int, size: int, batch: int, heads: str, in_planes: int, device: str | None,
                dtype: str, runtime: str, threads: int | None, seconds: float, runs: int) -> dict[str, Any]:
    """Positions/s of a random network's forward passes (median of ``runs`` runs of ``seconds``; compiling counts
    in ``setup_s``, not the rate). The process's threads are the caller's to set; ``threads`` is reported.
    ValueError for a device or dtype the numpy runtime cannot run."""
    if runtime == "numpy" and (device not in (None, "cpu") or dtype not in ("auto", "fp32")):
        raise ValueError("--runtime numpy runs fp32 on the cpu")
    started = time.perf_counter()
    import numpy as np
    import torch

    from engine.nn.evaluator import NetEvaluator
    from engine.nn.net import NetConfig, PolicyValueNet
    from engine.nn.numpy_evaluator import NumpyEvaluator
    from engine.nn.numpy_net import NumpyNet

    config = NetConfig(blocks, filters, in_planes, None if heads == "pooled" else size, heads)
    torch.manual_seed(0)
    net = PolicyValueNet(config)
    stand_in = _PlaneCount(in_planes)
    evaluator: NetEvaluator | NumpyEvaluator
    planes = (np.random.default_rng(0).random((batch, in_planes, size, size)) < 0.3).astype(np.uint8)
    if runtime == "numpy":
        tensors = {name: tensor.numpy() for name, tensor in net.state_dict().items()}
        evaluator = NumpyEvaluator(NumpyNet(config, tensors), stand_in, cache_size=0)
        thread_count = threads or len(os.sched_getaffinity(0))   # OpenBLAS's default: every core
    else:
        thread_count = torch.get_num_threads()
        evaluator = NetEvaluator(net, stand_in, device=device, dtype=dtype, cache_size=0, runtime=runtime,
                                 calibration=planes)   # int8's ranges: the planes it is timed on

    def step() -> float:
        evaluator.infer(planes)
        return float(batch)

    for _ in range(3):  # warm-up: compiling, allocator, oneDNN primitive selection, cuDNN autotuning
        step()
    startup = time.perf_counter() - started
    rate = measure_rate(step, seconds, runs)
    flops = flops_per_position(net.for_inference(), in_planes, size)
    achieved = rate.median * flops / 1e12
    result: dict[str, Any] = {
        "net": config.name, "blocks": blocks, "filters": filters, "size": size, "batch": batch, "heads": heads,
        "in_planes": in_planes, "device": str(evaluator.device), "dtype": evaluator.dtype_name,
        "runtime": evaluator.runtime, "threads": thread_count, "runs": runs, "seconds": seconds,
        "positions_per_s": rate.median, "positions_per_s_runs": rate.runs, "setup_s": startup,
        "gflops_per_position": flops / 1e9, "tflops": achieved}
    peak = dense_bf16_peak(evaluator.device) if evaluator.dtype_name == "bf16" else None
    if peak is not None:
        result.update({"gpu": peak[0], "peak_bf16_tflops": peak[1], "peak_share": achieved / peak[1]})
    return result


class _PlaneCount:
    """The encoder stand-in ``NetEvaluator`` needs: ``infer`` is fed planes directly."""

    name = "bench"
    uses_history = False

    def __init__(self, num_planes: int) -> None:
        self.num_planes = num_planes

    def encode_batch(self, positions: object) -> "object":
        raise NotImplementedError("engine bench net feeds planes to infer() directly")
