"""The thread count of numpy's BLAS, which runs the numpy forward pass (:mod:`engine.nn.numpy_net`).

A module of its own that imports nothing heavy, because the count can only be
set before numpy is first imported: OpenBLAS and MKL read it from the
environment when they load. ``set_blas_threads`` is process-wide, so only the
CLI layer calls it (as it calls :func:`engine.nn.evaluator.set_cpu_threads`
for torch), before anything imports numpy.
"""

from __future__ import annotations

import os
import sys

__all__ = ["set_blas_threads", "BLAS_THREAD_VARIABLES"]

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables numpy's BLAS builds (OpenBLAS, MKL) read their thread count from."""


def set_blas_threads(threads: int | None) -> bool:
    """Ask numpy's BLAS for ``threads`` threads (None: leave its default, every core); return whether the
    count takes effect, which it does only when numpy has not been imported yet."""
    if threads is not None:
        for variable in BLAS_THREAD_VARIABLES:
            os.environ[variable] = str(int(threads))
    return "numpy" not in sys.modules
