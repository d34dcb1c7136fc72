"""``engine bench genmove``: whole moves as GTP plays them, network included.

A game is played from the empty board by ``--moves`` genmoves of ``--visits``
visits each, reusing the tree between moves as the engine does in play. The
rate is new simulations per second of genmove time (Leela Zero's ``n/s``);
``overhead_share`` is the part of that time spent outside the network's
forward passes (search, encoding, masking, Python). ``--peer leela-zero``
runs Leela Zero 0.17 in the same run on the same network: the Leela Zero
weights given as ``--model`` (which we read too), the model given exported
to its format, or a random network of the same size.
``--contend`` times the genmoves while a busy process (a Python loop at normal
priority, in a session of its own, so that a kernel grouping processes by
session for fair scheduling counts it as another program) holds one core, as
another engine thinking beside ours in a GUI match does: how the network's
threads fare when a core is taken.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import click

from engine.bench.timing import network_options, report, runtime_options

__all__ = ["genmove_command"]


@click.command("genmove")
@network_options
@click.option("--encoder", default="zero17", show_default=True, help="Encoder of the random network.")
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True)
@click.option("--visits", type=click.IntRange(2), default=800, show_default=True)
@click.option("--batch", type=click.IntRange(1), default=16, show_default=True, help="Leaves per network call.")
@click.option("--moves", type=click.IntRange(1), default=6, show_default=True, help="Genmoves timed.")
@runtime_options
@click.option("--peer", type=click.Choice(["none", "leela-zero"]), default="none", show_default=True,
              help="Also time Leela Zero (apt leela-zero) on the same network (random: the same size).")
@click.option("--peer-threads", type=click.IntRange(1), default=2, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--contend", is_flag=True, help="Hold one core with a busy process while the genmoves are timed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def genmove_command(model_path: str | None, blocks: int, filters: int, encoder: str, size: int, visits: int,
                    batch: int, moves: int, device: str | None, dtype: str, runtime: str, threads: int | None,
                    peer: str, peer_threads: int, seed: int, contend: bool, as_json: bool) -> None:
    """Genmove visits/s with a network, and the share of time outside it."""
    import torch

    from encoders import get_encoder
    from engine.core.game import Game
    from engine.core.rules import Rules
    from engine.nn.evaluator import NetEvaluator, set_cpu_threads
    from engine.nn.loading import EvaluatorOptions, load_evaluator
    from engine.nn.net import NetConfig, PolicyValueNet
    from engine.search.mcts import SearchConfig
    from engine.search.player import Player, PlayerConfig

    set_cpu_threads(threads)
    rules = Rules.go(size)
    options = EvaluatorOptions(device=device, dtype=dtype, runtime=runtime, seed=seed)
    if model_path is not None:
        evaluator = load_evaluator(rules, model_path, options)
    else:
        planes = get_encoder(encoder, rules)
        torch.manual_seed(seed)
        net = PolicyValueNet(NetConfig(blocks, filters, planes.num_planes, size))
        evaluator = NetEvaluator(net, planes, device=device, dtype=dtype, runtime=runtime, seed=seed,
                                 cache_size=options.cache_size)
    assert isinstance(evaluator, NetEvaluator)
    config = PlayerConfig(visits=visits, resign_threshold=None, threat_guard=True,
                          search=SearchConfig(batch_size=batch))
    started = time.perf_counter()
    evaluator.warm_up(size)
    Player(evaluator, config, seed=seed).choose(Game(rules))  # compiles every batch shape, loads the kernels
    evaluator.clear_cache()
    warm_up = time.perf_counter() - started
    network = _TimedInference(evaluator)
    player = Player(evaluator, config, seed=seed)
    game = Game(rules)
    rates, total_time, total_sims = [], 0.0, 0
    with _busy_core(contend):
        for _ in range(moves):
            network.seconds = 0.0
            started = time.perf_counter()
            decision = player.choose(game)
            elapsed = time.perf_counter() - started
            total_time += elapsed
            total_sims += decision.search.simulations
            rates.append(decision.search.simulations / elapsed)
            network.total += network.seconds
            if decision.action is None or game.is_over:
                break
            game.play(decision.action)
    name = evaluator.net.config.name
    result = {"net": name, "size": size, "visits": visits, "batch": batch, "moves": len(rates),
              "device": str(evaluator.device), "dtype": evaluator.dtype_name, "runtime": evaluator.runtime,
              "threads": torch.get_num_threads(), "visits_per_s": statistics.median(rates),
              "visits_per_s_runs": rates, "overhead_share": 1.0 - network.total / total_time,
              "simulations": total_sims, "warm_up_s": warm_up, "contended": contend}
    text = (f"{name} {size}x{size}, {visits} visits, batches of {batch} ({evaluator.device}, "
            f"{evaluator.dtype_name}, {evaluator.runtime}, {torch.get_num_threads()} threads): "
            f"{result['visits_per_s']:,.0f} visits/s (median of {len(rates)} genmoves), "
            f"{100 * result['overhead_share']:.1f}% of the time outside the network"
            + (", one core held by a busy process" if contend else ""))
    if peer == "leela-zero":
        import tempfile
        from pathlib import Path

        from engine.bench.leelaz_peer import measure_leelaz, peer_weights

        if size != 19:
            raise click.UsageError("--peer leela-zero plays 19x19 only (--size 19)")
        with tempfile.TemporaryDirectory() as folder:
            weights, which = peer_weights(model_path, blocks, filters, Path(folder))
            theirs = measure_leelaz(weights, visits, moves, peer_threads)
        theirs["ratio"] = result["visits_per_s"] / theirs["visits_per_s"]
        result["peer"] = theirs
        text += (f"\nLeela Zero 0.17 ({peer_threads} threads, {which}): "
                 f"{theirs['visits_per_s']:,.0f} visits/s; ratio {theirs['ratio']:.2f}x")
    report(result, as_json, text)


@contextmanager
def _busy_core(contend: bool) -> Iterator[None]:
    """With ``contend``, a process spinning on one core (the scheduler's choice) for the block's duration."""
    if not contend:
        yield
        return
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    try:
        time.sleep(0.2)  # let it start spinning
        yield
    finally:
        busy.kill()
        busy.wait()


class _TimedInference:
    """Wraps ``evaluator.infer`` to add up the seconds spent in the network."""

    def __init__(self, evaluator: "object") -> None:
        self.seconds = 0.0
        self.total = 0.0
        inner = evaluator.infer  # type: ignore[attr-defined]

        def timed(planes: "object") -> "object":
            started = time.perf_counter()
            try:
                return inner(planes)
            finally:
                self.seconds += time.perf_counter() - started

        evaluator.infer = timed  # type: ignore[attr-defined]
