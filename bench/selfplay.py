"""Self-play throughput (``engine bench selfplay``), timed with a network as ``engine selfplay`` plays.

K games run at once with Playout Cap Randomization, their leaves sharing one
network call per step, for ``seconds`` after a warm-up (compiling, kernel
loading). ``positions_per_s`` counts moves played (full and cheap searches);
``simulations_per_s`` the search simulations. Few games finish inside a short
window (and those are the short ones), so ``games_per_hour`` is positions/s
times 3600 over a mean game length taken over the finished games and the
unfinished ones at the length they reached: a lower bound on the length, so
games/hour is an upper bound that tightens with ``seconds``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["measure_selfplay"]

WARM_UP_SECONDS = 3.0
"""Self-play before the timed window: kernels load and the network compiles."""


def measure_selfplay(model_path: str | None, blocks: int, filters: int, encoder: str | None, game: str, size: int,
                     rules_text: str | None, readouts: int, full_search_share: float, parallel_games: int,
                     batch_size: int, seconds: float, options: Any, seed: int, ray_target: str | None = None,
                     layout: Any = None) -> dict[str, Any]:
    """Self-play positions/s, simulations/s and games/hour with the model (or a random ``blocks`` x ``filters``
    network) run with ``options`` (EvaluatorOptions; torch's threads are the caller's).

    With ``ray_target`` the same self-play runs in the Ray actors of ``layout`` (a
    :class:`~training.cluster.pool.Layout`), all timed at once, each with its own network or sending its leaves
    to an inference actor; positions/s is their sum.
    """
    import torch

    from engine import load_evaluator, read_info
    from training.models import BootstrapConfig, bootstrap, model_rules
    from training.selfplay import timed_selfplay
    from training.selfplay_config import SelfPlayConfig, opening_moves
    from training.settings import replace_paths

    with tempfile.TemporaryDirectory(prefix="bench-selfplay-") as scratch:
        if model_path is None:
            model_path = str(bootstrap(Path(scratch) / "random.safetensors",
                                       BootstrapConfig(game, size, encoder, blocks, filters, seed=seed)))
        info = read_info(model_path)
        rules = model_rules(info, rules_text, info.board_size or size)
        config = replace_paths(SelfPlayConfig(), {
            "player.visits": readouts, "player.search.batch_size": batch_size,
            "player.temperature_moves": opening_moves(rules.size), "full_search_share": full_search_share,
            "parallel_games": parallel_games, "seed": seed})
        started = time.perf_counter()
        if ray_target is None:
            evaluator = load_evaluator(rules, model_path, options)
            evaluator.warm_up(rules.size)  # type: ignore[attr-defined]
            summary = timed_selfplay(evaluator, rules, info.name, config, WARM_UP_SECONDS, seconds,
                                     evaluator.clear_cache)  # type: ignore[attr-defined]
            ran: dict[str, Any] = {"device": str(evaluator.device), "dtype": evaluator.dtype_name,  # type: ignore
                                   "runtime": evaluator.runtime, "threads": torch.get_num_threads()}  # type: ignore
        else:
            from training.cluster.connect import connected
            from training.cluster.selfplay import bench_on_ray

            with connected(ray_target):
                summary, ran = bench_on_ray(model_path, rules, config, options, layout, WARM_UP_SECONDS, seconds)
            ran["ray"] = ray_target
        warm_up = time.perf_counter() - started - summary.seconds
    mean_length = (summary.moves + summary.in_flight_moves) / max(summary.games + summary.in_flight_games, 1)
    positions_per_s = summary.moves_played / summary.seconds
    return {"net": info.config.name, "game": info.game, "size": rules.size, "readouts": readouts,
            "cheap_readouts": config.cheap, "full_search_share": config.full_search_share,
            "parallel_games": parallel_games, "batch": batch_size, **ran, "seconds": summary.seconds,
            "positions_per_s": positions_per_s, "simulations_per_s": summary.simulations / summary.seconds,
            "evaluator_calls_per_s": summary.evaluator_calls / summary.seconds, "games_finished": summary.games,
            "games_in_flight": summary.in_flight_games, "mean_game_length": mean_length,
            "games_per_hour": positions_per_s * 3600 / max(mean_length, 1.0), "warm_up_s": warm_up}
