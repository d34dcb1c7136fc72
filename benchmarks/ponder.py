"""Pondering (``engine gtp --ponder``): how quickly the engine answers while it ponders, and what the
pondering adds to the next genmove's tree.

    python benchmarks/ponder.py [--seconds 5] [--commands 20] [--size 9] [-- ENGINE ARGS...]

For pondering on and off it runs ``engine gtp`` (the bundled network unless engine arguments say
otherwise): ``genmove b``; then waits ``--seconds`` (the opponent thinking) and asks ``reg_genmove w``
for the reply the engine expects, plays it for white, asks ``gogui-value`` (a search with the move's
visit limit, which counts the visits already in the tree: its answer names the tree's visits, those the
next genmove starts from) and sends ``genmove b``. With pondering on it then sends
``--commands`` commands (``time_left``), one every 0.3 s while the engine ponders, and prints the median
and the largest time from writing a command to reading its answer.
"""

from __future__ import annotations

import argparse
import queue
import re
import statistics
import subprocess
import sys
import threading
import time


class Engine:
    """A GTP engine over pipes; ``ask`` returns the answer's text and the seconds it took."""

    def __init__(self, command: list[str]) -> None:
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._lines.put(line.rstrip("\n"))

    def ask(self, command: str) -> tuple[str, float]:
        assert self._process.stdin is not None
        started = time.perf_counter()
        self._process.stdin.write(command + "\n")
        self._process.stdin.flush()
        lines = [self._lines.get(timeout=600)]
        elapsed = time.perf_counter() - started
        while lines[-1] != "":
            lines.append(self._lines.get(timeout=600))
        if not lines[0].startswith("="):
            raise RuntimeError(f"{command!r}: {lines[0]}")
        return "\n".join(lines).strip()[1:].strip(), elapsed

    def close(self) -> None:
        self.ask("quit")
        self._process.wait(60)


def _tree_visits(answer: str) -> int:
    """The visits ``gogui-value`` names: ``black wins 53.1% (800 visits)``."""
    match = re.search(r"\((\d+) visits\)", answer)
    if match is None:
        raise RuntimeError(f"no visit count in {answer!r}")
    return int(match.group(1))


def measure(engine_args: list[str], ponder: bool, seconds: float, commands: int, size: int) -> dict[str, float]:
    engine = Engine([sys.executable, "-c", "from engine.cli import main; main()", "gtp", "--size", str(size),
                     "--ponder" if ponder else "--no-ponder", *engine_args])
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
    result = {"tree_visits": float(_tree_visits(answer))}
    if latencies:
        result.update(latency_median_s=statistics.median(latencies), latency_max_s=max(latencies))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--commands", type=int, default=20)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("engine_args", nargs="*", help="more engine gtp options, after --")
    args = parser.parse_args()
    for ponder in (False, True):
        result = measure(args.engine_args, ponder, args.seconds, args.commands, args.size)
        text = (f"ponder {'on ' if ponder else 'off'}: genmove after {args.seconds:g} s: "
                f"{result['tree_visits']:,.0f} visits")
        if ponder:
            text += (f" in its tree; answers while pondering: median {1000 * result['latency_median_s']:.0f} ms, "
                     f"largest {1000 * result['latency_max_s']:.0f} ms over {args.commands} commands")
        print(text)


if __name__ == "__main__":
    main()
