"""Batch analysis throughput of ``engine analysis`` (``engine bench analysis``): a collection of 9x9 positions,
searched with shared network batches against one position at a time.

The positions are the ends of random legal games of 10 to 40 moves (seed 7).
Each run answers the whole collection, one query per position read before the
first search, through the analysis session with ``numAnalysisThreads`` set to
each setting compared (1: one position at a time), on one evaluator whose cache
is cleared before every run; the runs alternate between the settings. The
figures are each setting's median positions/s, and the network calls and mean
batch of its last run.
"""

from __future__ import annotations

import io
import json
import statistics
import time
from dataclasses import replace
from typing import Any

import numpy as np

from engine import Evaluation, Game, Rules, SearchConfig, action_to_gtp, bundled_model, load_evaluator
from gtp.kata_config import AnalysisConfig
from gtp.kata_session import AnalysisSession

__all__ = ["measure_analysis", "random_queries"]


class _Counted:
    """The evaluator, counting its calls and the positions it evaluated."""

    def __init__(self, evaluator: Any) -> None:
        self.evaluator, self.calls, self.positions = evaluator, 0, 0

    def evaluate(self, positions: Any, legal: np.ndarray | None = None) -> Evaluation:
        self.calls += 1
        self.positions += len(positions)
        return self.evaluator.evaluate(positions, legal)


def random_queries(count: int, seed: int = 7) -> bytes:
    """``count`` analysis queries (JSON lines) for the ends of random legal 9x9 games of 10 to 40 moves."""
    rng = np.random.default_rng(seed)
    lines = []
    for index in range(count):
        game = Game(Rules.go(9))
        moves = []
        for _ in range(int(rng.integers(10, 41))):
            legal = np.flatnonzero(game.legal_mask()[:-1])
            if not legal.size:
                break
            action = int(rng.choice(legal))
            moves.append([game.to_play.letter, action_to_gtp(action, 9)])
            game.play(action)
        query = {"id": f"p{index}", "moves": moves, "rules": "chinese", "komi": 7, "boardXSize": 9, "boardYSize": 9}
        lines.append(json.dumps(query).encode() + b"\n")
    return b"".join(lines)


def _answer_all(lines: bytes, config: AnalysisConfig, evaluator: _Counted) -> float:
    """Seconds to answer every query in ``lines``."""
    getattr(evaluator.evaluator, "clear_cache", lambda: None)()
    evaluator.calls = evaluator.positions = 0
    out = io.BytesIO()
    started = time.perf_counter()
    AnalysisSession(config, lambda rules: evaluator, io.BytesIO(lines), out).run(read_ahead=True)
    seconds = time.perf_counter() - started
    errors = [reply for reply in map(json.loads, out.getvalue().splitlines()) if "error" in reply]
    if errors:
        raise ValueError(f"the analysis session refused a query: {errors[0]}")
    return seconds


def measure_analysis(positions: int, visits: int, settings: list[int], batch: int, runs: int, model: str | None,
                     runtime: str) -> dict[str, Any]:
    """Positions/s of the analysis session for each ``numAnalysisThreads`` setting (medians of ``runs``), on the
    model (None: the bundled Go network); torch's threads are the caller's."""
    model = model or str(bundled_model(Rules.go(9)))
    base = AnalysisConfig(visits=visits, search=SearchConfig(batch_size=batch))
    evaluator = _Counted(load_evaluator(Rules.go(9), model, replace(base.evaluator, runtime=runtime)))
    lines = random_queries(positions)
    _answer_all(lines[:lines.index(b"\n") + 1], base, evaluator)  # warm-up: the kernels, the first network call
    times: dict[int, list[float]] = {threads: [] for threads in settings}
    batches: dict[int, tuple[int, float]] = {}
    for _ in range(runs):
        for threads in settings:
            times[threads].append(_answer_all(lines, replace(base, analysis_threads=threads), evaluator))
            batches[threads] = (evaluator.calls, evaluator.positions / max(evaluator.calls, 1))
    return {"model": model, "positions": positions, "visits": visits, "batch": batch, "runs": runs,
            "settings": {str(threads): {"positions_per_s": positions / statistics.median(times[threads]),
                                        "seconds": times[threads], "network_calls": batches[threads][0],
                                        "mean_batch": batches[threads][1]} for threads in settings}}
