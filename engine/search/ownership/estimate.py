"""Who will own each point at the end: the network's ownership where the evaluator has that head,
the Monte-Carlo estimate of random playouts otherwise (Go).

Both are maps ``float32[N*N]`` in [-1, 1] from black's view (+1: black's
point), as :func:`engine.core.ownership.stone_status` reads them to name dead
stones and seki (GTP ``final_status_list``, ``final_score``, the player's pass
judgement). The network's map is one evaluation of the position: deterministic
and fast; a search's tree-averaged map (``SearchResult.ownership``) is better
still where a search has run.
"""

from __future__ import annotations

import numpy as np

from engine.core.game import Game
from engine.core.ownership import DEFAULT_PLAYOUTS, playout_ownership, stone_status
from engine.core.types import BLACK, Color, Outcome
from engine.search.evaluator import Evaluator

__all__ = ["estimate_ownership", "black_view", "judged_outcome"]


def black_view(ownership: np.ndarray, to_play: Color) -> np.ndarray:
    """An ownership map seen from ``to_play`` (+1: its point), turned to black's view."""
    return ownership if to_play == BLACK else -ownership


def estimate_ownership(evaluator: Evaluator, game: Game, playouts: int = DEFAULT_PLAYOUTS,
                       seed: int | None = None) -> np.ndarray:
    """``float32[N*N]``, black's view: the evaluator's ownership of the game's position, or, when it
    has no ownership head, the mean of ``playouts`` random playouts seeded with ``seed``."""
    evaluation = evaluator.evaluate([game.position], game.legal_mask()[None])
    if evaluation.ownership is None:
        return playout_ownership(game, playouts, seed=seed)
    return black_view(np.asarray(evaluation.ownership[0], dtype=np.float32), game.to_play)


def judged_outcome(game: Game, ownership: np.ndarray) -> Outcome:
    """The result of a Go game with the stones that ``ownership`` (black's view) calls dead taken off the board:
    what GTP's ``final_score`` answers and what a match player judges."""
    dead = [action for chain in stone_status(game, ownership).dead for action in chain]
    return Outcome.from_lead(game.score(dead=dead))
