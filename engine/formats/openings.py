"""Opening lists: Gomoku openings as Piskvork tournaments give them, stones as offsets from the centre.

One opening a line, ``dx,dy`` a stone, stones separated by commas
(``-10,-9, -8,-7, -5,-5``): column and row offsets from the board's centre
point (``size // 2`` each way), played in order from black, colours
alternating. Blank lines and lines starting with ``#`` are skipped. An
opening whose stones do not all lie on the board, or lie further than
``within`` points from the centre, is left out, so one list serves every board.

Openings are kept as their text (``"-1,0, 1,1, 0,2"``): it does not depend on
the board, so a run's settings can hold them; :func:`opening_actions` places
one on a board.
"""

from __future__ import annotations

import os
import re

__all__ = ["read_openings", "opening_actions", "fitting_openings"]
_NUMBER = re.compile(r"^[+-]?\d{1,3}$")
MAX_OPENINGS_BYTES = 4 << 20


def _offsets(text: str) -> list[tuple[int, int]]:
    """The ``(dx, dy)`` stones of one line; ValueError if it does not read or names a stone twice."""
    fields = [field.strip() for field in text.split(",")]
    if len(fields) % 2 or not all(_NUMBER.match(field) for field in fields):
        raise ValueError(f"expected 'dx,dy' pairs of whole numbers, not {text.strip()[:60]!r}")
    offsets = [(int(dx), int(dy)) for dx, dy in zip(fields[::2], fields[1::2])]
    if len(set(offsets)) != len(offsets):
        raise ValueError(f"{text.strip()[:60]!r} names a point twice")
    return offsets


def _actions(offsets: list[tuple[int, int]], size: int) -> tuple[int, ...] | None:
    """The stones as actions on a ``size`` board, None where one is off it."""
    centre = size // 2
    points = [(centre + dx, centre + dy) for dx, dy in offsets]
    if not all(0 <= column < size and 0 <= row < size for column, row in points):
        return None
    return tuple(row * size + column for column, row in points)


def opening_actions(text: str, size: int) -> tuple[int, ...]:
    """The stones of one opening line as actions on a ``size`` board, black's first (ValueError if it does
    not read, names a point twice or a point off the board)."""
    actions = _actions(_offsets(text), size)
    if actions is None:
        raise ValueError(f"opening {text.strip()[:60]!r} does not fit the {size}x{size} board")
    return actions


def fitting_openings(openings: tuple[str, ...], size: int) -> tuple[str, ...]:
    """The openings (lines that read) whose stones all lie on a ``size`` board, in order."""
    return tuple(text for text in openings if _actions(_offsets(text), size) is not None)


def read_openings(path: str | os.PathLike[str], size: int | None = None,
                  within: int | None = None) -> tuple[str, ...]:
    """The openings of the list at ``path`` that fit a ``size`` board (any board when None) with every offset
    at most ``within`` (when given), in file order, as text. ValueError naming the line for one that does not
    read; an empty result is an error too (a list for another board, or a wrong file)."""
    with open(path, "rb") as stream:
        data = stream.read(MAX_OPENINGS_BYTES + 1)
    if len(data) > MAX_OPENINGS_BYTES:
        raise ValueError(f"{path}: over {MAX_OPENINGS_BYTES >> 20} MB: not an opening list")
    openings = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            offsets = _offsets(line)
        except ValueError as error:
            raise ValueError(f"{path}, line {number}: {error}") from error
        if within is not None and max(max(abs(dx), abs(dy)) for dx, dy in offsets) > within:
            continue
        if size is None or _actions(offsets, size) is not None:
            openings.append(", ".join(f"{dx},{dy}" for dx, dy in offsets))
    if not openings:
        board = f" the {size}x{size} board" if size is not None else ""
        limit = f" within {within} points of the centre" if within is not None else ""
        raise ValueError(f"{path}: no opening fits{board}{limit}")
    return tuple(openings)
