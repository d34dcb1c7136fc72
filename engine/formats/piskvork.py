"""Piskvork's game files: ``.psq`` (coordinates from 1) and ``.rec`` (from 0).

Piskvork, the Gomocup tournament manager, saves one game a file, one move a
line as ``x,y,ms`` (x the column, y the row counted from the top, ms the
thinking time; the opening's stones come first). The two kinds differ in
their frame:

``.psq``
    line 1 ``Piskvorky 20x20, 11:11, 0`` (the board's width and height),
    then the moves counted from 1, then the engines' names and a last ``-1``.
``.rec``
    the engines' names on two lines, then the moves counted from 0, then one
    number (the result code). The board's size is not written: the caller
    names it.

Neither states a winner: the game is replayed through the rules core and its
five (or full board) is its result. A game that ends without one, or whose
moves are illegal under the rules given, comes out skipped with the reason.
"""

from __future__ import annotations

import re

from engine.core.game import Game, Move
from engine.core.rules import Rules
from engine.core.types import IllegalMoveError
from engine.formats.sgf import GameRecord

__all__ = ["PISKVORK_SUFFIXES", "read_piskvork", "PiskvorkError"]

PISKVORK_SUFFIXES = (".psq", ".rec")
MAX_PISKVORK_BYTES = 256 << 10   # a game of 400 moves is under 6 kB
_MOVE_LINE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*-?\d+\s*)?$")
_PSQ_HEADER = re.compile(r"^\s*piskvorky\s+(\d+)\s*x\s*(\d+)", re.IGNORECASE)


class PiskvorkError(ValueError):
    """A Piskvork file that cannot be used; the message starts with the kind of reason
    (``unreadable``, ``illegal``, ``no five and no result``) so that readers can count them."""


def _moves_block(lines: list[str]) -> list[tuple[int, int]]:
    """The coordinates of the first contiguous block of ``x,y[,ms]`` lines (the engines' names and the
    result code around it are not needed: the replay gives the result)."""
    start = next((i for i, line in enumerate(lines) if _MOVE_LINE.match(line)), None)
    if start is None:
        raise PiskvorkError("unreadable: no moves")
    coordinates = []
    for line in lines[start:]:
        match = _MOVE_LINE.match(line)
        if match is None:
            break
        coordinates.append((int(match.group(1)), int(match.group(2))))
    return coordinates


def read_piskvork(name: str, data: bytes, rules: Rules) -> GameRecord:
    """The game of one Piskvork file named ``name`` (its suffix says ``.psq`` or ``.rec``), under
    ``rules`` (a Gomoku variant; a ``.psq`` file's own board size replaces ``rules.size``).

    The result is the replayed game's: a five, or a draw on a full board. Raises PiskvorkError.
    """
    if len(data) > MAX_PISKVORK_BYTES:
        raise PiskvorkError(f"unreadable: a file over {MAX_PISKVORK_BYTES >> 10} kB")
    if rules.game != "gomoku":
        raise PiskvorkError(f"unreadable: Piskvork games are Gomoku, not {rules.game}")
    lines = data.decode("utf-8", errors="replace").splitlines()
    base = 0 if name.lower().endswith(".rec") else 1
    if base == 1:
        header = _PSQ_HEADER.match(lines[0]) if lines else None
        if header is None:
            raise PiskvorkError("unreadable: no 'Piskvorky WxH' first line")
        width, height = int(header.group(1)), int(header.group(2))
        if width != height:
            raise PiskvorkError(f"unreadable: a {width}x{height} board is not square")
        if width != rules.size:
            rules = rules.resized(width)
    coordinates = _moves_block(lines[1:] if base == 1 else lines)
    size = rules.size
    game = Game(rules)
    moves = []
    for number, (x, y) in enumerate(coordinates, 1):
        column, row = x - base, y - base
        if not (0 <= column < size and 0 <= row < size):
            raise PiskvorkError(f"unreadable: move {number} ({x},{y}) is off the {size}x{size} board")
        move = Move(game.to_play, row * size + column)
        try:
            game.play(move.action, move.color)
        except IllegalMoveError as error:
            raise PiskvorkError(f"illegal: move {number} ({x},{y}): {error.reason}") from error
        moves.append(move)
    outcome = game.outcome()
    if outcome is None:
        raise PiskvorkError("no five and no result")
    return GameRecord(rules=rules, moves=tuple(moves), result=outcome)
