"""The ``Encoder`` interface: positions in, feature planes out.

An encoder turns a position, or a batch of them, into the planes a network
reads: ``encode(state) -> [C, N, N]`` and ``encode_batch(states) -> [B, C, N, N]``,
row 0 at the top and column 0 at the left, as actions count
(``action = row * N + col``). Planes are from the side to move's point of view:
"own" stones are the stones of the player about to move.

Planes hold small exact integers in the encoder's declared ``dtype`` (``uint8``
for 0/1 planes, ``int8`` for ``oneplane``'s -1/0/+1); cast them to the
network's float type on the device, which moves four times less memory.

Ko and superko. A :class:`~engine.core.position.Position` knows only simple ko (the
point its ``ko_action`` names, while that ko is active for the side to move).
The ko plane of the encoders that have one adds the points that superko
forbids when the state is a :class:`~engine.core.game.Game` (which knows the
history), or when the caller passes ``banned``, a ``bool[N*N]`` mask (one per
position in a batch) of extra points the side to move may not play because of
ko; the search, whose positions carry no game history, passes that mask if it
tracks superko itself.

The per-point work of every encoder is one ``@njit(cache=True)`` kernel over
the whole batch, reading the padded arrays of ``engine.core.board`` directly; the
only Python loop is the one that stacks the B positions' arrays, and
``encode_arrays`` skips even that for a caller that keeps its batch stacked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from engine.core.board import INFO_LEN, ROWS, Geometry, geometry
from engine.core.game import Game
from engine.core.position import Position, PositionBatch
from engine.core.rules import Rules
from engine.core.types import EngineError

__all__ = ["Encoder", "EncoderError", "State", "superko_banned"]

State = Position | Game
"""What an encoder accepts: a Position, or a Game (whose superko history then counts)."""


class EncoderError(EngineError, ValueError):
    """An unknown encoder, one that does not fit the game or board, or a bad input to encode."""


def superko_banned(game: Game) -> np.ndarray:
    """``bool[N*N]``: points the side to move may not play because of superko alone.

    These are the points that simple ko and the other rules allow but the
    game's positional or situational superko forbids; empty under simple ko,
    in Gomoku and once the game is over.
    """
    rules = game.rules
    if rules.game != "go" or rules.ko == "simple" or game.is_over:
        return np.zeros(rules.num_points, dtype=np.bool_)
    allowed = game.position.legal_mask()[:-1]
    return allowed & ~game.legal_mask()[:-1]


class Encoder:
    """Base class of the encoders: one subclass per encoding, bound to one rules value.

    Subclasses set the class attributes (planes are ``uint8`` 0/1 unless they say otherwise) and implement
    :meth:`_fill`, a kernel call that writes the planes of a stacked batch into a zeroed output.
    """

    name: ClassVar[str]
    num_planes: ClassVar[int]
    dtype: ClassVar[np.dtype] = np.dtype(np.uint8)
    games: ClassVar[tuple[str, ...]]
    uses_ko: ClassVar[bool] = False   # whether ``banned`` (superko) points are part of the planes
    rows: ClassVar[int] = ROWS        # the kernel reads ``cells[:, :rows]`` only (STONES is row 0)

    def __init__(self, rules: Rules) -> None:
        if rules.game not in self.games:
            raise EncoderError(f"encoder {self.name!r} does not fit {rules.game} (it fits "
                               f"{', '.join(self.games)})")
        self.rules = rules
        self.size = rules.size
        self.geo: Geometry = geometry(rules.size)

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(C, N, N)``: the shape of one encoded position."""
        return (self.num_planes, self.size, self.size)

    def encode(self, state: State, banned: np.ndarray | None = None) -> np.ndarray:
        """``[C, N, N]`` planes of one position (or of a Game's current position).

        ``banned`` (``bool[N*N]``, optional) adds points that ko forbids to the
        side to move, for the encoders that have a ko plane.
        """
        position, extra = self._unpack(state)
        masks = self._banned_batch(1, [extra], None if banned is None else np.asarray(banned)[None])
        return self._run(position.cells[None], position.info[None], masks)[0]

    def encode_batch(self, states: Sequence[State], banned: np.ndarray | None = None) -> np.ndarray:
        """``[B, C, N, N]`` planes of a batch; ``banned`` is an optional ``bool[B, N*N]``.

        ``states`` may be a :class:`~engine.core.position.PositionBatch`, read in place.
        """
        if isinstance(states, PositionBatch):
            self._check_rules(states.rules)
            return self.encode_arrays(states.cells, states.info, banned)
        if len(states) == 0:
            return np.zeros((0, *self.shape), dtype=self.dtype)
        unpacked = [self._unpack(state) for state in states]
        batch, rows = len(states), self.rows
        # one concatenate of the rows the kernel reads is the cheapest way to stack (a copy is unavoidable)
        cells = np.concatenate([position.cells[:rows] for position, _ in unpacked])
        info = np.concatenate([position.info for position, _ in unpacked])
        masks = self._banned_batch(batch, [extra for _, extra in unpacked], banned)
        return self._run(cells.reshape(batch, rows, -1), info.reshape(batch, INFO_LEN), masks)

    def encode_arrays(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray | None = None) -> np.ndarray:
        """``[B, C, N, N]`` planes of positions already stacked as the kernels' arrays.

        ``cells: int16[B, ROWS, P]`` and ``info: int64[B, INFO_LEN]`` hold B
        positions of this encoder's game and size (as a search keeps its leaf
        batch); ``banned`` is an optional ``bool[B, N*N]``. Nothing is copied.
        """
        cells, info = np.asarray(cells), np.asarray(info)
        batch = cells.shape[0] if cells.ndim == 3 else -1
        if (cells.shape != (batch, ROWS, self.geo.num_points) or info.shape != (batch, INFO_LEN)
                or cells.dtype != np.int16 or info.dtype != np.int64):
            raise EncoderError(f"expected cells int16[B, {ROWS}, {self.geo.num_points}] and info "
                               f"int64[B, {INFO_LEN}], not {cells.dtype}{list(cells.shape)} and "
                               f"{info.dtype}{list(info.shape)}")
        return self._run(cells, info, self._banned_batch(batch, [None] * batch, banned))

    # ------------------------------------------------------------- internals
    def _unpack(self, state: State) -> tuple[Position, np.ndarray | None]:
        """The position to encode and, for a Game under superko, its superko-banned points."""
        if isinstance(state, Game):
            extra = superko_banned(state) if self.uses_ko else None
            position = state.position
        elif isinstance(state, Position):
            extra, position = None, state
        else:
            raise EncoderError(f"can only encode a Position or a Game, not {type(state).__name__}")
        self._check_rules(position.rules)
        return position, extra

    def _check_rules(self, rules: Rules) -> None:
        if rules.game != self.rules.game or rules.size != self.size:
            raise EncoderError(f"encoder {self.name!r} was built for {self.rules.game} {self.size}x{self.size}, "
                               f"not {rules.game} {rules.size}x{rules.size}")

    def _banned_batch(self, batch: int, extras: list[np.ndarray | None],
                      banned: np.ndarray | None) -> np.ndarray:
        """``bool[B, N*N]`` of the extra ko points, or ``bool[0, N*N]`` when there are none."""
        points = self.rules.num_points
        if not self.uses_ko or (banned is None and all(extra is None for extra in extras)):
            return np.zeros((0, points), dtype=np.bool_)
        masks = np.zeros((batch, points), dtype=np.bool_)
        if banned is not None:
            banned = np.asarray(banned, dtype=np.bool_)
            if banned.shape != (batch, points):
                raise EncoderError(f"banned must have shape {(batch, points)} (bool per point), not {banned.shape}")
            masks |= banned
        for i, extra in enumerate(extras):
            if extra is not None:
                masks[i] |= extra
        return masks

    def _run(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray) -> np.ndarray:
        out = np.zeros((cells.shape[0], self.num_planes, self.rules.num_points), dtype=self.dtype)
        self._fill(cells, info, banned, out)
        return out.reshape(cells.shape[0], *self.shape)

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        """Write the planes of ``cells[B, >= rows, P]`` / ``info[B, INFO_LEN]`` into zeroed ``out[B, C, N*N]``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, planes={self.num_planes}, rules={str(self.rules)!r})"
