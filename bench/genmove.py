"""``engine bench genmove``: whole moves as GTP plays them, network included.

A game is played from the empty board by ``--moves`` genmoves of ``--visits``
visits each, reusing the tree between moves as the engine does in play. The
rate is new simulations per second of genmove time (Leela Zero's ``n/s``);
``overhead_share`` is the part of that time spent outside the network's
forward passes (search, encoding, masking, Python). ``--peer leela-zero``
runs Leela Zero 0.17 in the same run on the same network: the Leela Zero
weights given as ``--model`` (which we read too), the model given exported
to its format, or a random network of the same size. ``--peer katago`` runs
KataGo on the KataGo model file given as ``--model``, with the settings
:mod:`bench.katago_peer` chooses to make the comparison fair.
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
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.katago_peer import find_katago
from engine.nn.model_format import is_katago_model

__all__ = ["measure_genmove"]


def measure_genmove(model_path: str | None, blocks: int, filters: int, encoder: str, size: int, visits: int,
                    batch: int, moves: int, device: str | None, dtype: str, runtime: str, peer: str,
                    peer_threads: int, seed: int, contend: bool, peer_binary: str | None = None) -> dict[str, Any]:
    """Genmove visits/s with a network (the model, or a random ``blocks`` x ``filters`` one), the share of the time
    outside it, and the peer's figures (Leela Zero's or KataGo's, found at ``peer_binary`` if given) under
    ``"peer"``. Torch's threads are the caller's (the process's). ValueError for a peer that cannot play
    ``size`` or the model."""
    if peer == "leela-zero" and size != 19:
        raise ValueError("--peer leela-zero plays 19x19 only (--size 19)")
    if peer == "katago" and (model_path is None or not is_katago_model(model_path)):
        raise ValueError("--peer katago plays the KataGo model file given as --model (.bin.gz, .bin, .txt.gz, .txt)")
    katago = find_katago(peer_binary) if peer == "katago" else None   # before our moves: a missing peer fails fast
    import torch

    from encoders import get_encoder
    from engine.core.game import Game
    from engine.core.rules import Rules
    from engine.nn.evaluator import NetEvaluator
    from engine.nn.katago_evaluator import KataGoEvaluator
    from engine.nn.loading import EvaluatorOptions, load_evaluator
    from engine.nn.net import NetConfig, PolicyValueNet
    from engine.search.config import PlayerConfig, SearchConfig
    from engine.search.player import Player

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
    assert isinstance(evaluator, (NetEvaluator, KataGoEvaluator))
    config = PlayerConfig(visits=visits, resign_threshold=None, threat_guard=True,
                          search=SearchConfig(batch_size=batch))
    started = time.perf_counter()
    if isinstance(evaluator, NetEvaluator):
        evaluator.warm_up(size)   # compiles; KataGo's network runs eagerly
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
    name = evaluator.model.name if isinstance(evaluator, KataGoEvaluator) else evaluator.config.name
    result: dict[str, Any] = {
        "net": name, "size": size, "visits": visits, "batch": batch, "moves": len(rates),
        "device": str(evaluator.device), "dtype": evaluator.dtype_name, "runtime": evaluator.runtime,
        "threads": torch.get_num_threads(), "visits_per_s": statistics.median(rates), "visits_per_s_runs": rates,
        "overhead_share": 1.0 - network.total / total_time, "simulations": total_sims, "warm_up_s": warm_up,
        "contended": contend}
    if peer == "leela-zero":
        from bench.leelaz_peer import measure_leelaz, peer_weights

        with tempfile.TemporaryDirectory() as folder:
            weights, which = peer_weights(model_path, blocks, filters, Path(folder))
            theirs = measure_leelaz(weights, visits, moves, peer_threads)
        theirs["ratio"] = result["visits_per_s"] / theirs["visits_per_s"]
        theirs["weights"] = which
        result["peer"] = theirs
    elif katago is not None:
        from bench.katago_peer import measure_katago

        assert model_path is not None
        with tempfile.TemporaryDirectory() as folder:
            theirs = measure_katago(katago, model_path, rules, visits, len(rates), result["threads"],
                                    options.cache_size, options.random_symmetry, seed, Path(folder))
        theirs["ratio"] = result["visits_per_s"] / theirs["visits_per_s"]
        result["peer"] = theirs
    return result


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
    """Wraps the evaluator's network calls (``_launch``, and ``_collect`` where a GPU's pass ends) to add up the
    seconds spent in the network."""

    def __init__(self, evaluator: "object") -> None:
        self.seconds = 0.0
        self.total = 0.0
        for name in ("_launch", "_collect"):
            setattr(evaluator, name, self._timed(getattr(evaluator, name)))

    def _timed(self, inner: "Any") -> "Any":
        def timed(*args: "object") -> "object":
            started = time.perf_counter()
            try:
                return inner(*args)
            finally:
                self.seconds += time.perf_counter() - started

        return timed
