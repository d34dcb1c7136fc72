"""``engine bench ponder``: how quickly ``engine gtp --ponder`` answers while it ponders, and what pondering adds to
the next genmove's tree.

With pondering off and on, ``engine gtp`` (the bundled network unless engine
arguments say otherwise) plays ``genmove b``; then, after ``seconds`` (the
opponent thinking), ``reg_genmove w`` names the reply the engine expects, which
is played for white; ``gogui-value`` (a search with the move's visit limit,
which counts the visits already in the tree) names the tree's visits, those the
next genmove starts from. With pondering on, ``commands`` commands
(``time_left``), one every 0.3 s while the engine ponders, give the median and
the largest time from writing a command to reading its answer.
"""

from __future__ import annotations

import re
import statistics
import time
from typing import Any

from bench.gtp_pipe import GtpPipe
from bench.timing import BenchError

__all__ = ["measure_ponder"]


def _tree_visits(answer: str) -> int:
    """The visits ``gogui-value`` names: ``black wins 53.1% (800 visits)``."""
    match = re.search(r"\((\d+) visits\)", answer)
    if match is None:
        raise BenchError(f"no visit count in gogui-value's answer {answer!r}")
    return int(match.group(1))


def _one(engine_args: list[str], ponder: bool, seconds: float, commands: int, size: int) -> dict[str, Any]:
    engine = GtpPipe(["--size", str(size), "--ponder" if ponder else "--no-ponder", *engine_args])
    engine.ask("genmove b")
    time.sleep(seconds)
    expected, _ = engine.ask("reg_genmove w")
    latencies = []
    if ponder:
        for _ in range(commands):
            time.sleep(0.3)
            latencies.append(engine.ask("time_left b 600 0")[1])
    engine.ask(f"play w {expected}")
    answer, _ = engine.ask("gogui-value")
    engine.ask("genmove b")
    engine.close()
    result: dict[str, Any] = {"ponder": ponder, "tree_visits": _tree_visits(answer)}
    if latencies:
        result.update(latency_median_s=statistics.median(latencies), latency_max_s=max(latencies))
    return result


def measure_ponder(engine_args: list[str], seconds: float, commands: int, size: int) -> list[dict[str, Any]]:
    """The next genmove's tree visits with pondering off and on, and the answers' latency while pondering."""
    return [_one(engine_args, ponder, seconds, commands, size) for ponder in (False, True)]
