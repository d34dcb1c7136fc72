"""``engine bench startup``: how long a new user waits, measured on the real ``engine gtp`` in a subprocess.

Each run starts ``engine gtp`` (this interpreter, this source tree) and sends
at once, as a GUI or ``printf ... | engine gtp`` does: ``name``,
``boardsize N``, ``clear_board``, ``genmove b``, ``quit``. From the moment
the process is started it times the answers: ``protocol_s`` (``name``: the
session answers), ``ready_s`` (``boardsize``: the first command that needs the
engine) and ``first_genmove_s``. *Cold* runs get empty kernel and compile
caches (``NUMBA_CACHE_DIR`` and ``TORCHINDUCTOR_CACHE_DIR`` pointed at new
temporary folders: a fresh install); *warm* runs share such folders, filled by
one untimed start first (an installed engine started again).
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from engine.bench.timing import BenchError, engine_process

__all__ = ["measure_startup", "time_startup"]



def time_startup(size: int, caches: Path, gtp_args: list[str], timeout: float) -> dict[str, float]:
    """One start of ``engine gtp``: seconds from the start of the process to each answer.

    ``caches`` holds the kernel and compile caches the process uses. Raises
    BenchError when the engine fails or does not answer in ``timeout`` seconds.
    """
    command, env = engine_process("gtp", *gtp_args, NUMBA_CACHE_DIR=str(caches / "numba"),
                                  TORCHINDUCTOR_CACHE_DIR=str(caches / "inductor"))
    script = f"1 name\n2 boardsize {size}\n3 clear_board\n4 genmove b\n5 quit\n"
    marks = {"1": "protocol_s", "2": "ready_s", "4": "first_genmove_s"}
    found: dict[str, float] = {}
    started = time.perf_counter()
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        deadline = threading.Timer(timeout, process.kill)
        deadline.start()
        process.stdin.write(script)
        process.stdin.close()
        for line in process.stdout:   # answers in order: "=1 engine", "=2", ... ("?4 message" on a failure)
            head = line.split(maxsplit=1)[0] if line.strip() else ""
            if head[1:] in marks and head[:1] in "=?":
                found[marks[head[1:]]] = time.perf_counter() - started
                if head.startswith("?"):
                    process.kill()
                    raise BenchError(f"engine gtp failed: {line.strip()}")
        deadline.cancel()
        errors = process.stderr.read()
        process.wait()
    if len(found) < len(marks):
        raise BenchError(f"engine gtp did not answer every command:\n{errors[-2000:]}")
    return found


def measure_startup(sizes: tuple[int, ...], modes: tuple[str, ...], runs: int, gtp_args: list[str],
                    timeout: float) -> list[dict[str, Any]]:
    """For each mode (``cold``, ``warm``) and board size, the medians of ``runs`` starts of ``engine gtp``
    (:func:`time_startup`) and every start's figures."""
    rows = []
    for mode in modes:
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="engine-startup-") as shared:
                if mode == "warm":
                    time_startup(size, Path(shared), gtp_args, timeout)   # fills the caches; not timed
                starts = []
                for _ in range(runs):
                    with tempfile.TemporaryDirectory(prefix="engine-startup-") as fresh:
                        starts.append(time_startup(size, Path(fresh if mode == "cold" else shared), gtp_args,
                                                   timeout))
            row: dict[str, Any] = {"mode": mode, "size": size}
            for name in ("protocol_s", "ready_s", "first_genmove_s"):
                row[name] = statistics.median(start[name] for start in starts)
                row[f"{name}_runs"] = [start[name] for start in starts]
            rows.append(row)
    return rows
