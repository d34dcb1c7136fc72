"""ASCII board diagrams: ``X`` black, ``O`` white, ``.`` empty, row 1 at the bottom.

Tests write regression positions as diagrams and ``showboard`` prints them::

       A B C D E
     5 . . . . .  5
     4 . X O . .  4
     ...

:func:`parse_diagram` reads the bare grid (labels optional): one row per line,
top row first, cells separated by spaces or not.

Chain Reaction's cells also hold a number of orbs, written after the owner
(:func:`to_orb_diagram`, :func:`parse_orb_diagram`)::

        A  B  C
     3  X1 .  .   3
     2  .  X3 O2  2
     1  O1 .  .   1
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from engine.core.coords import GTP_COLUMNS
from engine.core.types import BLACK, EMPTY, WHITE

if TYPE_CHECKING:
    from engine.core.game import Game
    from engine.core.rules import Rules

__all__ = ["parse_diagram", "to_diagram", "game_from_diagram", "parse_orb_diagram", "to_orb_diagram"]

_SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
_CELLS = {".": EMPTY, "+": EMPTY, "X": BLACK, "x": BLACK, "#": BLACK, "O": WHITE, "o": WHITE}
_ORB_CELL = re.compile(r"(?<!\S)(?:([XxOo])(\d+)|\.)(?!\S)")


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


def parse_orb_diagram(text: str) -> tuple[np.ndarray, np.ndarray]:
    """``(owners int8[N, N], orbs int16[N, N])`` of a square Chain Reaction diagram (row 0 at the top): cells
    ``.`` or an owner and its orbs (``X2``, ``O1``), separated by spaces; labels are optional."""
    owners, orbs = [], []
    for line in text.strip("\n").splitlines():
        cells = _ORB_CELL.findall(line)
        if cells:
            owners.append([_CELLS[owner] if owner else EMPTY for owner, _ in cells])
            orbs.append([int(count) if owner else 0 for owner, count in cells])
    size = len(owners)
    if size == 0 or any(len(row) != size for row in owners):
        raise ValueError(f"diagram is not square: row lengths {[len(r) for r in owners]}")
    return np.array(owners, dtype=np.int8), np.array(orbs, dtype=np.int16)


def to_orb_diagram(position: "object", labels: bool = True) -> str:
    """A Chain Reaction position's cells as text: owner and orbs (``X2``), ``.`` when empty (``position`` is
    anything with ``board()`` and ``orbs()``)."""
    board = position.board()  # type: ignore[attr-defined]
    orbs = position.orbs()  # type: ignore[attr-defined]
    size = board.shape[0]
    columns = " ".join(f"{c:<2}" for c in GTP_COLUMNS[:size]).rstrip()
    lines = [f"    {columns}"] if labels else []
    for row in range(size):
        number = size - row
        cells = " ".join(f"{_SYMBOLS[int(c)]}{n}" if c else ". " for c, n in zip(board[row], orbs[row]))
        lines.append(f"{number:2d}  {cells} {number:2d}" if labels else cells.rstrip())
    if labels:
        lines.append(f"    {columns}")
    return "\n".join(lines)
