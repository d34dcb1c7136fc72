"""The default self-play layout, and the GPU's busy share as nvidia-smi reports it."""

from __future__ import annotations

import io
import os
import time
from collections import deque
from pathlib import Path

import pytest

from training.gpu_busy import GpuBusy
from training.layout import CPU_LAYOUT, GPU_PARALLEL_GAMES, SelfPlayLayout, default_layout


def test_a_gpu_gets_a_process_a_core_but_two_and_many_games_each() -> None:
    assert default_layout("cuda", 16) == SelfPlayLayout(14, GPU_PARALLEL_GAMES)
    assert default_layout("cuda", 2) == SelfPlayLayout(1, GPU_PARALLEL_GAMES)
    assert default_layout("cpu", 16) == default_layout("mps", 8) == CPU_LAYOUT == SelfPlayLayout(1, 16)


def _fake_nvidia_smi(folder: Path, lines: str) -> None:
    script = folder / "nvidia-smi"
    script.write_text(f"#!/bin/sh\nprintf '{lines}'\nexec sleep 30\n")
    script.chmod(0o755)


def test_the_busy_share_is_the_median_of_the_samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_nvidia_smi(tmp_path, "50\\n[N/A]\\n70\\n64\\n")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with GpuBusy() as gpu:
        for _ in range(200):   # the reader thread takes the lines as they come
            if len(gpu._samples) == 3:
                break
            time.sleep(0.05)
        assert gpu.share() == pytest.approx(0.64)   # "[N/A]" is no sample


def test_no_nvidia_smi_no_share(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with GpuBusy() as gpu:
        assert gpu.share() is None


def test_engine_selfplay_on_a_gpu_takes_the_gpu_layout_unless_told(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import torch
    from click.testing import CliRunner

    from engine.cli import main
    from engine.nn.networks import bundled_model
    from training.selfplay import SelfPlaySummary

    seen: list[tuple[int, int]] = []

    def capture(model, rules, config, games, output, options, workers, on_game, worker_threads=None):  # noqa: ANN001, ANN202
        seen.append((workers, config.parallel_games))
        return SelfPlaySummary()

    monkeypatch.setattr("training.selfplay.run_selfplay", capture)
    monkeypatch.setattr("engine.pick_device", lambda device=None: torch.device("cuda"))
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)))
    model = str(bundled_model("go"))
    for args in ([], ["--workers", "2", "--parallel-games", "8"]):
        result = CliRunner().invoke(main, ["selfplay", model, "--size", "9", "--output-dir", str(tmp_path), *args])
        assert result.exit_code == 0, (result.output, result.exception)
    assert seen == [(14, 64), (2, 8)]


def test_each_game_advances_the_bar_and_shows_the_busy_share(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tqdm import tqdm

    from training.gpu_busy import counting_games

    _fake_nvidia_smi(tmp_path, "40\\n")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with tqdm(total=2, file=io.StringIO()) as bar, GpuBusy() as gpu:
        for _ in range(200):
            if gpu.share() is not None:
                break
            time.sleep(0.05)
        counting_games(bar, gpu)(None)
        assert bar.n == 1 and bar.postfix == "GPU 40% busy"


def test_a_window_takes_the_samples_taken_in_it() -> None:
    gpu = GpuBusy.__new__(GpuBusy)   # no nvidia-smi: samples put in by hand
    gpu._samples = deque([(1.0, 0.1), (2.0, 0.8), (3.0, 0.9), (4.0, 0.7), (5.0, 0.2)])
    assert gpu.share(1.5, 4.5) == pytest.approx(0.8)
    assert gpu.share(5.5, 9.0) is None
    assert gpu.share() == pytest.approx(0.7)   # the latest samples, all of them here


def test_bench_gpu_says_it_needs_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from engine.cli import main

    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    result = CliRunner().invoke(main, ["bench", "gpu", "--seconds", "1"])
    assert result.exit_code == 2 and "measures a CUDA GPU" in result.output
