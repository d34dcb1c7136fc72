"""``engine bench rules``: random playouts through the rules core.

The workload is OpenSpiel's rollout: uniformly random legal actions (pass
included in Go) until two passes or the move cap of 2*N*N (Go), or until a
line, a full board (Gomoku). ``--api compiled`` runs whole playouts in the
compiled kernels (the search's path); ``--api game`` replays recorded random
games through checked ``Game.play`` calls from Python (the GTP and SGF path).
``--peer openspiel`` measures OpenSpiel's C++ rollouts on the same machine in
the same run (``pip install open-spiel``) and reports our ratio to it.
"""

from __future__ import annotations

import time

import click

from engine.bench.timing import measure_rate, report

__all__ = ["rules_command"]


@click.command("rules")
@click.option("--game", type=click.Choice(["go", "gomoku"]), default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=None, help="Board size [default: 9 Go, 15 Gomoku].")
@click.option("--rules", "preset", default=None,
              help="Rules preset [default: japanese for Go (simple ko, no suicide: what OpenSpiel plays), "
                   "freestyle for Gomoku].")
@click.option("--api", type=click.Choice(["compiled", "game"]), default="compiled", show_default=True,
              help="Compiled playouts, or checked Game.play calls from Python.")
@click.option("--seconds", type=click.FloatRange(0.01), default=1.0, show_default=True, help="Length of each run.")
@click.option("--runs", type=click.IntRange(1), default=5, show_default=True, help="Runs; the median is reported.")
@click.option("--peer", type=click.Choice(["none", "openspiel"]), default="none", show_default=True,
              help="Also measure a peer implementation in this run (Go only).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def rules_command(game: str, size: int | None, preset: str | None, api: str, seconds: float, runs: int,
                  peer: str, seed: int, as_json: bool) -> None:
    """Random playouts: moves/s and playouts/s (median of several runs)."""
    started = time.perf_counter()
    from engine.bench.playouts import PlayoutBench  # the rules core: numba import and cache load

    bench = PlayoutBench.create(game, size, preset, seed)
    bench.warm_up()
    startup = time.perf_counter() - started

    if api == "compiled":
        moves = measure_rate(bench.compiled_step, seconds, runs)
    else:
        moves = measure_rate(bench.game_step, seconds, runs)
    per_playout = bench.mean_length()
    result = {
        "game": game, "size": bench.rules.size, "rules": str(bench.rules), "api": api,
        "runs": runs, "seconds": seconds, "moves_per_s": moves.median,
        "playouts_per_s": moves.median / per_playout, "moves_per_playout": per_playout,
        "moves_per_s_runs": moves.runs, "startup_s": startup,
    }
    text = (f"{game} {bench.rules.size}x{bench.rules.size} ({bench.rules}) {api}: "
            f"{moves.median / 1e6:.3f}M moves/s, {moves.median / per_playout:,.0f} playouts/s "
            f"({per_playout:.1f} moves per playout; median of {runs} runs of {seconds:g} s; "
            f"import + JIT warm-up {startup:.2f} s)")
    if peer == "openspiel":
        if game != "go":
            raise click.UsageError("--peer openspiel compares Go only")
        from engine.bench.openspiel_peer import measure_openspiel

        theirs = measure_openspiel(bench.rules.size, seconds, runs, seed)
        theirs["ratio"] = moves.median / theirs["moves_per_s"]
        result["peer"] = theirs
        text += (f"\nOpenSpiel C++ rollouts: {theirs['moves_per_s'] / 1e6:.3f}M moves/s "
                 f"({theirs['moves_per_playout']:.1f} moves per playout); ratio {theirs['ratio']:.2f}x")
    report(result, as_json, text)
