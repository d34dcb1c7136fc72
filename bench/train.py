"""Training throughput (``engine bench train``): :func:`training.train.train` on random samples."""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

__all__ = ["measure_training", "random_samples"]


def random_samples(encoder_name: str, size: int, count: int, seed: int = 0) -> Any:
    """``count`` random :class:`~training.chunks.Samples` for ``encoder_name`` on a ``size`` board, shaped as
    gather writes them (packed planes, a one-hot move as pi, +-1 as z, ownership and score targets)."""
    import numpy as np

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


def measure_training(blocks: int, filters: int, encoder: str, size: int, batch_size: int, channels_last: bool,
                     steps: int, runs: int, dtype: str = "auto") -> dict[str, Any]:
    """Training samples/s of :func:`training.train.train` itself (minibatch draw, unpacking, symmetries,
    forward, losses, backward, optimiser step) on random samples through a random pooled network with
    ownership and score heads: weights and data do not change the speed. Each run trains ``steps`` steps after
    one untimed step; the median run is reported, with ``data_share``, the part of a step spent drawing and
    transforming the minibatch (:func:`~training.train.draw_batch` timed alone on the same steps). Torch's
    threads are the caller's."""
    import torch

    from engine import Model, ModelInfo, NetConfig, PolicyValueNet, pick_device
    from training.stream import SampleStream
    from training.train import TrainConfig, draw_batch, train, training_dtype

    samples = SampleStream.from_samples(random_samples(encoder, size, 4096))
    net_config = NetConfig(blocks, filters, samples.info.num_planes, None, "pooled", ("ownership", "score"))
    config = TrainConfig(steps=steps + 1, batch_size=batch_size, checkpoint_every=0, channels_last=channels_last,
                         dtype=dtype)
    device = pick_device(None)
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
    return {"network": net_config.name, "encoder": encoder, "size": size, "batch_size": batch_size,
            "channels_last": channels_last, "device": str(device), "dtype": training_dtype(config, device),
            "runs": runs, "steps": steps,
            "samples_per_s": statistics.median(rates), "runs_samples_per_s": [round(r, 1) for r in rates],
            "data_share": statistics.median(data_seconds) / statistics.median(step_seconds)}
