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

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click

from engine.bench.timing import report

__all__ = ["startup_command", "time_startup"]

_ENGINE = (sys.executable, "-c", "from engine.cli import main; main()", "gtp")
_SOURCE_ROOT = Path(__file__).resolve().parents[2]   # the tree this module runs from, so the subprocess runs it too


def time_startup(size: int, caches: Path, gtp_args: list[str], timeout: float) -> dict[str, float]:
    """One start of ``engine gtp``: seconds from the start of the process to each answer.

    ``caches`` holds the kernel and compile caches the process uses. Raises
    click.ClickException when the engine fails or does not answer in ``timeout`` seconds.
    """
    env = dict(os.environ, NUMBA_CACHE_DIR=str(caches / "numba"), TORCHINDUCTOR_CACHE_DIR=str(caches / "inductor"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(_SOURCE_ROOT), os.environ.get("PYTHONPATH")])))
    script = f"1 name\n2 boardsize {size}\n3 clear_board\n4 genmove b\n5 quit\n"
    marks = {"1": "protocol_s", "2": "ready_s", "4": "first_genmove_s"}
    found: dict[str, float] = {}
    started = time.perf_counter()
    with subprocess.Popen([*_ENGINE, *gtp_args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
                    raise click.ClickException(f"engine gtp failed: {line.strip()}")
        deadline.cancel()
        errors = process.stderr.read()
        process.wait()
    if len(found) < len(marks):
        raise click.ClickException(f"engine gtp did not answer every command:\n{errors[-2000:]}")
    return found


@click.command("startup")
@click.option("--size", "sizes", type=click.IntRange(2, 25), multiple=True, default=(9, 19), show_default=True,
              help="Board sizes (repeat the option).")
@click.option("--mode", "modes", type=click.Choice(["cold", "warm"]), multiple=True, default=("cold", "warm"),
              show_default=True, help="cold: empty kernel and compile caches; warm: caches filled by a first start.")
@click.option("--runs", type=click.IntRange(1), default=3, show_default=True, help="Starts per size and mode.")
@click.option("--gtp-args", default="", help="Options for engine gtp, e.g. '--threads 1 --visits 400'.")
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Seconds allowed for one start.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def startup_command(sizes: tuple[int, ...], modes: tuple[str, ...], runs: int, gtp_args: str, timeout: float,
                    as_json: bool) -> None:
    """Seconds from starting engine gtp to its first answers and first genmove, cold and warm (medians)."""
    options = gtp_args.split()
    rows, lines = [], []
    for mode in modes:
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="engine-startup-") as shared:
                if mode == "warm":
                    time_startup(size, Path(shared), options, timeout)   # fills the caches; not timed
                starts = []
                for _ in range(runs):
                    with tempfile.TemporaryDirectory(prefix="engine-startup-") as fresh:
                        starts.append(time_startup(size, Path(fresh if mode == "cold" else shared), options,
                                                   timeout))
            row: dict[str, object] = {"mode": mode, "size": size}
            for name in ("protocol_s", "ready_s", "first_genmove_s"):
                row[name] = statistics.median(start[name] for start in starts)
                row[f"{name}_runs"] = [start[name] for start in starts]
            rows.append(row)
            lines.append(f"{mode} {size}x{size}: first answer {row['protocol_s']:.1f} s, ready {row['ready_s']:.1f} s, "
                         f"first genmove {row['first_genmove_s']:.1f} s (medians of {runs})")
    report({"gtp_args": options, "runs": runs, "results": rows}, as_json, "\n".join(lines))
