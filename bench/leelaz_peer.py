"""Leela Zero 0.17 as a timing peer for ``engine bench genmove --peer leela-zero``.

Leela Zero plays the Leela Zero weights given as ``--model``, the model given
(exported to its format), or a random network of the same size as ours,
written in its documented text format (version 1): a version line, then one
line of numbers per tensor: the input convolution (weights, biases, batch-norm
means, variances), two such convolutions per residual block, the policy head
(1x1 convolution to 2 filters, its batch norm, a fully connected layer to 362
outputs) and the value head (1x1 convolution to 1 filter, its batch norm, 256
fully connected, 1 fully connected). Speed does not depend on the values.

Leela Zero prints ``... visits, ... nodes, ... playouts, N n/s`` on stderr
after each search; the median of those rates is reported.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
from pathlib import Path

import numpy as np

from bench.timing import BenchError

__all__ = ["write_random_leelaz_weights", "find_leelaz", "peer_weights", "measure_leelaz"]

_INPUT_PLANES = 18
_BOARD_POINTS = 361


def _line(values: np.ndarray) -> str:
    return " ".join(f"{v:.4g}" for v in values.ravel())


def write_random_leelaz_weights(path: Path, blocks: int, filters: int, seed: int = 0, *, version: int = 1,
                                output_gain: float = 0.05, biases: bool = False) -> None:
    """A random 19x19 network of ``blocks`` x ``filters`` in Leela Zero's text format.

    ``output_gain`` scales the policy and value outputs: small (the default) keeps the priors near uniform
    and the values near 0, as an untrained net's are, so that a timed tree is as wide as a real search's;
    large makes them far from uniform, as a differential test wants. ``biases``: random convolution biases
    (Leela Zero folds them into the batch-norm means) instead of zeros.
    """
    rng = np.random.default_rng(seed)

    def conv(inputs: int, outputs: int, kernel: int) -> list[str]:
        scale = (2.0 / (inputs * kernel * kernel)) ** 0.5
        bias = rng.normal(0, 0.1, outputs) if biases else np.zeros(outputs)
        return [_line(rng.normal(0, scale, (outputs, inputs, kernel, kernel))), _line(bias),
                _line(rng.normal(0, 0.1, outputs)), _line(rng.uniform(0.5, 1.5, outputs))]

    def dense(inputs: int, outputs: int, gain: float = 1.0) -> list[str]:
        weights = rng.normal(0, gain * (1.0 / inputs) ** 0.5, (outputs, inputs))
        return [_line(weights), _line(rng.normal(0, 0.1 * gain, outputs) if biases else np.zeros(outputs))]

    lines = [str(version), *conv(_INPUT_PLANES, filters, 3)]
    for _ in range(blocks):
        lines += conv(filters, filters, 3) + conv(filters, filters, 3)
    lines += conv(filters, 2, 1) + dense(2 * _BOARD_POINTS, _BOARD_POINTS + 1, gain=output_gain)
    lines += conv(filters, 1, 1) + dense(_BOARD_POINTS, 256) + dense(256, 1, gain=output_gain)
    path.write_text("\n".join(lines) + "\n")


def find_leelaz() -> str:
    found = shutil.which("leelaz") or shutil.which("leelaz", path="/usr/lib/leelaz/bin:/usr/games")
    if found is None:
        raise BenchError("--peer leela-zero needs Leela Zero: apt-get install leela-zero")
    return found


def peer_weights(model_path: str | None, blocks: int, filters: int, folder: Path) -> tuple[Path, str]:
    """The weights Leela Zero plays and how to name them: the Leela Zero weights given as ``--model``, the
    model given exported to its format, or a random network of ``blocks`` x ``filters`` (written in ``folder``)."""
    from engine.nn.leela import is_leela_zero, write_leela
    from engine.nn.model_file import ModelFormatError, load_model

    if model_path is None:
        weights = folder / f"random-b{blocks}c{filters}.txt"
        write_random_leelaz_weights(weights, blocks, filters)
        return weights, f"random b{blocks}c{filters}"
    if is_leela_zero(model_path):
        return Path(model_path), "the same weights file"
    try:
        return write_leela(folder / "exported.txt", load_model(model_path)), "the same network, exported"
    except ModelFormatError as error:
        raise BenchError(f"--peer leela-zero: {error}") from error


def measure_leelaz(weights: Path, visits: int, moves: int, threads: int = 2) -> dict:
    """Median visits/s of Leela Zero's genmove on 19x19 with the network in ``weights``."""
    binary = find_leelaz()
    commands = ["boardsize 19", "clear_board", "komi 7.5"]
    commands += [f"genmove {'bw'[i % 2]}" for i in range(moves)] + ["quit"]
    completed = subprocess.run(
        [binary, "--gtp", "--cpu-only", "--noponder", "-t", str(threads), "-v", str(visits), "-r", "0",
         "-w", str(weights)], input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=3600)
    rates = [float(m) for m in re.findall(r"playouts, (\d+(?:\.\d+)?) n/s", completed.stderr)]
    if not rates:
        raise BenchError(f"Leela Zero printed no search rates:\n{completed.stderr[-2000:]}")
    return {"name": "leela-zero", "threads": threads, "visits_per_s": statistics.median(rates),
            "visits_per_s_runs": rates}
