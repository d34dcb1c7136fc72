"""Random games for tests that need many varied, legal positions."""

from __future__ import annotations

import numpy as np

from engine.core.game import Game

__all__ = ["play_randomly"]


def play_randomly(game: Game, rng: np.random.Generator, moves: int, pass_rate: float = 0.05) -> None:
    """Play up to ``moves`` random legal moves (superko included), passing now and then in Go."""
    for _ in range(moves):
        if game.is_over:
            return
        mask = game.legal_mask()
        points = np.flatnonzero(mask[:-1])
        if mask[-1] and (points.size == 0 or rng.random() < pass_rate):
            game.play(game.rules.pass_action)
        elif points.size:
            game.play(int(rng.choice(points)))
        else:
            return
