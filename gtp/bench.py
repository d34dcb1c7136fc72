"""``engine bench fuzz``: each front end's real process against a hostile client (:mod:`gtp.fuzz`).

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
from dataclasses import asdict
from pathlib import Path

import click

from engine.bench.timing import report

__all__ = ["fuzz_command"]

FRONT_ENDS = ("analysis", "gtp", "gomocup")


@click.command("fuzz")
@click.option("--front-end", "front_ends", type=click.Choice(FRONT_ENDS), multiple=True, default=FRONT_ENDS,
              show_default=True, help="Front ends to fuzz (repeat the option).")
@click.option("--lines", type=click.IntRange(1), default=100_000, show_default=True,
              help="Fuzzed lines per front end (each followed by a probe).")
@click.option("--visits", type=click.IntRange(1), default=8, show_default=True, help="Visits per search.")
@click.option("--stall", type=click.FloatRange(min=1), default=120.0, show_default=True,
              help="Seconds without output after which a process counts as hung and is killed.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def fuzz_command(front_ends: tuple[str, ...], lines: int, visits: int, stall: float, seed: int,
                 as_json: bool) -> None:
    """Deaths, hangs and unanswered commands of each front end's process under fuzzed input."""
    from gtp.commands import build_registry
    from gtp.fuzz import AnalysisFuzz, FrontEnd, GomocupFuzz, GtpFuzz, engine_argv, fuzz_process, make_script

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
            click.echo(f"{name}: {lines} fuzzed lines ...", err=True)
            outcome = fuzz_process(argv, front_end, script, stall)
        results.append(asdict(outcome))
        text.append(f"{name}: {outcome.fuzzed_lines} fuzzed lines, {outcome.commands} commands in "
                    f"{outcome.seconds:.0f} s: {outcome.deaths} deaths, {outcome.hangs} hangs, {outcome.unanswered} "
                    f"unanswered, {outcome.problems} malformed or extra answers, {outcome.internal_errors} internal "
                    f"errors; final commands {'right' if outcome.final_ok else 'WRONG'}"
                    + "".join(f"\n  killed by {line}" for line in outcome.killers)
                    + "".join(f"\n  {example[:300]}" for example in outcome.examples[:5]))
    report({"lines": lines, "visits": visits, "seed": seed, "results": results}, as_json, "\n".join(text))
