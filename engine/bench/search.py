"""``engine bench search``: tree search speed with the network taken out (a uniform evaluator).

Each timed unit is a complete search of ``--visits`` visits from the same
position (the empty board, or after ``--moves`` random opening moves), in one
reused tree, so the figure is the search's own cost per simulation: selection
with virtual loss, replaying the path, legal moves and expansion, backup, and
the Python round trip per leaf batch.
"""

from __future__ import annotations

import time

import click

from engine.bench.timing import measure_rate, report

__all__ = ["search_command"]


@click.command("search")
@click.option("--game", type=click.Choice(["go", "gomoku"]), default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True)
@click.option("--visits", type=click.IntRange(2), default=800, show_default=True, help="Visits per search.")
@click.option("--batch", type=click.IntRange(1), default=16, show_default=True, help="Leaves per evaluator call.")
@click.option("--moves", type=click.IntRange(0), default=0, show_default=True,
              help="Random opening moves played before the searched position.")
@click.option("--seconds", type=click.FloatRange(0.01), default=1.0, show_default=True, help="Length of each run.")
@click.option("--runs", type=click.IntRange(1), default=5, show_default=True, help="Runs; the median is reported.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def search_command(game: str, size: int, visits: int, batch: int, moves: int, seconds: float, runs: int,
                   seed: int, as_json: bool) -> None:
    """Simulations/s of the tree search with a uniform evaluator."""
    import numpy as np

    from engine.core.game import Game
    from engine.core.rules import Rules
    from engine.search.evaluator import UniformEvaluator
    from engine.search.mcts import Search, SearchConfig

    rules = Rules.go(size) if game == "go" else Rules.gomoku(size)
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
    result = {"game": game, "size": size, "visits": visits, "batch": batch, "moves": moves, "runs": runs,
              "sims_per_s": rate.median, "sims_per_s_runs": rate.runs, "warm_up_s": warm_up}
    report(result, as_json, f"{game} {size}x{size}, {visits} visits, batches of {batch}: "
                            f"{rate.median:,.0f} simulations/s (median of {runs} runs of {seconds:g} s)")
