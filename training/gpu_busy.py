"""How busy the GPU is while self-play runs, as ``nvidia-smi`` samples it, for the progress bar.

``nvidia-smi --query-gpu=utilization.gpu -lms P`` prints, every P milliseconds and for each GPU, the share of
the last sample period in which a kernel ran (percent): the figure that says whether self-play feeds the GPU.
It runs as a child process read by a thread; on a machine without it there is nothing to show.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any

__all__ = ["GpuBusy", "counting_games"]

SAMPLES = 30
"""The progress bar's share is the median of this many latest samples (of every GPU)."""
KEPT = 100_000
"""Samples kept for :meth:`GpuBusy.share` over a time window (a day at one a second)."""


class GpuBusy:
    """The GPUs' busy share sampled every ``period_ms`` milliseconds: :meth:`share` is the median of the latest
    samples, or of those taken in a window of ``time.monotonic()`` (None before the first one, and always
    where ``nvidia-smi`` is missing or fails)."""

    def __init__(self, period_ms: int = 1000) -> None:
        self._samples: deque[tuple[float, float]] = deque(maxlen=KEPT)
        self._process: subprocess.Popen[str] | None = None
        command = shutil.which("nvidia-smi")
        if command is None:
            return
        try:
            self._process = subprocess.Popen(
                [command, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-lms", str(period_ms)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            return
        threading.Thread(target=self._read, name="gpu-busy", daemon=True).start()

    def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            try:
                percent = float(line.strip())
            except ValueError:   # "[N/A]" on a GPU that does not report it
                continue
            self._samples.append((time.monotonic(), min(max(percent, 0.0), 100.0) / 100))

    def share(self, since: float | None = None, until: float | None = None) -> float | None:
        """The median of the samples taken between ``since`` and ``until`` (``time.monotonic()``), or of the
        latest :data:`SAMPLES` without a window."""
        samples = list(self._samples)
        if since is None and until is None:
            shares = [share for _, share in samples[-SAMPLES:]]
        else:
            low, high = since or 0.0, until or float("inf")
            shares = [share for taken, share in samples if low <= taken <= high]
        return statistics.median(shares) if shares else None

    def close(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait()
            self._process = None

    def __enter__(self) -> "GpuBusy":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def counting_games(bar: Any, gpu: GpuBusy) -> Callable[[object], None]:
    """A per-game callback that advances the tqdm ``bar`` by one and shows the GPU's busy share on it."""

    def played(_game: object) -> None:
        busy = gpu.share()
        if busy is not None:
            bar.set_postfix_str(f"GPU {100 * busy:.0f}% busy", refresh=False)
        bar.update(1)

    return played
