"""``engine bench gpu``: the GPU's targets measured in one run, each with the GPU's busy share.

Three measurements, each in child processes as a user would run them, while :class:`~training.gpu_busy.GpuBusy`
samples ``nvidia-smi``:

* self-play as ``engine selfplay`` and ``engine loop`` lay it out on this machine
  (:func:`~training.layout.default_layout`): that many ``engine bench selfplay`` processes at once (b6c64 on
  9x9, 400 readouts, bf16), their positions/s summed, each one's simulations/s, and the GPU's busy share
  over their common timed window;
* ``engine bench net`` on a b20c256 19x19 network at batch 1024 in bf16: the share of the GPU's dense bf16
  peak;
* ``engine bench train`` on a b10c128 19x19 network: samples/s and the busy share over its timed steps.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from training.gpu_busy import GpuBusy
from training.layout import default_layout

__all__ = ["measure_gpu", "TARGETS"]

TARGETS = {"selfplay_busy_share": 0.85, "selfplay_positions_per_s": 3000.0,
           "selfplay_simulations_per_s_per_process": 30_000.0, "net_peak_share": 0.60, "train_busy_share": 0.80}
"""What the GPU should reach (an H100 or H200 machine): the figures :func:`measure_gpu` reports, at least."""

SELFPLAY = ["selfplay", "--game", "go", "--size", "9", "--readouts", "400", "--blocks", "6", "--filters", "64",
            "--dtype", "bf16", "--threads", "1", "--device", "cuda"]
NET = ["net", "--blocks", "20", "--filters", "256", "--size", "19", "--batch", "1024", "--dtype", "bf16",
       "--device", "cuda"]
TRAIN_STEPS = 200
TRAIN = ["train", "--blocks", "10", "--filters", "128", "--size", "19", "--steps", str(TRAIN_STEPS), "--runs", "1"]


def _engine(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "engine", "bench", *args, "--json"], stdout=subprocess.PIPE,
                            text=True)


def _answer(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"engine bench {' '.join(process.args[4:])} failed with exit status "  # type: ignore
                           f"{process.returncode}")
    return json.loads(out)  # type: ignore[no-any-return]


def measure_gpu(seconds: float = 60.0, cores: int | None = None) -> dict[str, Any]:
    """Every figure of :data:`TARGETS` on this machine's GPU (ValueError without one), self-play timed for
    ``seconds`` in each of the processes its layout runs on ``cores`` (default: this process's)."""
    import torch

    if not torch.cuda.is_available():
        raise ValueError("engine bench gpu measures a CUDA GPU, and torch sees none here")
    layout = default_layout("cuda", cores or len(os.sched_getaffinity(0)))
    with GpuBusy(period_ms=500) as gpu:
        started = time.monotonic()
        players = [_engine([*SELFPLAY, "--parallel-games", str(layout.parallel_games), "--seconds", str(seconds),
                            "--seed", str(worker)]) for worker in range(layout.workers)]
        played = [_answer(process) for process in players]
        warm = max(result["warm_up_s"] for result in played)
        selfplay_busy = gpu.share(started + warm, started + warm + seconds)
        net = _answer(_engine(NET))
        train = _answer(_engine(TRAIN))
        ended = time.monotonic()
        timed = TRAIN_STEPS * train["batch_size"] / train["samples_per_s"]
        data = train["data_share"] * timed   # drawing the batches alone, timed after the steps
        train_busy = gpu.share(ended - data - timed, ended - data)
    return {"gpu": torch.cuda.get_device_name(), "workers": layout.workers,
            "parallel_games": layout.parallel_games, "seconds": seconds,
            "selfplay_positions_per_s": sum(result["positions_per_s"] for result in played),
            "selfplay_simulations_per_s_per_process": statistics.median(r["simulations_per_s"] for r in played),
            "selfplay_busy_share": selfplay_busy, "net_positions_per_s": net["positions_per_s"],
            "net_peak_share": net.get("peak_share"), "train_samples_per_s": train["samples_per_s"],
            "train_busy_share": train_busy, "targets": TARGETS}
