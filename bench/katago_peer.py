"""KataGo as a timing peer for ``engine bench genmove --peer katago``: the same genmoves on the same model file.

KataGo plays the KataGo model file given as ``--model`` by GTP, with a config
written for the run (:func:`katago_settings`) so that both engines do the same
work per visit:

- ``numSearchThreads = 1``: one search thread, as our search is one thread
  (KataGo then evaluates one leaf per network call; ours gathers ``--batch``
  leaves a call under virtual loss);
- ``numEigenThreadsPerModel``: the CPU threads our network runs on (torch's);
- ``maxVisits``: the visits of each genmove, reused ones included (both keep
  their tree between moves), with no time limit and no pondering;
- ``nnCacheSizePowerOfTwo``: our evaluator's cache (2 ** 15 entries), so that
  both reuse evaluations of transpositions alike;
- ``nnRandomize``: our random-symmetry setting (off in the benchmark: both
  evaluate every position as it stands);
- ``rootSymmetryPruning = false``: our search expands every legal move at the
  root, even on a symmetric board;
- the rules' ko rule, scoring and suicide (``koRule``, ``scoringRule``,
  ``multiStoneSuicideLegal``), the komi by GTP; no resignation;
- ``searchRandSeed``: the run's seed; ``logSearchInfo`` to a log file.

After each genmove KataGo logs ``Time taken: S`` (the genmove's seconds) and
``New playouts: N`` (visits added to the tree); ``N / S`` is the rate our
genmove benchmark reports. A first genmove warms KataGo up, then ``clear_board``
and ``clear_cache`` start the timed game afresh, as ours clears its cache.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Any

from bench.timing import BenchError
from engine.core.rules import Rules

__all__ = ["find_katago", "katago_settings", "config_text", "parse_genmove_log", "measure_katago"]

KATAGO_TIMEOUT = 3600.0
"""Seconds the whole KataGo run may take."""

_GENMOVE_LOG = re.compile(r"Time taken: (\S+)\s+Root visits: \d+\s+New playouts: (\d+)")
_VERSION = re.compile(r"KataGo v(\S+)")


def find_katago(binary: str | None = None) -> str:
    """The KataGo binary: ``binary``, else ``$KATAGO``, else ``katago`` on the PATH."""
    given = binary or os.environ.get("KATAGO")
    found = shutil.which(given) if given else shutil.which("katago")
    if found is None:
        where = f"{given} is not an executable file" if given else "no katago on the PATH"
        raise BenchError(f"--peer katago needs KataGo ({where}): give --peer-binary PATH or set KATAGO")
    return found


def katago_settings(rules: Rules, visits: int, threads: int, cache_size: int, random_symmetry: bool, seed: int,
                    log_file: Path) -> dict[str, str]:
    """KataGo's GTP config for the comparison (the module docstring says why each), as key -> value text.
    ``cache_size``: our evaluator's cache entries, a power of two."""
    if rules.game != "go":
        raise ValueError(f"KataGo plays Go, not {rules.game}")
    if cache_size < 1 or cache_size & (cache_size - 1):
        raise ValueError(f"KataGo's cache holds a power of two of entries, not {cache_size}")
    return {
        "logFile": str(log_file), "logToStderr": "false", "logAllGTPCommunication": "false",
        "logSearchInfo": "true", "logSearchInfoForChosenMove": "false",
        "koRule": rules.ko.upper(), "scoringRule": rules.scoring.upper(),
        "multiStoneSuicideLegal": _flag(rules.suicide),
        "allowResignation": "false", "resignThreshold": "-1.0",
        "maxVisits": str(visits), "ponderingEnabled": "false",
        "numSearchThreads": "1", "numEigenThreadsPerModel": str(threads),
        "nnCacheSizePowerOfTwo": str(cache_size.bit_length() - 1), "nnRandomize": _flag(random_symmetry),
        "rootSymmetryPruning": "false", "searchRandSeed": str(seed),
    }


def _flag(value: bool) -> str:
    return "true" if value else "false"


def config_text(settings: dict[str, str]) -> str:
    """``settings`` as a KataGo config file: one ``key = value`` a line."""
    return "".join(f"{key} = {value}\n" for key, value in settings.items())


def parse_genmove_log(text: str) -> list[tuple[int, float]]:
    """``(new playouts, seconds)`` of each genmove KataGo logged (``logSearchInfo``), in order."""
    return [(int(playouts), float(seconds)) for seconds, playouts in _GENMOVE_LOG.findall(text)]


def measure_katago(binary: str, model_path: str, rules: Rules, visits: int, moves: int, threads: int,
                   cache_size: int, random_symmetry: bool, seed: int, folder: Path) -> dict[str, Any]:
    """Median visits/s of KataGo's genmove on ``rules`` with the model file at ``model_path``: a warm-up genmove,
    then ``moves`` genmoves from the empty board, alternately black and white. The config and log are written
    in ``folder``."""
    settings = katago_settings(rules, visits, threads, cache_size, random_symmetry, seed, folder / "katago.log")
    config = folder / "katago.cfg"
    config.write_text(config_text(settings))
    setup = [f"boardsize {rules.size}", "clear_board", f"komi {rules.komi:g}"]
    commands = [*setup, "genmove b", *setup, "clear_cache"]
    commands += [f"genmove {'bw'[i % 2]}" for i in range(moves)] + ["quit"]
    try:
        completed = subprocess.run([binary, "gtp", "-config", str(config), "-model", str(model_path)],
                                   input="\n".join(commands) + "\n", capture_output=True, text=True,
                                   timeout=KATAGO_TIMEOUT)
    except subprocess.TimeoutExpired as error:
        raise BenchError(f"KataGo took over {KATAGO_TIMEOUT:g} s") from error
    refused = [line for line in completed.stdout.splitlines() if line.startswith("?")]
    log = settings["logFile"]
    logged = Path(log).read_text() if Path(log).exists() else ""
    if completed.returncode != 0 or refused:
        raise BenchError(f"KataGo failed (exit {completed.returncode}): {' '.join(refused)}\n"
                         f"{completed.stderr[-2000:]}")
    searches = parse_genmove_log(logged)[1:]   # the first is the warm-up
    if len(searches) != moves:
        raise BenchError(f"KataGo logged {len(searches)} timed genmoves, not {moves}:\n{logged[-2000:]}")
    rates = [playouts / seconds for playouts, seconds in searches]
    version = _VERSION.search(completed.stderr + logged)
    return {"name": "katago", "version": version.group(1) if version else None, "search_threads": 1,
            "threads": threads, "visits_per_s": statistics.median(rates), "visits_per_s_runs": rates,
            "config": {key: value for key, value in settings.items() if key != "logFile"}}
