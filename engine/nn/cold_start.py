"""A cold start's second compiler: the kernels of a first search that call no rules, compiled by a child
process while the front end compiles the rest.

On a fresh install a front end's first search compiles about 16 CPU seconds of kernels one after another:
the selection kernel with every rules kernel it calls, then the tree's other kernels and the network's input
encoder. Those last depend on nothing the first compile makes, so :func:`start_kernel_compiler` starts this
module as a child process that compiles them on another core into the same on-disk cache
(:mod:`engine.core.jit`): the front end, reaching them, loads them from the cache in milliseconds. One it
reaches first it compiles itself, as it would have done anyway; a lost race costs only the child's time.
Nothing starts where the cache has them, or on a single core.

    python -m engine.nn.cold_start RULES [MODEL]
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from encoders import get_encoder
from engine.core.board import INFO_LEN, ROWS
from engine.core.rules import Rules
from engine.nn.model_format import is_leela_zero, read_info
from engine.search.tree import compile_rules_free_kernels, expand_and_backup

__all__ = ["start_kernel_compiler", "rules_free_kernels_cached", "compile_kernels"]

log = logging.getLogger(__name__)

_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def rules_free_kernels_cached() -> bool:
    """Whether the on-disk cache holds the tree's kernels for this source (the expansion kernel stands for them).
    Reads the cache's index as numba does; where that fails, says False."""
    try:
        return bool(expand_and_backup._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 -- numba internals: an unreadable index reads as a cold cache
        return False


def compile_kernels(rules: Rules, model: str | None) -> None:
    """Compile the tree's rules-free kernels, then the input encoder of ``model`` (a model file of ours, for
    ``rules``) as the search calls it."""
    compile_rules_free_kernels()
    if model is not None and not is_leela_zero(model):   # (Leela Zero weights: reading them needs torch)
        encoder = get_encoder(read_info(model).encoder, rules)
        points = encoder.geo.num_points
        encoder.encode_arrays(np.zeros((1, ROWS, points), dtype=np.int16), np.zeros((1, INFO_LEN), dtype=np.int64))


def start_kernel_compiler(rules: Rules, model: str | os.PathLike[str] | None) -> subprocess.Popen[bytes] | None:
    """Start the child that compiles the rules-free kernels (and ``model``'s encoder), unless the cache has them
    already, kernels are not compiled (``NUMBA_DISABLE_JIT``) or this process may use one core only."""
    if numba.config.DISABLE_JIT or len(os.sched_getaffinity(0)) < 2 or rules_free_kernels_cached():
        return None
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_SOURCE_ROOT),
                                                                             os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "engine.nn.cold_start", str(rules), *([] if model is None else [str(model)])]
    log.info("compiling the search's rules-free kernels in a second process (a cold cache)")
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=environment)


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    compile_kernels(Rules.parse(argv[0]), argv[1] if len(argv) == 2 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
