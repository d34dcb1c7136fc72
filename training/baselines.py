"""The seeds' yardsticks: a uniformly random player and pure Monte-Carlo tree search.

Pure MCTS is the ordinary search with :class:`RolloutEvaluator` in place of a
network: uniform priors over the legal moves, and as value the mean result of
random playouts from the leaf to the end of the game
(:func:`engine.core.playout.random_playout`; in Go with ``keep_eyes``: one-point eyes
kept, as Monte-Carlo Go programs play them).
``mcts-rollouts:1000`` in ``engine evaluate`` is that search with 1,000
simulations per move, one playout each.
"""

from __future__ import annotations

import numpy as np

from engine import (
    TO_PLAY,
    Game,
    PositionBatch,
    Positions,
    UniformEvaluator,
    geometry,
    legal_masks,
    pack_rules,
    random_playout,
    seed_kernels,
    terminal_value,
)

__all__ = ["RolloutEvaluator", "random_move"]


class RolloutEvaluator:
    """Uniform priors; value = mean of ``rollouts`` random playouts, from the leaf's side to move.

    ``seed`` seeds the compiled kernels' random generator (process-wide).
    Renju is not supported (the playout kernels refuse it).
    """

    def __init__(self, rollouts: int = 1, seed: int | None = None) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, not {rollouts}")
        self.rollouts = rollouts
        self._uniform = UniformEvaluator()
        if seed is not None:
            seed_kernels(seed)

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        batch = PositionBatch.stack(positions)
        masks = legal_masks(batch) if legal is None else legal
        priors, _ = self._uniform.evaluate(batch, masks)
        rules = batch.rules
        geo = geometry(rules.size)
        spec = pack_rules(rules)
        komi = float(rules.komi)
        empties = np.empty(rules.num_points, dtype=np.int64)
        record = np.empty(0, dtype=np.int64)
        values = np.zeros(len(batch), dtype=np.float32)
        for i in range(len(batch)):
            mover = batch.info[i, TO_PLAY]
            total = 0.0
            for _ in range(self.rollouts):
                cells, info = batch.cells[i].copy(), batch.info[i].copy()
                # Go keeps eyes, so that living groups live and the score means something
                random_playout(cells, info, geo.zobrist, geo.width, geo.action_point, spec, rules.game == "go",
                               empties, record)
                value = terminal_value(cells, info, geo.width, geo.action_point, spec, komi)
                total += value if info[TO_PLAY] == mover else -value
            values[i] = total / self.rollouts
        return priors, values


def random_move(game: Game, rng: np.random.Generator) -> int:
    """A uniformly random legal move; in Go pass only when nothing else is legal."""
    legal = game.legal_mask()
    points = np.flatnonzero(legal[:-1])
    if points.size:
        return int(rng.choice(points))
    return game.rules.pass_action
