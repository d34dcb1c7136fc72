"""The seeds' yardsticks: a uniformly random player (pure MCTS is the search with
:class:`engine.search.evaluator.RolloutEvaluator`).

``random`` in ``engine evaluate`` plays :func:`random_move`;
``mcts-rollouts:1000`` is the ordinary search with 1,000 simulations per move,
each valued by one random playout. Players that choose a move without a search
tree (random, ``gomokubench``) are :data:`Mover` functions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine import Game

__all__ = ["Mover", "random_move"]

Mover = Callable[[Game, np.random.Generator], int]
"""A player without a search tree: the legal action it plays for the side to move, randomness from the generator."""


def random_move(game: Game, rng: np.random.Generator) -> int:
    """A uniformly random legal move; in Go pass only when nothing else is legal."""
    legal = game.legal_mask()
    points = np.flatnonzero(legal[:-1])
    if points.size:
        return int(rng.choice(points))
    return game.rules.pass_action
