"""``engine bench net``: network inference speed in positions per second.

The workload is :meth:`engine.nn.evaluator.NetEvaluator.infer` (host planes to
device, forward pass, logits and values back to the host) on a batch of
random 0/1 planes through a randomly initialised network: the network's cost
inside a search, without encoding, masking or the cache. Weights do not
change the speed, so no model file is needed.

``--runtime numpy`` times the numpy forward pass
(:class:`~engine.nn.numpy_evaluator.NumpyEvaluator`, float32 on the CPU) on
the same random network; ``--threads`` are then numpy's BLAS's.

It also reports the arithmetic rate (``tflops``: positions/s times the
network's FLOPs a position, :mod:`engine.bench.peak`) and, in bf16 on a GPU
whose dense bf16 peak is known (an H100 SXM: 989 TFLOPS), the share of that
peak it reaches (``peak_share``).
"""

from __future__ import annotations

import os
import time

import click

from engine.bench.peak import dense_bf16_peak, flops_per_position
from engine.bench.timing import measure_rate, report, runtime_options_with_numpy

__all__ = ["net_command"]


@click.command("net")
@click.option("--blocks", type=click.IntRange(0), default=6, show_default=True, help="Residual blocks.")
@click.option("--filters", type=click.IntRange(1), default=64, show_default=True, help="Filters per convolution.")
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True, help="Board size.")
@click.option("--batch", type=click.IntRange(1), default=16, show_default=True, help="Positions per forward pass.")
@click.option("--heads", type=click.Choice(["fc", "pooled"]), default="fc", show_default=True,
              help="AlphaGo Zero heads, or size-independent pooled heads.")
@click.option("--in-planes", type=click.IntRange(1), default=17, show_default=True, help="Input planes.")
@runtime_options_with_numpy
@click.option("--seconds", type=click.FloatRange(0.01), default=2.0, show_default=True, help="Length of each run.")
@click.option("--runs", type=click.IntRange(1), default=5, show_default=True, help="Runs; the median is reported.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def net_command(blocks: int, filters: int, size: int, batch: int, heads: str, in_planes: int, device: str | None,
                dtype: str, runtime: str, threads: int | None, seconds: float, runs: int, as_json: bool) -> None:
    """Network forward passes: positions/s (median of several runs; compiling counts in setup_s, not the rate)."""
    started = time.perf_counter()
    from engine.nn.blas import set_blas_threads

    if runtime == "numpy":
        set_blas_threads(threads)   # before numpy loads (torch imports it)
    import numpy as np
    import torch

    from engine.nn.evaluator import NetEvaluator, set_cpu_threads
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
        if device not in (None, "cpu") or dtype not in ("auto", "fp32"):
            raise click.UsageError("--runtime numpy runs fp32 on the cpu")
        tensors = {name: tensor.numpy() for name, tensor in net.state_dict().items()}
        evaluator = NumpyEvaluator(NumpyNet(config, tensors), stand_in, cache_size=0)
        thread_count = threads or len(os.sched_getaffinity(0))   # OpenBLAS's default: every core
    else:
        thread_count = set_cpu_threads(threads)
        evaluator = NetEvaluator(net, stand_in, device=device, dtype=dtype, cache_size=0, runtime=runtime,
                                 calibration=planes)   # int8's ranges: the planes it is timed on

    def step() -> float:
        evaluator.infer(planes)
        return float(batch)

    for _ in range(3):  # warm-up: compiling, allocator, oneDNN primitive selection, cuDNN autotuning
        step()
    startup = time.perf_counter() - started
    rate = measure_rate(step, seconds, runs)
    dtype_name = evaluator.dtype_name
    flops = flops_per_position(net.for_inference(), in_planes, size)
    peak = dense_bf16_peak(evaluator.device) if dtype_name == "bf16" else None
    achieved = rate.median * flops / 1e12
    result = {"net": config.name, "blocks": blocks, "filters": filters, "size": size, "batch": batch,
              "heads": heads, "in_planes": in_planes, "device": str(evaluator.device), "dtype": dtype_name,
              "runtime": evaluator.runtime,
              "threads": thread_count, "runs": runs, "seconds": seconds,
              "positions_per_s": rate.median, "positions_per_s_runs": rate.runs, "setup_s": startup,
              "gflops_per_position": flops / 1e9, "tflops": achieved}
    share = ""
    if peak is not None:
        result.update({"gpu": peak[0], "peak_bf16_tflops": peak[1], "peak_share": achieved / peak[1]})
        share = f", {100 * achieved / peak[1]:.1f}% of the {peak[0]}'s {peak[1]:g} dense bf16 TFLOPS"
    report(result, as_json,
           f"{config.name} {size}x{size} batch {batch} on {evaluator.device} ({dtype_name}, {evaluator.runtime}, "
           f"{thread_count} threads): {rate.median:,.0f} positions/s "
           f"(median of {runs} runs of {seconds:g} s; setup {startup:.2f} s); {achieved:,.3f} TFLOPS at "
           f"{flops / 1e9:.3f} GFLOPs a position{share}")


class _PlaneCount:
    """The encoder stand-in ``NetEvaluator`` needs: ``infer`` is fed planes directly."""

    name = "bench"
    uses_history = False

    def __init__(self, num_planes: int) -> None:
        self.num_planes = num_planes

    def encode_batch(self, positions: object) -> "object":
        raise NotImplementedError("engine bench net feeds planes to infer() directly")
