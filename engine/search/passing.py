"""When a pass is safe: the side to move's margin if it passed now, judged as ``final_score`` would count it.

The player passes back at once when the opponent passed and the game is won on a
settled board (:func:`pass_wins`), and never passes into a loss under area scoring
(:func:`pass_margin`); the analysis engine's human-like levels end their games by
the same rule.
"""

from __future__ import annotations

import numpy as np

from engine.core.game import Game
from engine.core.ownership import playout_ownership, stone_status
from engine.core.types import Color
from engine.search.mcts import SearchResult
from engine.search.ownership import black_view

__all__ = ["pass_margin", "pass_wins", "DEAD_STONE_PLAYOUTS"]

DEAD_STONE_PLAYOUTS = 200
"""Random playouts behind the dead-stone estimate that judges a pass, when the network has no ownership head."""


def pass_margin(game: Game, result: SearchResult, remove_dead_stones: bool = True,
                seed: int | None = None) -> tuple[float, np.ndarray] | None:
    """The side to move's margin if it passed now and the owner of every point (area counting) as judged, or
    None where the pass is not judged.

    Unless ``remove_dead_stones`` is off, the stones the ownership calls dead (the search's tree-averaged
    ownership where the network has that head, ``seed``'s playout estimate otherwise) are taken off first, as
    ``final_score`` does in GTP. A pass that ends the game (the opponent passed) is judged under either scoring
    and also needs a settled board: more empty points touching both colours than the board has lines count as
    no margin, since a referee that judges dead stones, GNU Go say, may disagree with a count of a half-played
    board. Any other pass is judged under area scoring only (where playing on costs nothing), and only with
    ``remove_dead_stones``: a network may pass while its groups are dying. Off (self-play scored as the
    board stands), only game-ending passes are judged, on the board as it stands.
    """
    ends = game.position.passes > 0
    if game.rules.game != "go" or not (ends or (game.rules.scoring == "area" and remove_dead_stones)):
        return None
    dead: list[int] = []
    if remove_dead_stones:
        if result.ownership is not None:
            ownership = black_view(result.ownership, game.to_play)
        else:
            ownership = playout_ownership(game, DEAD_STONE_PLAYOUTS, seed=seed)
        dead = [action for chain in stone_status(game, ownership).dead for action in chain]
    owners = game.ownership(dead)
    lead = game.score(dead)
    margin = lead if game.to_play == Color.BLACK else -lead
    if remove_dead_stones and ends and np.count_nonzero(owners == 0) > game.rules.size:
        margin = 0.0
    return margin, owners


def pass_wins(game: Game, result: SearchResult, remove_dead_stones: bool = True, seed: int | None = None) -> bool:
    """Whether the opponent passed and a pass now ends a game won on a settled board (:func:`pass_margin`)."""
    if game.position.passes == 0:
        return False
    judged = pass_margin(game, result, remove_dead_stones, seed)
    return judged is not None and judged[0] > 0
