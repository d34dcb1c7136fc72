"""Conversions between actions, GTP vertices, SGF points and padded board points.

For an N x N board (N <= 25) with ``W = N + 2``:

============  ==========================  ===================  ==================
space         top-left                    bottom-right         pass
============  ==========================  ===================  ==================
action        ``0``                       ``N*N - 1``          ``N*N``
(row, col)    ``(0, 0)``                  ``(N-1, N-1)``       --
GTP vertex    ``A{N}`` (``A19``)          ``{last}1`` (``T1``) ``pass``
SGF point     ``aa``                      e.g. ``ss`` on 19    ``""`` (``tt`` <= 19)
point         ``W + 1``                   ``N*W + N``          --
============  ==========================  ===================  ==================

``action = row * N + col`` with row 0 at the top, as SGF counts rows; GTP counts
rows from the bottom and skips the letter I in column names. A ``point`` is an
index into the padded 1-D board the kernels use (a one-cell wall all round) and
never leaves the rules core; everything above it speaks in actions.
"""

from __future__ import annotations

from engine.core.rules import MAX_SIZE
from engine.core.types import InvalidVertexError

__all__ = [
    "GTP_COLUMNS",
    "action_to_gtp",
    "gtp_to_action",
    "action_to_sgf",
    "sgf_to_action",
    "action_to_rowcol",
    "rowcol_to_action",
    "action_to_point",
    "point_to_action",
]

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _check_size(size: int) -> None:
    if not 1 <= size <= MAX_SIZE:
        raise InvalidVertexError(f"board size {size} is outside 1..{MAX_SIZE}")


def _check_action(action: int, size: int) -> None:
    if not 0 <= action <= size * size:
        raise InvalidVertexError(f"action {action} is not on a {size}x{size} board (0..{size * size})")


def action_to_rowcol(action: int, size: int) -> tuple[int, int]:
    """(row, col) with row 0 at the top; raises for pass."""
    if not 0 <= action < size * size:
        raise InvalidVertexError(f"action {action} is not a point on a {size}x{size} board")
    return divmod(action, size)


def rowcol_to_action(row: int, col: int, size: int) -> int:
    if not (0 <= row < size and 0 <= col < size):
        raise InvalidVertexError(f"({row}, {col}) is off a {size}x{size} board")
    return row * size + col


def _rowcol_or_pass(action: int, size: int) -> tuple[int, int] | None:
    """(row, col) of an action, None for pass; raises for a bad size or an action off the board."""
    _check_size(size)
    _check_action(action, size)
    return None if action == size * size else divmod(action, size)


def action_to_gtp(action: int, size: int) -> str:
    """``"D4"``-style vertex, or ``"pass"``."""
    rowcol = _rowcol_or_pass(action, size)
    if rowcol is None:
        return "pass"
    row, col = rowcol
    return f"{GTP_COLUMNS[col]}{size - row}"


def gtp_to_action(vertex: str, size: int) -> int:
    """Parse a GTP vertex (case-insensitive, ``pass`` allowed) on an N x N board."""
    _check_size(size)
    text = vertex.strip().upper()
    if text == "PASS":
        return size * size
    if len(text) < 2 or text[0] not in GTP_COLUMNS or not (text[1:].isascii() and text[1:].isdigit()):
        raise InvalidVertexError(f"invalid vertex {vertex!r}: expected a letter A-Z (no I) and a row number")
    col = GTP_COLUMNS.index(text[0])
    row_number = int(text[1:])
    if col >= size or not 1 <= row_number <= size:
        raise InvalidVertexError(f"vertex {vertex!r} is off a {size}x{size} board")
    return (size - row_number) * size + col


def action_to_sgf(action: int, size: int) -> str:
    """Two lower-case letters (column, row from the top), or ``""`` for pass."""
    rowcol = _rowcol_or_pass(action, size)
    if rowcol is None:
        return ""
    row, col = rowcol
    return _SGF_LETTERS[col] + _SGF_LETTERS[row]


def sgf_to_action(point: str, size: int) -> int:
    """Parse an SGF point; ``""`` (and ``tt`` on boards up to 19) mean pass."""
    _check_size(size)
    text = point.strip()
    if text == "" or (text == "tt" and size <= 19):
        return size * size
    if len(text) != 2 or any(c not in _SGF_LETTERS for c in text):
        raise InvalidVertexError(f"invalid SGF point {point!r}: expected two lower-case letters")
    col, row = _SGF_LETTERS.index(text[0]), _SGF_LETTERS.index(text[1])
    if col >= size or row >= size:
        raise InvalidVertexError(f"SGF point {point!r} is off a {size}x{size} board")
    return row * size + col


def action_to_point(action: int, size: int) -> int:
    """Padded board index of a point action (kernels only)."""
    row, col = action_to_rowcol(action, size)
    return (row + 1) * (size + 2) + col + 1


def point_to_action(point: int, size: int) -> int:
    """The action of a padded board index that is on the board."""
    row, col = divmod(point, size + 2)
    if not (1 <= row <= size and 1 <= col <= size):
        raise InvalidVertexError(f"padded point {point} is not on a {size}x{size} board")
    return (row - 1) * size + col - 1
