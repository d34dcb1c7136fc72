"""ASCII board diagrams: ``X`` black, ``O`` white, ``.`` empty, row 1 at the bottom.

Tests write regression positions as diagrams and ``showboard`` prints them::

       A B C D E
     5 . . . . .  5
     4 . X O . .  4
     ...

:func:`parse_diagram` reads the bare grid (labels optional): one row per line,
top row first, cells separated by spaces or not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.core.coords import GTP_COLUMNS
from engine.core.types import BLACK, EMPTY, WHITE

if TYPE_CHECKING:
    from engine.core.game import Game
    from engine.core.rules import Rules

__all__ = ["parse_diagram", "to_diagram", "game_from_diagram"]

_SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
_CELLS = {".": EMPTY, "+": EMPTY, "X": BLACK, "x": BLACK, "#": BLACK, "O": WHITE, "o": WHITE}


def parse_diagram(text: str) -> np.ndarray:
    """``int8[N, N]`` stones of a square diagram (row 0 at the top)."""
    rows = []
    for line in text.strip("\n").splitlines():
        cells = [_CELLS[c] for c in line if c in _CELLS]
        if cells:
            rows.append(cells)
    size = len(rows)
    if size == 0 or any(len(row) != size for row in rows):
        raise ValueError(f"diagram is not square: row lengths {[len(r) for r in rows]}")
    return np.array(rows, dtype=np.int8)


def game_from_diagram(text: str, rules: "Rules | str", to_play: int | str = "B") -> "Game":
    """A game holding the diagram's stones as setup, ``to_play`` to move.

    ``rules`` may be a rules string; its board size is then taken from the diagram.
    """
    from engine.core.game import Game
    from engine.core.rules import Rules
    from engine.core.types import Color

    board = parse_diagram(text)
    if isinstance(rules, str):
        rules = Rules.parse(rules, size=board.shape[0])
    return Game.from_board(rules, board, Color.parse(to_play) if isinstance(to_play, str) else to_play)


def to_diagram(position: "object", labels: bool = True) -> str:
    """The position's stones as text (``position`` is anything with ``board()`` and ``size``)."""
    board = position.board()  # type: ignore[attr-defined]
    size = board.shape[0]
    columns = " ".join(GTP_COLUMNS[:size])
    lines = [f"   {columns}"] if labels else []
    for row in range(size):
        number = size - row
        cells = " ".join(_SYMBOLS[int(c)] for c in board[row])
        lines.append(f"{number:2d} {cells} {number:2d}" if labels else cells)
    if labels:
        lines.append(f"   {columns}")
    return "\n".join(lines)
