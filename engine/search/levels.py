"""Playing levels: the player's settings that make it play like a weaker person, from 20 kyu to full strength.

A weaker level is not strong play with random blunders. It plays the way a weaker
person does: every move is drawn from what the network learnt and the search
read (a move's visits beyond its first plus its prior, the priors widened
by ``root_temperature``, sharpened by ``temperature``), it reads less (fewer ``visits``), and it has local blind
spots: at each move a ``blind_spots`` share of the board, in blocks of a few
points (:func:`blind_spots`), is hidden from its search, as a person overlooks a
corner while reading another. A beginner also fails to see that stones can be
taken: a beginner's level hides the last liberty of a chain in atari, the
capture or the escape, with probability ``overlooked_ataris``
(:func:`overlooked_ataris`).

:data:`LEVELS` is the one table of every level's settings, weakest first; ``full``
changes nothing. The ranks are names, not measurements: docs/gtp.md (*Levels*)
says what has been measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from engine.core.game import Game
    from engine.core.position import Position
    from engine.search.mcts import SearchResult

__all__ = ["Level", "LEVELS", "FULL_STRENGTH", "level_named", "rank_value", "nearest_level", "blind_spots",
           "without_blind_spots", "overlooked_ataris", "without_overlooked_ataris", "seen_at_level"]

EVERY_MOVE = 1 << 20
"""``temperature_moves`` of a level: more moves than any game has, so every move is drawn."""
FULL_STRENGTH = "full"


@dataclass(frozen=True)
class Level:
    """One level's settings (see the module docstring); ``visits`` None: the player's own settings stay."""

    name: str
    visits: int | None = None
    temperature: float = 1.0
    root_temperature: float = 1.0
    blind_spots: float = 0.0
    overlooked_ataris: float = 0.0

    def player_settings(self) -> dict[str, Any]:
        """The :class:`~engine.search.config.PlayerConfig` fields this level sets (none at full strength)."""
        if self.visits is None:
            return {}
        return {"visits": self.visits, "playouts": None, "seconds": None, "temperature": self.temperature,
                "temperature_moves": EVERY_MOVE, "near_best": 0.0, "root_temperature": self.root_temperature,
                "blind_spots": self.blind_spots, "overlooked_ataris": self.overlooked_ataris,
                "draw_by_reading": True}

    def move_policy(self, result: SearchResult) -> np.ndarray:
        """``float32[N*N+1]``: the distribution this level's move is drawn from after ``result``, its search of
        the position (the player draws from it; full strength plays the most visited move)."""
        return result.policy(0.0 if self.visits is None else self.temperature, reading=True)

    @property
    def rank(self) -> float:
        """The level's rank on :func:`rank_value`'s scale (full strength: above every named rank)."""
        return float("inf") if self.visits is None else rank_value(self.name)


LEVELS: tuple[Level, ...] = (
    Level("20k", visits=4, temperature=1.0, root_temperature=1.15, blind_spots=0.4, overlooked_ataris=0.5),
    Level("15k", visits=8, temperature=1.0, root_temperature=1.1, blind_spots=0.3),
    Level("10k", visits=16, temperature=1.0, root_temperature=1.05, blind_spots=0.2),
    Level("6k", visits=32, temperature=0.8, root_temperature=1.0, blind_spots=0.12),
    Level("3k", visits=64, temperature=0.6, root_temperature=1.0, blind_spots=0.06),
    Level("1d", visits=128, temperature=0.5, root_temperature=1.0, blind_spots=0.03),
    Level(FULL_STRENGTH),
)
"""Every level, weakest first. Uncalibrated: the ranks are what each level is meant to be."""


def level_named(name: str) -> Level:
    """The level called ``name`` (``20k`` ... ``1d``, ``full``; any case); ValueError naming the levels."""
    for level in LEVELS:
        if level.name == name.strip().lower():
            return level
    raise ValueError(f"unknown level {name!r}: expected one of {', '.join(level.name for level in LEVELS)}")


def rank_value(rank: str) -> float:
    """A Go rank as players write it (``20k``, ``1k``, ``1d``, ``9d``) on one scale: ``1 - N`` for N kyu, N for N
    dan (1k is 0, 1d is 1); ValueError for anything else."""
    text = rank.strip().lower()
    number, unit = text[:-1], text[-1:]
    if not number.isdigit() or unit not in ("k", "d") or int(number) < 1:
        raise ValueError(f"not a rank: {rank!r} (expected e.g. 20k, 1k, 1d, 9d)")
    return 1 - int(number) if unit == "k" else int(number)


def nearest_level(rank: float) -> Level:
    """The level nearest a rank on :func:`rank_value`'s scale: a named one, or full strength above the strongest
    named level by more than a rank."""
    named = [level for level in LEVELS if level.visits is not None]
    if rank > named[-1].rank + 1:
        return level_named(FULL_STRENGTH)
    return min(named, key=lambda level: abs(level.rank - rank))


def blind_spots(size: int, share: float, rng: np.random.Generator) -> np.ndarray | None:
    """``bool[N*N+1]``: the actions a search may see, with about ``share`` of an N x N board hidden in square blocks
    (sides of ``max(2, N // 6)`` points: 3 on 19x19, 2 on 9x9), each hidden with probability ``share``; pass
    is always seen. None for ``share`` 0 (everything is seen)."""
    import numpy as np  # here, so that the CLI reads the table without importing numpy

    if share <= 0:
        return None
    block = max(2, size // 6)
    blocks = -(-size // block)
    hidden = rng.random((blocks, blocks)) < share
    board = np.kron(hidden, np.ones((block, block), dtype=bool))[:size, :size]
    return np.append(~board.reshape(-1), True)


def without_blind_spots(allowed: np.ndarray | None, legal: np.ndarray, share: float,
                        rng: np.random.Generator) -> np.ndarray | None:
    """The root actions a search may see (``bool[N*N+1]``; ``allowed`` None: every one) less fresh blind spots of
    ``share`` (:func:`blind_spots`), unless they would hide every ``legal`` move that ``allowed`` leaves."""
    size = round((legal.shape[0] - 1) ** 0.5)
    return _narrowed(allowed, blind_spots(size, share, rng), legal)


def overlooked_ataris(position: Position, share: float, rng: np.random.Generator) -> np.ndarray | None:
    """``bool[N*N+1]``: the actions a search may see, with the last liberty of every chain in atari (either
    colour's: the capture and the escape) hidden with probability ``share``, each point drawn apart, as a
    beginner fails to notice that stones can be taken. None for ``share`` 0 or a game that is not Go."""
    import numpy as np

    if share <= 0 or position.rules.game != "go":
        return None
    board = position.board()
    in_atari = np.pad((board != 0) & (position.liberties() == 1), 1)
    touches = in_atari[:-2, 1:-1] | in_atari[2:, 1:-1] | in_atari[1:-1, :-2] | in_atari[1:-1, 2:]
    hidden = touches & (board == 0) & (rng.random(board.shape) < share)
    return np.append(~hidden.reshape(-1), True)


def without_overlooked_ataris(allowed: np.ndarray | None, position: Position, legal: np.ndarray, share: float,
                              rng: np.random.Generator) -> np.ndarray | None:
    """The root actions a search may see (as :func:`without_blind_spots`) less the ataris it overlooks
    (:func:`overlooked_ataris`), unless they would hide every ``legal`` move that ``allowed`` leaves."""
    return _narrowed(allowed, overlooked_ataris(position, share, rng), legal)


def seen_at_level(allowed: np.ndarray | None, game: Game, blind_share: float, atari_share: float,
                  rng: np.random.Generator) -> np.ndarray | None:
    """The root actions a level's search of ``game`` may see: ``allowed`` less fresh blind spots of
    ``blind_share`` (:func:`without_blind_spots`), then less the ataris it overlooks with ``atari_share``
    (:func:`without_overlooked_ataris`); ``allowed`` itself where both shares are 0. The one place the player
    and the analysis engine's human-like levels narrow a root."""
    if blind_share <= 0 and atari_share <= 0:
        return allowed
    legal = game.legal_mask()
    allowed = without_blind_spots(allowed, legal, blind_share, rng)
    return without_overlooked_ataris(allowed, game.position, legal, atari_share, rng)


def _narrowed(allowed: np.ndarray | None, seen: np.ndarray | None, legal: np.ndarray) -> np.ndarray | None:
    """``allowed`` less what is not ``seen`` (None: everything is), unless no ``legal`` move would be left."""
    if seen is None:
        return allowed
    narrowed = seen if allowed is None else seen & allowed
    return narrowed if (narrowed & legal).any() else allowed
