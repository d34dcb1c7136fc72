"""``gomokubench:LEVEL``: the alpha-beta Gomoku player of the ``gomokubench`` package (PyPI) as a match opponent.

``gomokubench`` (Apache 2.0, pure Python and numpy) ships a classical player:
at each move it scores every empty point next to a stone with a pattern
evaluation (fives, open and closed fours, threes, twos, one gap allowed), keeps
the best ``candidate_count`` and searches them by minimax with alpha-beta to
``depth`` plies. Its levels (``libs.ai.AI_LEVELS``) are::

    easy       depth 1, 4 candidates, one of the best 2 at random
    standard   depth 2, 10 candidates
    hard       depth 3, 12 candidates (the strongest; each level's time a move: docs/training.md)

Its own ``get_best_move`` draws from numpy's process-wide generator and knows
only freestyle (five or more wins for both). :class:`GomokubenchPlayer` runs
the same root with the package's own pieces (``get_top_moves``, ``minimax``,
``second_move``), with two differences so that it can serve under our rules:

* randomness (its first move, ``easy``'s pick among the best two) comes from
  the match's generator, so games repeat with the seed;
* the candidates are ranked among the moves our rules core allows: under renju
  black never plays a forbidden point (double three, double four, overline).
  Below the root its search still reads the board by freestyle rules (it
  thinks black's overline wins and that black may play forbidden points),
  which makes it overrate black's threats, never play an illegal move.

So ``gomokubench`` plays freestyle exactly as the package does, and standard
and renju as a freestyle player kept to legal moves: an honest but not a
renju-aware opponent (docs/training.md, *Gomoku opponents*). It plays only
five in a row (``k=5``), on any board size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import BLACK, WHITE, Game, check_choice

__all__ = ["LEVELS", "STRONGEST", "GomokubenchPlayer"]

LEVELS = ("easy", "standard", "hard")
STRONGEST = "hard"


def _library() -> tuple[Any, Any, Any]:
    """The package's ``ai``, ``board`` and ``piece`` modules (it installs them as the top-level ``libs``)."""
    try:
        from libs import ai, board, piece
    except ImportError as error:
        raise ValueError("gomokubench is not installed: pip install gomokubench") from error
    if not hasattr(ai, "AI_LEVELS") or not hasattr(board, "BoardState"):
        raise ValueError("the installed 'libs' package is not gomokubench's: pip install gomokubench")
    return ai, board, piece


class GomokubenchPlayer:
    """A move chooser ``(game, rng) -> action`` playing gomokubench's alpha-beta at ``level``."""

    def __init__(self, level: str = STRONGEST) -> None:
        check_choice("gomokubench level", level, LEVELS)
        self._ai, self._board, self._piece = _library()
        self.level = level
        self.settings = self._ai.resolve_ai_settings(level=level)

    @staticmethod
    def check_rules(game: Game) -> None:
        """ValueError unless ``game`` is Gomoku with five in a row, all that gomokubench plays."""
        rules = game.rules
        if rules.game != "gomoku" or rules.win_length != 5:
            raise ValueError(f"gomokubench plays five in a row only, not {rules}")

    def _state(self, game: Game) -> Any:
        """gomokubench's board: +1 black, -1 white, row 0 at the top; ``color`` is the last mover's."""
        piece = self._piece
        stones = game.position.board()
        values = np.zeros(stones.shape, dtype=np.int64)
        values[stones == BLACK] = piece.BLACK
        values[stones == WHITE] = piece.WHITE
        mover = piece.BLACK if game.to_play == BLACK else piece.WHITE
        state = self._board.BoardState(size=game.rules.size, values=values, color=-mover)
        if game.moves:
            state.last_move = divmod(game.moves[-1].action, game.rules.size)
        return state

    def __call__(self, game: Game, rng: np.random.Generator) -> int:
        """The move gomokubench chooses for the side to move (a legal action)."""
        size = game.rules.size
        legal = game.legal_mask()[:-1]
        state = self._state(game)
        stones = int(np.count_nonzero(state.values))
        if stones == 0:  # gomokubench's opening: a point of the centre 3x3
            center = size // 2
            return int(rng.integers(center - 1, center + 2)) * size + int(rng.integers(center - 1, center + 2))
        if stones == 1 and game.moves:
            (row, column), _ = self._ai.second_move(state)
            if 0 <= row < size and 0 <= column < size and legal[row * size + column]:
                return row * size + column
        chosen = self._search(state, legal, size, rng)
        if chosen is not None:
            return chosen
        return int(rng.choice(np.flatnonzero(legal)))  # nothing near a stone is legal: any legal point

    def _search(self, state: Any, legal: np.ndarray, size: int, rng: np.random.Generator) -> int | None:
        """gomokubench's root: its best candidates among the legal moves, then minimax over them."""
        settings, maximise = self.settings, state.color == self._piece.WHITE  # black to move maximises
        ranked = self._ai.get_top_moves(state, size * size, maximise)
        top = [move for move, _ in ranked if legal[move[0] * size + move[1]]][:settings["candidate_count"]]
        if not top:
            return None
        if settings["random_top_n"] > 1 and len(top) > 1:
            row, column = top[int(rng.integers(min(settings["random_top_n"], len(top))))]
            return row * size + column
        best, best_value = top[0], -9999 if maximise else 9999  # as get_best_move: its bounds, its fallback
        for move in top:
            value = self._ai.minimax(state.next(move), -10e5, 10e5, settings["depth"] - 1, not maximise)
            if value > best_value if maximise else value < best_value:
                best, best_value = move, value
        return best[0] * size + best[1]
