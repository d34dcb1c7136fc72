"""Self-play and training throughput (``engine bench selfplay``, ``engine bench train``).

Self-play is timed with a network, as ``engine selfplay`` plays.

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

import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

__all__ = ["measure_selfplay", "measure_training", "random_samples"]

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
    from training.selfplay import SelfPlayConfig, opening_moves, timed_selfplay
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


# ------------------------------------------------------------------ training
def random_samples(encoder_name: str, size: int, count: int, seed: int = 0) -> Any:
    """``count`` random :class:`~training.chunks.Samples` for ``encoder_name`` on a ``size`` board, shaped as
    gather writes them (packed planes, a one-hot move as pi, +-1 as z, ownership and score targets)."""
    import numpy as np

    from encoders import get_encoder
    from engine import Rules
    from training.chunks import ChunkInfo, Samples, pack_ownership, pack_planes

    encoder = get_encoder(encoder_name, Rules.go(size))
    rng = np.random.default_rng(seed)
    planes = (rng.random((count, *encoder.shape)) < 0.15).astype(encoder.dtype)
    packed, coding = pack_planes(planes)
    actions = size * size + 1
    policy = np.zeros((count, actions), np.float16)
    policy[np.arange(count), rng.integers(0, actions, count)] = 1
    ownership = rng.integers(-1, 2, (count, size * size)).astype(np.int8)
    info = ChunkInfo("go", size, encoder.name, encoder.num_planes, coding, count)
    return Samples(info, packed, policy, rng.choice([-1.0, 1.0], count).astype(np.float32), pack_ownership(ownership),
                   rng.normal(0, 20, count).astype(np.float32), np.ones(count, bool))


def measure_training(blocks: int, filters: int, encoder: str, size: int, batch_size: int, channels_last: bool,
                     steps: int, runs: int, dtype: str = "auto") -> dict[str, Any]:
    """Training samples/s of :func:`training.train.train` itself (minibatch draw, unpacking, symmetries,
    forward, losses, backward, optimiser step) on random samples through a random pooled network with
    ownership and score heads: weights and data do not change the speed. Each run trains ``steps`` steps after
    one untimed step; the median run is reported, with ``data_share``, the part of a step spent drawing and
    transforming the minibatch (:func:`~training.train.draw_batch` timed alone on the same steps). Torch's
    threads are the caller's."""
    import torch

    from engine import Model, ModelInfo, NetConfig, PolicyValueNet, pick_device
    from training.stream import SampleStream
    from training.train import TrainConfig, draw_batch, train, training_dtype

    samples = SampleStream.from_samples(random_samples(encoder, size, 4096))
    net_config = NetConfig(blocks, filters, samples.info.num_planes, None, "pooled", ("ownership", "score"))
    config = TrainConfig(steps=steps + 1, batch_size=batch_size, checkpoint_every=0, channels_last=channels_last,
                         dtype=dtype)
    device = pick_device(None)
    rates, data_seconds, step_seconds = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            torch.manual_seed(run)
            model = Model(PolicyValueNet(net_config), ModelInfo("go", encoder, samples.info.num_planes, net_config))
            stamps: list[float] = []
            train(samples, model, Path(folder) / f"run{run}.safetensors", 1, replace(config, seed=run),
                  on_step=lambda _step, _metrics: stamps.append(time.perf_counter()))
            timed = stamps[-1] - stamps[0]           # the first step warms up and is not timed
            rates.append(steps * batch_size / timed)
            step_seconds.append(timed / steps)
            started = time.perf_counter()
            for step in range(1, steps + 1):
                draw_batch(samples, config, step)
            data_seconds.append((time.perf_counter() - started) / steps)
    return {"network": net_config.name, "encoder": encoder, "size": size, "batch_size": batch_size,
            "channels_last": channels_last, "device": str(device), "dtype": training_dtype(config, device),
            "runs": runs, "steps": steps,
            "samples_per_s": statistics.median(rates), "runs_samples_per_s": [round(r, 1) for r in rates],
            "data_share": statistics.median(data_seconds) / statistics.median(step_seconds)}
