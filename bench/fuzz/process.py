"""A front end's real process under a fuzzed script: deaths, hangs and the verdict on everything it wrote."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.fuzz.script import MAX_PROBLEMS, FrontEnd, Script, Verdict

__all__ = ["ProcessReport", "fuzz_process", "engine_argv"]

_SOURCE_ROOT = Path(__file__).resolve().parents[2]   # the tree this module runs from, so the process runs it too


def engine_argv(command: str, *options: str) -> list[str]:
    """The command line of ``engine COMMAND OPTIONS`` run by this interpreter from this source tree."""
    return [sys.executable, "-c", "from engine.cli import main; main()", command, *options]


@dataclass
class ProcessReport:
    """One front end's process under a fuzzed script. ``deaths``: processes that ended before answering
    everything (a failure status, or answers lost), each followed by a fresh process from the line after the
    one that killed it (``killers``); ``hangs``: processes killed after ``stall`` seconds without output."""

    front_end: str
    fuzzed_lines: int
    commands: int = 0
    unanswered: int = 0
    problems: int = 0
    internal_errors: int = 0
    deaths: int = 0
    hangs: int = 0
    final_ok: bool = False
    seconds: float = 0.0
    killers: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)


def fuzz_process(argv: Sequence[str], front_end: FrontEnd, script: Script, stall: float = 60.0) -> ProcessReport:
    """Send ``script`` to a process started with ``argv`` (stdin from a file, as a pipe would deliver it) and
    check everything it answers."""
    report = ProcessReport(front_end.name, len(script.pairs))
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(_SOURCE_ROOT),
                                                                     os.environ.get("PYTHONPATH")])))
    while True:
        with tempfile.TemporaryDirectory(prefix="engine-fuzz-") as folder:
            stdin, stdout, stderr = (Path(folder, name) for name in ("stdin", "stdout", "stderr"))
            stdin.write_bytes(script.data())
            status = _run(argv, stdin, stdout, stderr, stall, env)
            with open(stdout, "rb") as output:
                verdict = front_end.check(script, output)
            if status == 0 and not verdict.unanswered:
                _add(report, verdict)
                report.final_ok = verdict.final_ok
                break
            report.deaths += status is not None
            report.hangs += status is None
            report.examples.append(f"exit status {status}: " + stderr.read_bytes()[-1500:].decode("utf-8", "replace"))
            killer = verdict.probes
            with open(stdout, "rb") as output:
                _add(report, front_end.check(Script(script.pairs[:killer + 1], (), script.first), output))
        if killer >= len(script.pairs) - 1:
            break
        report.killers.append(repr(script.pairs[killer][0][:200]))
        script = script.resumed(script.first + killer + 1)
    report.seconds = time.perf_counter() - started
    return report


def _add(report: ProcessReport, verdict: Verdict) -> None:
    report.commands += verdict.commands
    report.unanswered += verdict.unanswered
    report.problems += verdict.problem_count
    report.internal_errors += verdict.internal_errors
    report.examples += verdict.problems[:max(0, MAX_PROBLEMS - len(report.examples))]


def _run(argv: Sequence[str], stdin: Path, stdout: Path, stderr: Path, stall: float,
         env: dict[str, str]) -> int | None:
    """The process's exit status; None when it wrote nothing for ``stall`` seconds and was killed."""
    with open(stdin, "rb") as source, open(stdout, "wb") as sink, open(stderr, "wb") as errors:
        process = subprocess.Popen(list(argv), stdin=source, stdout=sink, stderr=errors, env=env)
        size, last = -1, time.monotonic()
        while True:
            try:
                return process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
            now = stdout.stat().st_size
            if now != size:
                size, last = now, time.monotonic()
            elif time.monotonic() - last > stall:
                process.kill()
                process.wait()
                return None
