"""``Game``: a Position plus its history, superko, undo, handicap and the result.

Every move goes through :meth:`Game.play`, which checks it completely (simple
ko, positional or situational superko, renju, the opponent's cells in Chain
Reaction) and raises
:class:`~engine.core.types.IllegalMoveError` with the reason, changing nothing.
``play`` honours the colour it is given, so moves out of turn are fine (GTP).

A game starts empty, from setup stones (:meth:`Game.setup`, handicap) or from a
board as it stands (:meth:`Game.from_board`). Two passes or the move cap end a Go
game; GTP knows no end of game, so :meth:`Game.play_on` lets it go on with its
moves kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.core.board import LEGAL, TO_PLAY
from engine.core.coords import action_to_gtp
from engine.core.go import go_hash_after
from engine.core.jit import njit
from engine.core.position import GAME_OVER, OFF_BOARD, REASONS, SUPERKO, Position
from engine.core.rules import Rules
from engine.core.scoring import ownership, score
from engine.core.types import BLACK, WHITE, Color, EngineError, IllegalMoveError, Outcome

__all__ = ["Game", "Move"]


@dataclass(frozen=True)
class Move:
    """One move of a game record: who played which action (``N*N`` is pass)."""

    color: Color
    action: int


@njit(cache=True)
def _hashes_after(cells, info, zobrist, W, points, color, out):
    for i in range(points.shape[0]):
        out[i] = go_hash_after(cells, info, zobrist, W, points[i], color)


class Game:
    """A game under ``rules``: setup (handicap, SGF), moves, undo, outcome."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.moves: list[Move] = []
        self.handicap = 0
        self.resigned: Color | None = None
        self._played_on: list[int] = []  # move numbers (from 0) before which play went on after the end
        self._start_from(Position(rules))

    @classmethod
    def from_board(cls, rules: Rules, stones: np.ndarray, to_play: int, orbs: np.ndarray | None = None) -> "Game":
        """A game that starts from ``stones`` with ``to_play`` to move (and Chain Reaction's ``orbs``, see
        :meth:`Position.from_board`).

        ``stones`` is ``int[N, N]`` or ``int[N*N]`` of EMPTY, BLACK and WHITE, row
        0 at the top as :meth:`Position.board` gives it. The stones are the setup:
        nothing of how they came about carries over (moves, captures, a ko,
        earlier positions for superko). This is how a front end takes a board
        as it stands (Gomocup ``BOARD``, a change of rules, a diagram). Raises
        ValueError for a board of another size or with other values.
        """
        game = cls(rules)
        game._start_from(Position.from_board(rules, stones, to_play, orbs))
        return game

    def _start_from(self, position: Position) -> None:
        """Make ``position`` the start of the record: its stones are the setup stones."""
        self.position = position
        self.setup_stones = [Move(Color(int(c)), int(a)) for a, c in enumerate(position.board().reshape(-1)) if c]
        self._start = position.copy()
        self._seen = [self._superko_key(position)]
        self._seen_set = set(self._seen)

    # --------------------------------------------------------------- queries
    @property
    def to_play(self) -> Color:
        return self.position.to_play

    @property
    def start_to_play(self) -> Color:
        """The side to move after the setup, before the first move."""
        return self._start.to_play

    @property
    def is_over(self) -> bool:
        return self.resigned is not None or self.position.is_over

    def copy(self) -> "Game":
        other = Game.__new__(Game)
        other.rules = self.rules
        other.position = self.position.copy()
        other.moves = list(self.moves)
        other.setup_stones = list(self.setup_stones)
        other.handicap = self.handicap
        other.resigned = self.resigned
        other._played_on = list(self._played_on)
        other._start = self._start.copy()
        other._seen = list(self._seen)
        other._seen_set = set(self._seen_set)
        return other

    def with_side_to_move(self, color: int) -> "Game":
        """A copy in which ``color`` moves next (GTP's moves out of turn); a pending ko is void."""
        other = self.copy()
        other.position.to_play = Color(color)
        return other

    def _superko_key(self, position: Position) -> int:
        """Positional superko compares stones; situational also the side to move."""
        key = position.hash
        if self.rules.ko == "situational" and position.info[TO_PLAY] == WHITE:
            key ^= int(position.geo.zobrist[0, 0])
        return key

    def check(self, action: int, color: int | None = None) -> int:
        """``LEGAL`` (0) or the reason code (see ``engine.core.position.REASONS``) for a move."""
        color = int(self.position.to_play if color is None else color)
        if self.resigned is not None:
            return GAME_OVER
        verdict = self.position.check(action, color)
        if verdict != LEGAL or self.rules.game != "go" or self.rules.ko == "simple":
            return verdict
        if action == self.rules.pass_action:
            return LEGAL
        geo = self.position.geo
        point = int(geo.action_point[action])
        after = go_hash_after(self.position.cells, self.position.info, geo.zobrist, geo.width, point, color)
        if self.rules.ko == "situational" and color == BLACK:
            after ^= int(geo.zobrist[0, 0])  # white moves next
        return SUPERKO if after in self._seen_set else LEGAL

    def is_legal(self, action: int, color: int | None = None) -> bool:
        return self.check(action, color) == LEGAL

    def legal_mask(self, color: int | None = None) -> np.ndarray:
        """``bool[N*N + 1]`` of the legal actions, superko included."""
        color = int(self.position.to_play if color is None else color)
        if self.resigned is not None:
            return np.zeros(self.rules.num_actions, dtype=np.bool_)
        mask = self.position.legal_mask(color)
        if self.rules.game == "go" and self.rules.ko != "simple" and mask.any():
            geo = self.position.geo
            actions = np.flatnonzero(mask[:-1])
            after = np.empty(actions.shape[0], dtype=np.int64)
            _hashes_after(self.position.cells, self.position.info, geo.zobrist, geo.width,
                          geo.action_point[actions], color, after)
            if self.rules.ko == "situational" and color == BLACK:
                after ^= geo.zobrist[0, 0]
            mask[actions[np.isin(after, np.fromiter(self._seen_set, np.int64))]] = False
        return mask

    # ----------------------------------------------------------------- moves
    def play(self, action: int, color: int | None = None) -> None:
        """Play a checked move for ``color`` (default: the side to move)."""
        color = Color(self.position.to_play if color is None else color)
        verdict = self.check(action, color)
        if verdict != LEGAL:
            raise IllegalMoveError(self._name(action), REASONS[verdict])
        self.position.play_unchecked(action, color)
        self.moves.append(Move(color, int(action)))
        self._remember(self.position)

    def _name(self, action: int) -> str:
        try:
            return action_to_gtp(action, self.rules.size)
        except EngineError:
            return str(action)

    def _remember(self, position: Position) -> None:
        key = self._superko_key(position)
        self._seen.append(key)
        self._seen_set.add(key)

    def play_on(self) -> None:
        """Let a Go game that two passes or the move cap ended go on; any other game stays as it is.

        GTP knows no end of game: a controller may play on (KGS's cleanup
        phase, GUIs), and the player then moves too. The moves so far stay in
        the record, but the board counts as set up anew, as :meth:`from_board`
        sets it up: passes, the move cap and captures count from here and no
        ko is pending; earlier positions still count for superko. Undoing the
        next move takes the game back to its end.
        """
        if self.rules.game != "go" or self.resigned is not None or not self.position.is_over:
            return
        self._played_on.append(len(self.moves))
        self.position = self._afresh(self.position)

    def _afresh(self, position: Position) -> Position:
        return Position.from_board(self.rules, position.board(), position.to_play)

    def undo(self) -> Move:
        """Take back the last move; the state is rebuilt exactly as it was."""
        if not self.moves:
            raise EngineError("cannot undo: no moves")
        last = self.moves.pop()
        self._seen.pop()
        self._seen_set = set(self._seen)
        self.resigned = None
        self._played_on = [number for number in self._played_on if number < len(self.moves)]
        self.position = self._start.copy()
        for number, move in enumerate(self.moves):
            if number in self._played_on:
                self.position = self._afresh(self.position)
            self.position.play_unchecked(move.action, move.color)
        return last

    def resign(self, color: int) -> None:
        """``color`` resigns; the game is over."""
        self.resigned = Color(color)

    # ----------------------------------------------------------------- setup
    def setup(self, black: Iterable[int] = (), white: Iterable[int] = (), empty: Iterable[int] = (),
              to_play: int | None = None) -> None:
        """Add or remove stones before the first move (SGF AB / AW / AE, free handicap)."""
        if self.moves:
            raise EngineError("setup stones can only be placed before the first move")
        board = self.position.board().copy().reshape(-1)
        for color, actions in ((BLACK, black), (WHITE, white), (0, empty)):
            for action in actions:
                if not 0 <= action < self.rules.num_points:
                    raise IllegalMoveError(str(action), REASONS[OFF_BOARD])
                board[action] = color
        next_color = self.position.to_play if to_play is None else Color(to_play)
        self._start_from(Position.from_board(self.rules, board, next_color))

    def place_handicap(self, actions: Sequence[int]) -> None:
        """Black's handicap stones (fixed or free); white moves next."""
        if len(set(actions)) != len(actions) or len(actions) < 2:
            raise EngineError("a handicap is at least two distinct points")
        if self.position.board().any():
            raise EngineError("handicap stones go on an empty board")
        self.setup(black=actions, to_play=WHITE)
        self.handicap = len(actions)

    # ---------------------------------------------------------------- result
    def score(self, dead: Iterable[int] = ()) -> float:
        """Black's lead (komi included) under the rules' scoring, ``dead`` stones removed first."""
        if self.rules.game != "go":
            raise EngineError("only Go games are scored by points")
        position = self.position
        return score(position.cells, position.info, self.rules.size, self.rules.komi, self.rules.scoring, dead)

    def ownership(self, dead: Iterable[int] = ()) -> np.ndarray:
        """``int8[N*N]`` owner of each point under area counting, ``dead`` removed."""
        return ownership(self.position.cells, self.rules.size, dead)

    def outcome(self, dead: Iterable[int] = ()) -> Outcome | None:
        """The result once the game is over (resignation, two passes, cap, five, full board, elimination)."""
        if self.resigned is not None:
            return Outcome(self.resigned.opponent, None, "resign")
        if not self.position.is_over:
            return None
        if self.rules.game == "go":
            return Outcome.from_lead(self.score(dead))
        return self.position.outcome()
