"""``engine bench selfplay``: self-play throughput with a network, as ``engine selfplay`` plays.

K games run at once with Playout Cap Randomization, their leaves sharing one
network call per step, for ``--seconds`` after a warm-up (compiling, kernel
loading). ``positions_per_s`` counts moves played (full and cheap searches);
``simulations_per_s`` the search simulations. Few games finish inside a short
window (and those are the short ones), so ``games_per_hour`` is positions/s
times 3600 over a mean game length taken over the finished games and the
unfinished ones at the length they reached: a lower bound on the length, so
games/hour is an upper bound that tightens with ``--seconds``.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from engine.bench.timing import network_options, report, runtime_options
from training.cli import ray_layout, ray_options

if TYPE_CHECKING:
    from engine import Evaluator, Rules
    from training.selfplay import SelfPlayConfig, SelfPlaySummary

__all__ = ["selfplay_bench_command", "timed_selfplay"]


@click.command("selfplay")
@network_options
@click.option("--encoder", default=None, help="Encoder of the random network [default: the game's].")
@click.option("--game", type=click.Choice(["go", "gomoku"]), default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=9, show_default=True)
@click.option("--rules", "rules_text", default=None, help="Rules string [default: chinese / freestyle k=5].")
@click.option("--readouts", type=click.IntRange(2), default=400, show_default=True)
@click.option("--full-search-pct", type=click.FloatRange(0, 100), default=25.0, show_default=True)
@click.option("--parallel-games", type=click.IntRange(1), default=16, show_default=True)
@click.option("--batch-size", type=click.IntRange(1), default=8, show_default=True, help="Leaves per game and step.")
@click.option("--seconds", type=click.FloatRange(1), default=60.0, show_default=True, help="Timed window.")
@runtime_options
@ray_options
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def selfplay_bench_command(model_path: str | None, blocks: int, filters: int, encoder: str | None, game: str,
                           size: int, rules_text: str | None, readouts: int, full_search_pct: float,
                           parallel_games: int, batch_size: int, seconds: float, device: str | None, dtype: str,
                           runtime: str, threads: int | None, ray_target: str | None, ray_actors: int | None,
                           ray_inference: str, seed: int, as_json: bool) -> None:
    """Self-play positions/s and games/hour with a network.

    With --ray the same self-play runs in Ray actors (--parallel-games each), all timed at once, each with its
    own network or sending its leaves to an inference actor (--inference); positions/s is their sum.
    """
    import torch

    from engine import EvaluatorOptions, load_evaluator, read_info, set_cpu_threads
    from training.models import BootstrapConfig, bootstrap, model_rules
    from training.selfplay import SelfPlayConfig, opening_moves
    from training.settings import replace_paths

    set_cpu_threads(threads)
    options = EvaluatorOptions(device=device, dtype=dtype, random_symmetry=True, runtime=runtime, seed=seed)
    with tempfile.TemporaryDirectory(prefix="bench-selfplay-") as scratch:
        if model_path is None:
            model_path = str(bootstrap(Path(scratch) / "random.safetensors",
                                       BootstrapConfig(game, size, encoder, blocks, filters, seed=seed)))
        info = read_info(model_path)
        rules = model_rules(info, rules_text, info.board_size or size)
        config = replace_paths(SelfPlayConfig(), {
            "player.visits": readouts, "player.search.batch_size": batch_size,
            "player.temperature_moves": opening_moves(rules.size), "full_search_share": full_search_pct / 100,
            "parallel_games": parallel_games, "seed": seed})
        started = time.perf_counter()
        if ray_target is None:
            evaluator = load_evaluator(rules, model_path, options)
            evaluator.warm_up(rules.size)  # type: ignore[attr-defined]
            summary = timed_selfplay(evaluator, rules, info.name, config, 3.0, seconds,
                                     evaluator.clear_cache)  # type: ignore[attr-defined]
            ran: dict[str, Any] = {"device": str(evaluator.device), "dtype": evaluator.dtype_name,  # type: ignore
                                   "runtime": evaluator.runtime, "threads": torch.get_num_threads()}  # type: ignore
        else:
            from training.cluster.connect import connected
            from training.cluster.selfplay import bench_on_ray

            with connected(ray_target):
                summary, ran = bench_on_ray(model_path, rules, config, options,
                                            ray_layout(ray_actors, ray_inference, threads), 3.0, seconds)
            ran["ray"] = ray_target
        warm_up = time.perf_counter() - started - summary.seconds
    mean_length = (summary.moves + summary.in_flight_moves) / max(summary.games + summary.in_flight_games, 1)
    positions_per_s = summary.moves_played / summary.seconds
    result = {"net": info.config.name, "game": info.game, "size": rules.size, "readouts": readouts,
              "cheap_readouts": config.cheap, "full_search_share": config.full_search_share,
              "parallel_games": parallel_games, "batch": batch_size, **ran, "seconds": summary.seconds,
              "positions_per_s": positions_per_s,
              "simulations_per_s": summary.simulations / summary.seconds,
              "evaluator_calls_per_s": summary.evaluator_calls / summary.seconds, "games_finished": summary.games,
              "games_in_flight": summary.in_flight_games, "mean_game_length": mean_length,
              "games_per_hour": positions_per_s * 3600 / max(mean_length, 1.0), "warm_up_s": warm_up}
    text = (f"{info.config.name} {info.game} {rules.size}x{rules.size}, {readouts} readouts "
            f"({config.cheap} cheap, {full_search_pct:g}% full), {parallel_games} games x {batch_size} leaves "
            f"({result['device']}, {result['dtype']}, {result['runtime']}{_on_ray(ran)}): "
            f"{positions_per_s:,.2f} positions/s, "
            f"{result['simulations_per_s']:,.0f} simulations/s, {result['games_per_hour']:,.1f} games/hour "
            f"(games of {mean_length:.0f} moves or more: an upper bound)")
    report(result, as_json, text)


def _on_ray(ran: dict[str, Any]) -> str:
    """``, Ray local: 2 actors, 1 server 64% busy, 62 positions a call`` (or ``, Ray local: 2 actors, each with
    its own network``) for a run on Ray, else nothing."""
    if "ray" not in ran:
        return ""
    actors = f", Ray {ran['ray']}: {ran['actors']} actors"
    if not ran["servers"]:
        return f"{actors}, each with its own network"
    return (f"{actors}, {ran['servers']} server {100 * ran['inference_busy_share']:.0f}% busy, "
            f"{ran['server_batch_mean']:.0f} positions a call")


def timed_selfplay(evaluator: Evaluator, rules: Rules, model: str, config: SelfPlayConfig, warm_up: float,
                   seconds: float, clear_cache: Callable[[], None]) -> SelfPlaySummary:
    """Self-play for ``warm_up`` seconds (kernels, compiling), ``clear_cache()``, then ``seconds`` timed: the
    timed window's totals (games in flight at its end abandoned). Games go to a scratch folder."""
    from training.selfplay import SelfPlayOutput, play_games

    with tempfile.TemporaryDirectory(prefix="bench-games-") as scratch:
        output = SelfPlayOutput(Path(scratch))
        play_games(evaluator, rules, model, config, config.parallel_games, output, stop=_after(warm_up))
        clear_cache()
        return play_games(evaluator, rules, model, config, 1 << 30, output, stop=_after(seconds))


def _after(seconds: float) -> Callable[[], bool]:
    """A stop test that turns true ``seconds`` from now."""
    deadline = time.perf_counter() + seconds
    return lambda: time.perf_counter() >= deadline
