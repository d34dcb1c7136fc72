"""A cold start's second compiler: the kernels of a first search that it does not need first, compiled by a
child process while the front end compiles the rest.

On a fresh install a front end's first search compiles about 16 CPU seconds of kernels one after another:
the legal moves and superko hashes, the selection kernel with the rules kernels that play its moves, then
what it calls to value a finished game, the tree's backup, expansion and re-rooting, the network's input
encoder and the check of the move played. :func:`start_kernel_compiler` starts this module as a child process
that compiles all of those but the first three, on another core, into the same on-disk cache
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

from engine.core.rules import Rules
from engine.search.tree import expand_and_backup

__all__ = ["start_kernel_compiler", "second_compiler_kernels_cached", "compile_kernels"]

log = logging.getLogger(__name__)

_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def second_compiler_kernels_cached() -> bool:
    """Whether the on-disk cache holds what the second compiler compiles for this source (the tree's expansion
    kernel stands for it). Reads the cache's index as numba does; where that fails, says False."""
    try:
        return bool(expand_and_backup._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 -- numba internals: an unreadable index reads as a cold cache
        return False


def compile_kernels(rules: Rules, model: str | None) -> None:
    """Compile what a first search under ``rules`` does not need first: the search's kernels beside selection,
    the input encoder of ``model`` (a model file of ours) as the search calls it, and the check of a move.
    (Imported here: the front end that starts this process needs none of it.)"""
    import numpy as np

    from encoders import get_encoder
    from engine.core.board import INFO_LEN, ROWS
    from engine.core.position import Position
    from engine.nn.model_format import is_leela_zero, read_info
    from engine.search.tree import compile_kernels_beside_selection

    position = Position(rules)
    compile_kernels_beside_selection(position)
    if model is not None and not is_leela_zero(model):   # (Leela Zero weights: reading them needs torch)
        encoder = get_encoder(read_info(model).encoder, rules)
        points = encoder.geo.num_points
        encoder.encode_arrays(np.zeros((1, ROWS, points), dtype=np.int16), np.zeros((1, INFO_LEN), dtype=np.int64))
    position.check(int(np.flatnonzero(position.legal_mask())[0]))


def _usable_cores() -> int:
    """The cores this process may run on (where the system says; else the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def start_kernel_compiler(rules: Rules, model: str | os.PathLike[str] | None) -> subprocess.Popen[bytes] | None:
    """Start the second compiler for a first search under ``rules`` with ``model``, unless the cache has its kernels
    already, kernels are not compiled (``NUMBA_DISABLE_JIT``) or this process may use one core only."""
    if numba.config.DISABLE_JIT or _usable_cores() < 2 or second_compiler_kernels_cached():
        return None
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_SOURCE_ROOT),
                                                                             os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "engine.nn.cold_start", str(rules), *([] if model is None else [str(model)])]
    log.info("a cold kernel cache: compiling some of the search's kernels in a second process")
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
