"""Small value types shared by every layer: colours, errors and game outcomes.

Colours are plain ints so that compiled kernels and Python agree on them:
``EMPTY = 0``, ``BLACK = 1``, ``WHITE = 2`` and ``WALL = 3`` (the border of the
padded board). ``opponent(c) == 3 - c`` for the two players.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "EMPTY",
    "BLACK",
    "WHITE",
    "WALL",
    "Color",
    "opponent",
    "EngineError",
    "IllegalMoveError",
    "InvalidVertexError",
    "RulesError",
    "SGFError",
    "GameOverError",
    "Outcome",
]

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3


class Color(enum.IntEnum):
    """A player. ``Color.parse`` accepts what GTP and SGF write (b, black, W, white)."""

    BLACK = BLACK
    WHITE = WHITE

    @property
    def opponent(self) -> "Color":
        return Color(3 - self.value)

    @property
    def letter(self) -> str:
        """``"B"`` or ``"W"``, as SGF and GTP write the colour."""
        return "B" if self is Color.BLACK else "W"

    @classmethod
    def parse(cls, text: str) -> "Color":
        word = text.strip().lower()
        if word in ("b", "black"):
            return cls.BLACK
        if word in ("w", "white"):
            return cls.WHITE
        raise ValueError(f"not a colour: {text!r} (expected b, black, w or white)")


def opponent(color: int) -> int:
    """The other player's colour, for ints as the kernels use them."""
    return 3 - color


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class IllegalMoveError(EngineError, ValueError):
    """A move that the rules forbid. ``reason`` is one short word or phrase."""

    def __init__(self, move: str, reason: str) -> None:
        super().__init__(f"illegal move {move}: {reason}")
        self.move = move
        self.reason = reason


class InvalidVertexError(EngineError, ValueError):
    """Text or a number that does not name a point on this board."""


class RulesError(EngineError, ValueError):
    """A rules description that cannot be parsed or does not fit the game."""


class SGFError(EngineError, ValueError):
    """An SGF record that cannot be read or replayed."""


class GameOverError(EngineError):
    """A move asked for in a game that is over and cannot go on (Gomoku): there is no move to make."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    ``winner`` is ``Color.BLACK``, ``Color.WHITE`` or ``None`` for a draw (jigo,
    full Gomoku board, Chain Reaction's move cap). ``margin`` is the score
    difference in points (always >= 0) when the game was scored; ``None`` for
    resignation, time, a five or an elimination. ``reason`` says which:
    ``"score"``, ``"resign"``, ``"time"``, ``"five"``, ``"full-board"``,
    ``"elimination"`` (Chain Reaction: the loser's last orbs taken), ``"move-cap"``,
    ``"forfeit"``.
    """

    winner: Color | None
    margin: float | None = None
    reason: str = "score"

    def to_sgf(self) -> str:
        """The SGF ``RE`` value: ``B+3.5``, ``W+R``, ``B+T``, ``B+`` or ``0`` for a draw."""
        if self.winner is None:
            return "0"
        suffix = {"resign": "R", "time": "T", "forfeit": "F"}.get(self.reason)
        if suffix is None:
            suffix = "" if self.margin is None else _format_margin(self.margin)
        return f"{self.winner.letter}+{suffix}"

    @classmethod
    def from_sgf(cls, text: str) -> "Outcome | None":
        """Parse an SGF ``RE`` value; ``None`` for unknown (``?``, ``Void``, empty)."""
        value = text.strip()
        upper = value.upper()
        if upper in ("0", "DRAW", "JIGO"):
            return cls(None, 0.0, "score")
        if len(value) < 2 or upper[0] not in "BW" or value[1] != "+":
            return None
        winner = Color.BLACK if upper[0] == "B" else Color.WHITE
        rest = upper[2:]
        reasons = {"R": "resign", "RESIGN": "resign", "T": "time", "TIME": "time", "F": "forfeit",
                   "FORFEIT": "forfeit"}
        if rest in reasons:
            return cls(winner, None, reasons[rest])
        if rest == "":
            return cls(winner, None, "score")
        try:
            return cls(winner, float(rest), "score")
        except ValueError:
            return None

    @classmethod
    def from_lead(cls, lead: float) -> "Outcome":
        """The result of a scored game in which black leads by ``lead`` points (komi included)."""
        if lead == 0:
            return cls(None, 0.0, "score")
        return cls(Color.BLACK if lead > 0 else Color.WHITE, abs(lead), "score")

    def value_for(self, color: int) -> float:
        """+1 if ``color`` won, -1 if it lost, 0 for a draw."""
        if self.winner is None:
            return 0.0
        return 1.0 if int(self.winner) == int(color) else -1.0


def _format_margin(margin: float) -> str:
    return str(int(margin)) if float(margin).is_integer() else f"{margin:g}"
