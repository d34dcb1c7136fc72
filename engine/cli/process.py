"""What a command sets for its whole process: threads, logging, the environment, and how it exits.

These are process-wide, so library code never sets them (a worker process's entry
point sizes its own threads); a command calls them first thing, before the
library loads what they configure.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["set_torch_threads", "set_torch_threads_on_load", "set_blas_threads_first", "setup_logging",
           "bind_ray_to_loopback", "exit_at_once"]

_LOG_FORMAT = "engine %(levelname)s: %(message)s"


def set_torch_threads(threads: int | None) -> int:
    """Torch's CPU threads for this process (None: every core it may use); return the count."""
    from engine import set_cpu_threads

    return set_cpu_threads(threads)


def set_torch_threads_on_load(threads: int | None) -> None:
    """Torch's CPU threads for this process: set now if torch is loaded, else through ``OMP_NUM_THREADS``,
    which torch reads when it loads. A front end's network starts on numpy and loads torch later, in the
    background (:mod:`engine.nn.staged_evaluator`): importing it here would delay the first move."""
    if "torch" in sys.modules:
        set_torch_threads(threads)
    else:
        os.environ["OMP_NUM_THREADS"] = str(threads or len(os.sched_getaffinity(0)))


def set_blas_threads_first(runtime: str, threads: int | None) -> None:
    """Size numpy's BLAS for the numpy forward pass (the numpy runtime, and ``auto``'s first moves in a front
    end). It only works before numpy loads, so a command calls this first."""
    if runtime in ("numpy", "auto"):
        from engine import set_blas_threads

        if not set_blas_threads(threads):
            logging.getLogger(__name__).warning("numpy was loaded before --threads could size its BLAS")


def setup_logging(level: str) -> None:
    """Diagnostics on stderr; ``heatmap``'s lines there bare and at every level, as Leela Zero prints them."""
    logging.basicConfig(stream=sys.stderr, level=level.upper(), format=_LOG_FORMAT, force=True)
    from gtp.rawnn import RAW_LOG

    bare = logging.StreamHandler(sys.stderr)
    bare.setFormatter(logging.Formatter("%(message)s"))
    RAW_LOG.handlers[:] = [bare]
    RAW_LOG.setLevel(logging.INFO)
    RAW_LOG.propagate = False


def bind_ray_to_loopback() -> None:
    """The environment in which a ``--ray local`` cluster binds the loopback address only; Ray reads it when it is
    imported, so this runs while the options are parsed."""
    from training.cluster.connect import LOOPBACK_ENV

    for name, value in LOOPBACK_ENV.items():
        os.environ.setdefault(name, value)


def exit_at_once() -> None:
    """End the process now that the session is over, without waiting for the background thread's work.

    The interpreter shutting down under a compile that is still running in that thread
    (:mod:`gtp.warmup`) can abort the process instead of ending it.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(0)
