"""``Position``: the cheap, copyable game state that the search replays on.

A Position knows the rules, the stones, whose turn it is, simple ko and the
last few boards. It does not know the game's history, so positional and
situational superko, undo and resignation belong to :class:`engine.core.game.Game`.
``play_unchecked`` is the fast path: its caller guarantees legality (a mask
from ``legal_mask`` or a verdict from ``check``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

import numpy as np

from engine.core.board import (
    CAPTURED_BLACK,
    FORBIDDEN,
    GAME_OVER,
    HASH,
    HEAD,
    HISTORY,
    HISTORY_LEN,
    KO,
    KO_RECAPTURE,
    LAST,
    LEGAL,
    LIBS,
    MOVES,
    NO_PASS,
    OCCUPIED,
    ORBS,
    PASS_POINT,
    PASSES,
    RING,
    STONES,
    SUICIDE,
    TO_PLAY,
    WINNER,
    geometry,
    new_info,
)
from engine.core.chain_reaction import chain_reaction_set
from engine.core.dispatch import (
    check_move,
    fill_legal_mask,
    game_result,
    is_terminal,
    pack_rules,
    place_point,
    play_point,
)
from engine.core.rules import CHAIN_REACTION, Rules
from engine.core.types import BLACK, EMPTY, WHITE, Color, EngineError, IllegalMoveError, Outcome

__all__ = ["Position", "PositionBatch", "REASONS", "END_REASONS", "GAME_OVER", "SUPERKO", "NO_PASS", "OFF_BOARD"]

# Verdicts beyond the kernels' (``engine.core.board``): a Game checks superko, Python the action's range.
SUPERKO = 7
OFF_BOARD = 8

REASONS = {
    OCCUPIED: "occupied",
    SUICIDE: "suicide",
    KO_RECAPTURE: "ko",
    FORBIDDEN: "forbidden in renju",
    GAME_OVER: "game over",
    SUPERKO: "superko",
    NO_PASS: "there is no pass in this game",
    OFF_BOARD: "off board",
}

MAX_ORBS = 999
"""Most orbs a setup puts on one cell (Chain Reaction): far above any critical mass, within the counts' int16."""

END_REASONS = {"gomoku": ("five", "full-board"), CHAIN_REACTION: ("elimination", "move-cap")}
"""How a game other than Go ends on the board: the :class:`Outcome` reason of a win, and of a draw."""


# One packed spec per rules value, shared by every Position under those rules and never written.
_packed_rules = functools.lru_cache(maxsize=None)(pack_rules)


class Position:
    """The state of a board. Copy with :meth:`copy`; copies share nothing mutable.

    Every rules question goes to the kernels of :mod:`engine.core.dispatch` with
    the rules packed once (``_spec``) and the komi.
    """

    __slots__ = ("rules", "geo", "cells", "info", "_spec")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.geo = geometry(rules.size)
        self.cells = self.geo.empty_cells.copy()
        self.info = new_info()
        self._spec = _packed_rules(rules)

    @classmethod
    def from_board(cls, rules: Rules, board: np.ndarray, to_play: int = BLACK,
                   orbs: np.ndarray | None = None) -> "Position":
        """A position with the given stones (``int[N, N]`` of EMPTY/BLACK/WHITE), rebuilt from scratch.

        Chains, liberties and the hash are computed as setup stones; no move is
        counted and there is no ko. Used for SGF setup and for checking the
        incremental state of a played game against a rebuilt one. In Chain
        Reaction a stone is an orb, or ``orbs[N, N]`` of them: at least one on
        each owned cell, none on empty cells. A cell may hold its critical mass
        or more, as the last chain of a finished game leaves some; it explodes
        when it next receives an orb.
        """
        position = cls(rules)
        stones = np.asarray(board).reshape(-1)
        if stones.shape[0] != rules.num_points or not np.isin(stones, (EMPTY, BLACK, WHITE)).all():
            raise ValueError(f"board must be {rules.size}x{rules.size} of 0, 1 and 2")
        for action in np.flatnonzero(stones):
            position.place(int(action), int(stones[action]))
        if orbs is not None:
            position._set_orbs(stones, np.asarray(orbs).reshape(-1))
        position.info[TO_PLAY] = int(to_play)
        return position

    def _set_orbs(self, stones: np.ndarray, orbs: np.ndarray) -> None:
        """Give the cells of a fresh setup ``orbs`` (flat) orbs each, after checking the counts fit the rules."""
        if self.rules.game != CHAIN_REACTION:
            raise ValueError("only chain-reaction positions have orbs")
        if (orbs.shape != stones.shape or ((stones == EMPTY) != (orbs == 0)).any() or (orbs < 0).any()
                or (orbs > MAX_ORBS).any()):
            raise ValueError(f"orbs must be {self.size}x{self.size}: 0 on empty cells, 1 to {MAX_ORBS} on owned cells")
        geo = self.geo
        for action in np.flatnonzero(stones):
            chain_reaction_set(self.cells, self.info, geo.zobrist, int(geo.action_point[action]), int(stones[action]),
                               int(orbs[action]))

    @classmethod
    def view(cls, rules: Rules, cells: np.ndarray, info: np.ndarray) -> "Position":
        """A Position over existing arrays (no copy): the search's leaf batch slots."""
        position = cls.__new__(cls)
        position.rules = rules
        position.geo = geometry(rules.size)
        position.cells = cells
        position.info = info
        position._spec = _packed_rules(rules)
        return position

    def copy(self) -> "Position":
        other = Position.__new__(Position)
        other.rules = self.rules
        other.geo = self.geo
        other.cells = self.cells.copy()
        other.info = self.info.copy()
        other._spec = self._spec
        return other

    # ------------------------------------------------------------ properties
    @property
    def size(self) -> int:
        return self.rules.size

    @property
    def to_play(self) -> Color:
        return Color(int(self.info[TO_PLAY]))

    @to_play.setter
    def to_play(self, color: int) -> None:
        """Hand the move to ``color``; a pending ko bound the other player, so it is void if that changes."""
        color = int(Color(color))
        if color != self.info[TO_PLAY]:
            self.info[KO] = 0
        self.info[TO_PLAY] = color

    @property
    def move_number(self) -> int:
        """Moves played so far, passes included, setup stones not."""
        return int(self.info[MOVES])

    @property
    def passes(self) -> int:
        """Consecutive passes that ended the move list."""
        return int(self.info[PASSES])

    @property
    def hash(self) -> int:
        """Zobrist hash of the stones alone (positional superko's key; with their orbs in Chain Reaction)."""
        return int(self.info[HASH])

    @property
    def key(self) -> int:
        """Hash of the whole state that decides the next move: stones, side to move, ko point."""
        key = int(self.info[HASH]) ^ int(self.geo.zobrist[3, int(self.info[KO])])
        return key ^ int(self.geo.zobrist[0, 0]) if self.info[TO_PLAY] == WHITE else key

    @property
    def ko_action(self) -> int | None:
        """The point the side to move may not play because of simple ko, or None."""
        ko = int(self.info[KO])
        return int(self.geo.point_action[ko]) if ko else None

    @property
    def last_action(self) -> int | None:
        """The last move as an action (pass is ``N*N``), None before the first move."""
        last = int(self.info[LAST])
        if last < 0:
            return None
        return self.rules.pass_action if last == PASS_POINT else int(self.geo.point_action[last])

    def captures(self, color: int) -> int:
        """Stones of ``color`` captured so far (the opponent's prisoners)."""
        return int(self.info[CAPTURED_BLACK + int(color) - 1])

    @property
    def winner(self) -> Color | None:
        """Gomoku: the colour that made k in a row; Chain Reaction: the colour that took the other's last
        orbs; if any."""
        winner = int(self.info[WINNER])
        return Color(winner) if winner else None

    # ----------------------------------------------------------------- views
    def board(self) -> np.ndarray:
        """``int16[N, N]`` of EMPTY / BLACK / WHITE, row 0 at the top."""
        n = self.rules.size
        return self.cells[STONES, self.geo.action_point].reshape(n, n)

    def orbs(self) -> np.ndarray:
        """``int16[N, N]``: Chain Reaction's orbs on each cell (0 on empty cells), row 0 at the top; their
        owners are :meth:`board`."""
        if self.rules.game != CHAIN_REACTION:
            raise EngineError(f"{self.rules.game} has no orbs")
        n = self.rules.size
        return self.cells[ORBS, self.geo.action_point].reshape(n, n)

    def liberties(self) -> np.ndarray:
        """``int16[N, N]``: liberties of the chain through each stone, 0 on empty points (Go)."""
        n = self.rules.size
        points = self.geo.action_point
        libs = self.cells[LIBS, self.cells[HEAD, points]]
        return np.where(self.cells[STONES, points] == EMPTY, 0, libs).reshape(n, n)

    def history(self) -> np.ndarray:
        """``int16[HISTORY_LEN, N, N]``: the boards after the last moves, current first.

        Entries before the start of the game are empty boards.
        """
        n = self.rules.size
        slots = (int(self.info[RING]) - np.arange(HISTORY_LEN)) % HISTORY_LEN
        return self.cells[HISTORY + slots][:, self.geo.action_point].reshape(HISTORY_LEN, n, n)

    # ---------------------------------------------------------------- moves
    def _point(self, action: int) -> int:
        if not 0 <= action <= self.rules.num_points:
            raise IllegalMoveError(str(action), REASONS[OFF_BOARD])
        return PASS_POINT if action == self.rules.num_points else int(self.geo.action_point[action])

    def _color(self, color: int | None) -> int:
        return int(self.info[TO_PLAY]) if color is None else int(color)

    def check(self, action: int, color: int | None = None) -> int:
        """Verdict for a move: ``LEGAL`` (0) or a key of :data:`REASONS` (superko not included)."""
        if not 0 <= action <= self.rules.num_points:
            return OFF_BOARD
        return int(check_move(self.cells, self.info, self.geo.width, self._point(action), self._color(color),
                              self._spec))

    def is_legal(self, action: int, color: int | None = None) -> bool:
        return self.check(action, color) == LEGAL

    def legal_mask(self, color: int | None = None) -> np.ndarray:
        """``bool[N*N + 1]``: legal actions under simple ko (pass last; never legal in Gomoku)."""
        mask = np.empty(self.rules.num_actions, dtype=np.bool_)
        fill_legal_mask(self.cells, self.info, self.geo.width, self.geo.action_point, self._color(color), self._spec,
                        mask)
        return mask

    def legal_actions(self, color: int | None = None) -> np.ndarray:
        return np.flatnonzero(self.legal_mask(color))

    def play_unchecked(self, action: int, color: int | None = None) -> None:
        """Play ``action`` for ``color`` (default: the side to move). The caller vouches it is legal."""
        play_point(self.cells, self.info, self.geo.zobrist, self.geo.width, self._point(action), self._color(color),
                   self._spec)

    def place(self, action: int, color: int) -> None:
        """Put a setup stone on an empty point (no capture, no move counted, ko cleared)."""
        point = self._point(action)
        if point == PASS_POINT or self.cells[STONES, point] != EMPTY:
            raise IllegalMoveError(str(action), "setup stones go on empty points")
        place_point(self.cells, self.info, self.geo.zobrist, self.geo.width, point, int(color), self._spec)

    # ------------------------------------------------------------------ end
    @property
    def is_over(self) -> bool:
        """Two passes or the move cap (Go); a line of k, a full board or the cap (Gomoku); a player's last
        orbs taken or the cap (Chain Reaction)."""
        return bool(is_terminal(self.cells, self.info, self._spec))

    def outcome(self) -> Outcome | None:
        """The result if the game is over by the rules alone (every stone alive), else None."""
        if not self.is_over:
            return None
        winner, lead = game_result(self.cells, self.info, self.geo.width, self.geo.action_point, self._spec,
                                   float(self.rules.komi))
        if self.rules.game == "go":
            return Outcome.from_lead(float(lead))
        win, draw = END_REASONS[self.rules.game]
        return Outcome(Color(int(winner)), None, win) if winner else Outcome(None, 0.0, draw)

    def __repr__(self) -> str:
        """One line; ``engine.formats.diagram.to_diagram`` draws the board."""
        return (f"Position({self.rules}, to_play={self.to_play.letter}, moves={int(self.info[MOVES])}, "
                f"key={self.key:#x})")


class PositionBatch:
    """B positions of one game and size, stacked as the kernels' arrays (no per-position objects).

    ``cells: int16[B, ROWS, P]`` and ``info: int64[B, INFO_LEN]``. The search
    keeps its leaf batch this way; evaluators and encoders read it directly.
    Indexing gives a :class:`Position` view; slicing gives a batch view.
    """

    __slots__ = ("rules", "cells", "info")

    def __init__(self, rules: Rules, cells: np.ndarray, info: np.ndarray) -> None:
        if cells.ndim != 3 or info.ndim != 2 or cells.shape[0] != info.shape[0]:
            raise ValueError(f"a batch needs cells[B, ROWS, P] and info[B, INFO_LEN], not {cells.shape}, "
                             f"{info.shape}")
        self.rules = rules
        self.cells = cells
        self.info = info

    @classmethod
    def stack(cls, positions: "Sequence[Position] | PositionBatch") -> "PositionBatch":
        """The positions as one batch (copied), or the batch itself."""
        if isinstance(positions, PositionBatch):
            return positions
        if not positions:
            raise ValueError("an empty batch")
        rules = positions[0].rules
        if any(p.rules.game != rules.game or p.rules.size != rules.size for p in positions):
            raise ValueError("a batch holds positions of one game and board size")
        return cls(rules, np.stack([p.cells for p in positions]), np.stack([p.info for p in positions]))

    def __len__(self) -> int:
        return self.cells.shape[0]

    def __getitem__(self, index: "int | slice") -> "Position | PositionBatch":
        if isinstance(index, slice):
            return PositionBatch(self.rules, self.cells[index], self.info[index])
        return Position.view(self.rules, self.cells[index], self.info[index])

    def __iter__(self) -> "Iterator[Position]":
        return (Position.view(self.rules, self.cells[i], self.info[i]) for i in range(len(self)))

    def keys(self) -> np.ndarray:
        """``int64[B]``: each position's :attr:`Position.key` (stones, side to move, ko point)."""
        zobrist = geometry(self.rules.size).zobrist
        keys = self.info[:, HASH] ^ zobrist[3, self.info[:, KO]]
        return np.where(self.info[:, TO_PLAY] == WHITE, keys ^ zobrist[0, 0], keys)

    def legal_masks(self) -> np.ndarray:
        """``bool[B, N*N + 1]``: each position's legal actions under simple ko."""
        return np.stack([position.legal_mask() for position in self])
