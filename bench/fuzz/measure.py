"""Each front end's real process against a hostile client (``engine bench fuzz``).

``engine analysis``, ``engine gtp`` and ``engine gomocup`` each read a stream
of fuzzed lines, each followed by a probe, then valid commands whose answers
must be right; every answer is checked. The engines play without a network
(``--model uniform``) and search a few visits, so the stream costs protocol
handling rather than evaluation. The report counts deaths (a process that
ended before answering everything; a fresh one then carries on after the line
that killed it), hangs, commands left unanswered, malformed or extra answers,
and internal errors (failures a guard caught: each one a bug).
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

__all__ = ["FRONT_ENDS", "measure_fuzz"]

FRONT_ENDS = ("analysis", "gtp", "gomocup")


def measure_fuzz(front_ends: tuple[str, ...], lines: int, visits: int, stall: float, seed: int,
                 note: Callable[[str], None] = lambda _text: None) -> tuple[list[dict[str, Any]], str]:
    """Fuzz each of ``front_ends``' processes with ``lines`` lines; the outcomes (one dict each) and a text
    report. ``note`` is told when each front end starts."""
    from bench.fuzz import AnalysisFuzz, FrontEnd, GomocupFuzz, GtpFuzz, engine_argv, fuzz_process, make_script
    from gtp.commands import build_registry

    results, text = [], []
    for name in front_ends:
        with tempfile.TemporaryDirectory(prefix="engine-fuzz-scratch-") as scratch:
            front_end: FrontEnd
            if name == "analysis":
                front_end = AnalysisFuzz()
                options = ["-override-config", f"maxVisits={visits},numSearchThreads=4"]
            else:
                front_end = GtpFuzz(build_registry().names(), Path(scratch)) if name == "gtp" else GomocupFuzz()
                options = ["--visits", str(visits), "--batch", "4"]
            argv = engine_argv(name, "--model", "uniform", "--seed", str(seed), "--log-level", "error", *options)
            script = make_script(front_end, random.Random(seed), lines)
            note(f"{name}: {lines} fuzzed lines ...")
            outcome = fuzz_process(argv, front_end, script, stall)
        results.append(asdict(outcome))
        text.append(f"{name}: {outcome.fuzzed_lines} fuzzed lines, {outcome.commands} commands in "
                    f"{outcome.seconds:.0f} s: {outcome.deaths} deaths, {outcome.hangs} hangs, {outcome.unanswered} "
                    f"unanswered, {outcome.problems} malformed or extra answers, {outcome.internal_errors} internal "
                    f"errors; final commands {'right' if outcome.final_ok else 'WRONG'}"
                    + "".join(f"\n  killed by {line}" for line in outcome.killers)
                    + "".join(f"\n  {example[:300]}" for example in outcome.examples[:5]))
    return results, "\n".join(text)
