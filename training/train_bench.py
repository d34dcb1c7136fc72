"""``engine bench train``: training throughput in samples per second, and where the time goes.

The workload is :func:`training.train.train` itself (minibatch draw, unpacking,
the eight symmetries, forward, losses, backward, optimiser step) on random
samples shaped like the real ones (bit-packed planes of the chosen encoder, a
one-hot move as pi, +-1 as z, ownership and score targets) through a randomly
initialised network: weights and data do not change the speed. Each run
trains ``--steps`` steps after one untimed step; the median run is reported,
with ``data_share``, the part of a step spent drawing and transforming the
minibatch (:func:`training.train.draw_batch` timed alone on the same steps), so
that data loading shows when it becomes the bottleneck.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import click
import numpy as np

from engine.bench.timing import report

__all__ = ["train_bench_command", "random_samples"]


def random_samples(encoder_name: str, size: int, count: int, seed: int = 0):  # noqa: ANN201 (torch-free signature)
    """``count`` random samples for ``encoder_name`` on a ``size`` board, as gather writes them."""
    from encoders import get_encoder
    from engine import Rules
    from training.chunks import ChunkInfo, Samples, pack_ownership, pack_planes

    encoder = get_encoder(encoder_name, Rules.go(size))
    rng = np.random.default_rng(seed)
    planes = (rng.random((count, *encoder.shape)) < 0.15).astype(encoder.dtype)
    packed, coding = pack_planes(planes)
    actions = size * size + 1
    policy = np.zeros((count, actions), np.float16)
    policy[np.arange(count), rng.integers(0, actions, count)] = 1
    ownership = rng.integers(-1, 2, (count, size * size)).astype(np.int8)
    info = ChunkInfo("go", size, encoder.name, encoder.num_planes, coding, count)
    return Samples(info, packed, policy, rng.choice([-1.0, 1.0], count).astype(np.float32), pack_ownership(ownership),
                   rng.normal(0, 20, count).astype(np.float32), np.ones(count, bool))


@click.command("train")
@click.option("--blocks", type=click.IntRange(0), default=6, show_default=True, help="Residual blocks.")
@click.option("--filters", type=click.IntRange(1), default=64, show_default=True, help="Filters per convolution.")
@click.option("--encoder", default="fifteenplane", show_default=True, help="Encoder of the samples.")
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True, help="Board size.")
@click.option("--batch-size", type=click.IntRange(1), default=256, show_default=True)
@click.option("--channels-last/--no-channels-last", default=True, show_default=True, help="NHWC memory layout.")
@click.option("--steps", type=click.IntRange(1), default=4, show_default=True, help="Steps a run.")
@click.option("--runs", type=click.IntRange(1), default=3, show_default=True, help="Runs; the median is reported.")
@click.option("--threads", type=click.IntRange(1), default=None, help="Torch threads [default: the cores].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def train_bench_command(blocks: int, filters: int, encoder: str, size: int, batch_size: int, channels_last: bool,
                        steps: int, runs: int, threads: int | None, as_json: bool) -> None:
    """Training steps on random samples: samples/s (median of several runs) and the data pipeline's share."""
    import torch

    from engine import set_cpu_threads
    from engine.nn.model_file import Model, ModelInfo
    from engine.nn.net import NetConfig, PolicyValueNet
    from training.train import TrainConfig, draw_batch, train

    thread_count = set_cpu_threads(threads)
    samples = random_samples(encoder, size, 4096)
    net_config = NetConfig(blocks, filters, samples.info.num_planes, None, "pooled", ("ownership", "score"))
    config = TrainConfig(steps=steps + 1, batch_size=batch_size, checkpoint_every=0, channels_last=channels_last)
    rates, data_seconds, step_seconds = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            torch.manual_seed(run)
            model = Model(PolicyValueNet(net_config), ModelInfo("go", encoder, samples.info.num_planes, net_config))
            stamps: list[float] = []
            train(samples, model, Path(folder) / f"run{run}.safetensors", 1, replace(config, seed=run),
                  on_step=lambda _step, _metrics: stamps.append(time.perf_counter()))
            timed = stamps[-1] - stamps[0]           # the first step warms up and is not timed
            rates.append(steps * batch_size / timed)
            step_seconds.append(timed / steps)
            started = time.perf_counter()
            for step in range(1, steps + 1):
                draw_batch(samples, config, step)
            data_seconds.append((time.perf_counter() - started) / steps)
    result = {"network": net_config.name, "encoder": encoder, "size": size, "batch_size": batch_size,
              "channels_last": channels_last, "threads": thread_count, "runs": runs, "steps": steps,
              "samples_per_s": statistics.median(rates), "runs_samples_per_s": [round(r, 1) for r in rates],
              "data_share": statistics.median(data_seconds) / statistics.median(step_seconds)}
    report(result, as_json, f"train {net_config.name} {encoder} {size}x{size}, batch {batch_size}"
           f"{', channels-last' if channels_last else ''}, {thread_count} threads: "
           f"{result['samples_per_s']:.1f} samples/s (median of {runs}: {result['runs_samples_per_s']}); "
           f"drawing the minibatch {100 * result['data_share']:.1f}% of a step")
