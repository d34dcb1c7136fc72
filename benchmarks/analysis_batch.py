"""Batch analysis throughput of ``engine analysis``: a collection of 9x9 positions, searched with shared network
batches against one position at a time.

    python benchmarks/analysis_batch.py [--positions 100] [--visits 100] [--threads-list 1,16] [--runs 3]
                                        [--model PATH|bundled] [--torch-threads 1] [--json]

The positions are the ends of random legal games of 10 to 40 moves (seed 7). Each run answers the whole
collection, one query per position read before the first search, through the analysis session with
``numAnalysisThreads`` = each value of ``--threads-list`` (1: one position at a time), on one evaluator
whose cache is cleared before every run; the runs alternate between the settings. Prints the median
positions/s of each setting and the network calls and mean batch size of its last run.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time
from dataclasses import replace

import numpy as np

from engine import Game, Rules, SearchConfig, action_to_gtp, bundled_model, load_evaluator, set_cpu_threads
from gtp.kata_config import AnalysisConfig
from gtp.kata_session import AnalysisSession


class _Counted:
    """The evaluator, counting its calls and the positions it evaluated."""

    def __init__(self, evaluator: object) -> None:
        self.evaluator, self.calls, self.positions = evaluator, 0, 0

    def evaluate(self, positions, legal=None):  # type: ignore[no-untyped-def]
        self.calls += 1
        self.positions += len(positions)
        return self.evaluator.evaluate(positions, legal)  # type: ignore[attr-defined]


def positions(count: int, seed: int = 7) -> list[list[list[str]]]:
    """``count`` move lists of random legal 9x9 games (10 to 40 moves, no passes)."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        game = Game(Rules.go(9))
        moves = []
        for _ in range(int(rng.integers(10, 41))):
            legal = np.flatnonzero(game.legal_mask()[:-1])
            if not legal.size:
                break
            action = int(rng.choice(legal))
            moves.append([game.to_play.letter, action_to_gtp(action, 9)])
            game.play(action)
        games.append(moves)
    return games


def run(lines: bytes, config: AnalysisConfig, evaluator: _Counted) -> float:
    """Seconds to answer every query in ``lines``."""
    getattr(evaluator.evaluator, "clear_cache", lambda: None)()
    evaluator.calls = evaluator.positions = 0
    out = io.BytesIO()
    started = time.perf_counter()
    AnalysisSession(config, lambda rules: evaluator, io.BytesIO(lines), out).run(read_ahead=True)
    seconds = time.perf_counter() - started
    finals = [json.loads(line) for line in out.getvalue().splitlines()]
    assert all("error" not in reply for reply in finals), finals[:3]
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--visits", type=int, default=100)
    parser.add_argument("--threads-list", default="1,16", help="numAnalysisThreads settings to compare")
    parser.add_argument("--batch", type=int, default=8, help="numSearchThreads: leaves a search gathers per step")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", default="bundled")
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--runtime", default="eager", choices=["eager", "compile"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    set_cpu_threads(args.torch_threads)
    model = bundled_model("go") if args.model == "bundled" else args.model
    base = AnalysisConfig(visits=args.visits, search=SearchConfig(batch_size=args.batch))
    evaluator = _Counted(load_evaluator(Rules.go(9), model, replace(base.evaluator, runtime=args.runtime)))
    lines = b"".join(json.dumps({"id": f"p{i}", "moves": moves, "rules": "chinese", "komi": 7, "boardXSize": 9,
                                 "boardYSize": 9}).encode() + b"\n"
                     for i, moves in enumerate(positions(args.positions)))
    settings = [int(t) for t in args.threads_list.split(",")]
    run(lines[:lines.index(b"\n") + 1], base, evaluator)  # warm-up: compile the kernels, first network call
    times: dict[int, list[float]] = {t: [] for t in settings}
    batches: dict[int, tuple[int, float]] = {}
    for _ in range(args.runs):
        for threads in settings:
            times[threads].append(run(lines, replace(base, analysis_threads=threads), evaluator))
            batches[threads] = (evaluator.calls, evaluator.positions / max(evaluator.calls, 1))
    report = {str(t): {"positions_per_s": round(args.positions / statistics.median(times[t]), 2),
                       "seconds": [round(s, 2) for s in times[t]], "network_calls": batches[t][0],
                       "mean_batch": round(batches[t][1], 1)} for t in settings}
    if args.json:
        print(json.dumps(report))
        return
    for threads, row in report.items():
        print(f"numAnalysisThreads {threads:>3}: {row['positions_per_s']:7.2f} positions/s (median of {args.runs}; "
              f"runs {row['seconds']} s), {row['network_calls']} network calls, mean batch {row['mean_batch']}")


if __name__ == "__main__":
    main()
