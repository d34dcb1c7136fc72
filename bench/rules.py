"""``engine bench rules``: random playouts through the rules core.

The workload is OpenSpiel's rollout: uniformly random legal actions (pass
included in Go) until two passes or the move cap of 2*N*N (Go), or until a
line, a full board (Gomoku). ``api="compiled"`` runs whole playouts in the
compiled kernels (the search's path); ``api="game"`` replays recorded random
games through checked ``Game.play`` calls from Python (the GTP and SGF path).
``peer="openspiel"`` measures OpenSpiel's C++ rollouts on the same machine in
the same run (``pip install open-spiel``) and reports our ratio to it.
"""

from __future__ import annotations

import time
from typing import Any

from bench.timing import measure_rate

__all__ = ["measure_rules"]


def measure_rules(game: str, size: int | None, preset: str | None, api: str, seconds: float, runs: int,
                  peer: str, seed: int) -> dict[str, Any]:
    """Moves/s and playouts/s of random playouts (medians of ``runs`` runs of ``seconds``), with the peer's
    figures under ``"peer"``. ValueError for a peer that cannot play ``game``."""
    if peer == "openspiel" and game != "go":
        raise ValueError("--peer openspiel compares Go only")
    started = time.perf_counter()
    from bench.playouts import PlayoutBench  # the rules core: numba import and cache load

    bench = PlayoutBench.create(game, size, preset, seed)
    bench.warm_up()
    startup = time.perf_counter() - started
    moves = measure_rate(bench.compiled_step if api == "compiled" else bench.game_step, seconds, runs)
    per_playout = bench.mean_length()
    result: dict[str, Any] = {
        "game": game, "size": bench.rules.size, "rules": str(bench.rules), "api": api,
        "runs": runs, "seconds": seconds, "moves_per_s": moves.median,
        "playouts_per_s": moves.median / per_playout, "moves_per_playout": per_playout,
        "moves_per_s_runs": moves.runs, "startup_s": startup,
    }
    if peer == "openspiel":
        from bench.openspiel_peer import measure_openspiel

        theirs = measure_openspiel(bench.rules.size, seconds, runs, seed)
        theirs["ratio"] = moves.median / theirs["moves_per_s"]
        result["peer"] = theirs
    return result
