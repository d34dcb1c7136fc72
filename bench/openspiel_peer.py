"""OpenSpiel's Go rollouts, timed the same way as ours (``--peer openspiel``).

OpenSpiel's C++ ``RandomRolloutEvaluator`` is reached through a one-simulation
``MCTSBot``: each ``step`` from the empty board runs ``rollouts`` complete
uniformly random games in C++. Its moves per rollout are measured with the
Python API over the same distribution of games (uniform legal actions, pass
included, simple ko, no suicide, a cap of 2*N*N moves).
"""

from __future__ import annotations

import random

from bench.timing import BenchError, measure_rate

__all__ = ["measure_openspiel"]

_ROLLOUTS_PER_STEP = 16


def measure_openspiel(size: int, seconds: float, runs: int, seed: int) -> dict:
    """OpenSpiel's C++ rollout speed on an N x N board: moves/s, playouts/s, moves per playout."""
    try:
        import pyspiel
    except ImportError as exc:
        raise BenchError("--peer openspiel needs OpenSpiel: pip install open-spiel") from exc
    game = pyspiel.load_game("go", {"board_size": size})
    rng = random.Random(seed)
    lengths = []
    for _ in range(64):
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        lengths.append(moves)
    per_playout = sum(lengths) / len(lengths)
    evaluator = pyspiel.RandomRolloutEvaluator(_ROLLOUTS_PER_STEP, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, 1, 64, False, seed, False)
    root = game.new_initial_state()

    def step() -> float:
        bot.step(root)
        return float(_ROLLOUTS_PER_STEP)

    step()
    playouts = measure_rate(step, seconds, runs)
    return {"name": "openspiel", "version": getattr(pyspiel, "__version__", "unknown"),
            "moves_per_s": playouts.median * per_playout, "playouts_per_s": playouts.median,
            "moves_per_playout": per_playout}
