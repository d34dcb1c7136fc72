"""``engine bench startup``: how long a new user waits, measured on the real ``engine gtp`` in a subprocess.

Each run starts ``engine gtp`` (this interpreter, this source tree) and sends
at once, as a GUI or ``printf ... | engine gtp`` does: ``name``,
``boardsize N``, ``clear_board``, ``genmove b``, ``genmove w``, ``genmove b``,
``quit``. From the moment the process is started it times the answers:
``protocol_s`` (``name``: the session answers), ``ready_s`` (``boardsize``: the
first command that needs the engine) and ``first_genmove_s``; the next two
genmoves are timed from the answer before them (``second_genmove_s``,
``third_genmove_s``), which shows whether they wait for anything the first
one left running.

*Cold* runs get empty caches, as after a fresh install: ``NUMBA_CACHE_DIR``
(the kernels), ``TORCHINDUCTOR_CACHE_DIR`` and ``XDG_CACHE_HOME`` (the
network compiled ahead of time, :mod:`engine.nn.precompiled`) point at a new
temporary folder; the compile a cold start leaves running is stopped before
the next start. *Warm* runs share such a folder, filled by one untimed start
first and the compile it started (an installed engine started again). Either
kind finds the modules byte-compiled, as an installed engine has them: the
bytecode is written beside the sources even where ``PYTHONDONTWRITEBYTECODE``
is set.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.timing import BenchError, engine_process
from engine.nn.aot_package import compiles_in_progress, package_dir

__all__ = ["FIGURES", "measure_startup", "time_startup"]

FIGURES = ("protocol_s", "ready_s", "first_genmove_s", "second_genmove_s", "third_genmove_s")
"""What one start measures, in seconds (see the module docstring)."""
_GENMOVES = ("4", "5", "6")   # the ids of the three genmoves in the script


def time_startup(size: int, caches: Path, gtp_args: list[str], timeout: float) -> dict[str, float]:
    """One start of ``engine gtp`` with its caches in ``caches``: :data:`FIGURES`.

    Raises BenchError when the engine fails or does not answer in ``timeout`` seconds.
    """
    command, env = engine_process("gtp", *gtp_args, NUMBA_CACHE_DIR=str(caches / "numba"),
                                  TORCHINDUCTOR_CACHE_DIR=str(caches / "inductor"), XDG_CACHE_HOME=str(caches))
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # an installed engine has its modules byte-compiled
    script = f"1 name\n2 boardsize {size}\n3 clear_board\n4 genmove b\n5 genmove w\n6 genmove b\n7 quit\n"
    marks = {"1": "protocol_s", "2": "ready_s", **{ident: ident for ident in _GENMOVES}}
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
    first, second, third = (found[ident] for ident in _GENMOVES)
    return {"protocol_s": found["protocol_s"], "ready_s": found["ready_s"], "first_genmove_s": first,
            "second_genmove_s": second - first, "third_genmove_s": third - second}


def _settle_compiles(caches: Path, timeout: float, stop: bool) -> None:
    """Wait (at most ``timeout`` seconds) until no process compiles a network into ``caches``; with ``stop`` end
    those processes first. The compile a start leaves running would fill a warm cache, or take a core from the
    next start."""
    directory = package_dir(caches)
    if not directory.is_dir():
        return
    if stop:
        for pid in compiles_in_progress(directory):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while compiles_in_progress(directory):
        if time.monotonic() > deadline:
            raise BenchError(f"a network compile into {directory} did not end in {timeout:g} s")
        time.sleep(0.2)


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
                    _settle_compiles(Path(shared), timeout, stop=False)
                starts = []
                for _ in range(runs):
                    with tempfile.TemporaryDirectory(prefix="engine-startup-") as fresh:
                        caches = Path(fresh if mode == "cold" else shared)
                        starts.append(time_startup(size, caches, gtp_args, timeout))
                        _settle_compiles(caches, timeout, stop=True)
            row: dict[str, Any] = {"mode": mode, "size": size}
            for name in FIGURES:
                row[name] = statistics.median(start[name] for start in starts)
                row[f"{name}_runs"] = [start[name] for start in starts]
            rows.append(row)
    return rows
