"""``engine bench search``: tree search speed with the network taken out (a uniform evaluator).

Each timed unit is a complete search of ``visits`` visits from the same
position (the empty board, or after ``moves`` random opening moves), in one
reused tree, so the figure is the search's own cost per simulation: selection
with virtual loss, replaying the path, legal moves and expansion, backup, and
the Python round trip per leaf batch.
"""

from __future__ import annotations

import time
from typing import Any

from bench.timing import measure_rate

__all__ = ["measure_search"]


def measure_search(game: str, size: int, visits: int, batch: int, moves: int, seconds: float, runs: int,
                   seed: int) -> dict[str, Any]:
    """Simulations/s of whole searches with a uniform evaluator (median of ``runs`` runs of ``seconds``)."""
    import numpy as np

    from engine.core.game import Game
    from engine.core.rules import Rules
    from engine.search.config import SearchConfig
    from engine.search.evaluator import UniformEvaluator
    from engine.search.mcts import Search

    rules = Rules.default(game, size)
    position = Game(rules)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = np.flatnonzero(position.legal_mask()[:-1] if game == "go" else position.legal_mask())
        if position.is_over or legal.size == 0:
            break
        position.play(int(rng.choice(legal)))
    search = Search(position, UniformEvaluator(), SearchConfig(batch_size=batch), seed=seed)

    def one_search() -> float:
        search.reset()
        return float(search.run(visits).simulations)

    started = time.perf_counter()
    one_search()
    warm_up = time.perf_counter() - started
    rate = measure_rate(one_search, seconds, runs)
    return {"game": game, "size": size, "visits": visits, "batch": batch, "moves": moves, "runs": runs,
            "seconds": seconds, "sims_per_s": rate.median, "sims_per_s_runs": rate.runs, "warm_up_s": warm_up}
