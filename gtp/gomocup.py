"""The Gomocup (Piskvork) protocol: the engine as a Gomoku "brain" for managers and tournaments.

One command per line from the manager, answered on stdout (``x,y`` is a
point: column ``x`` from the left, row ``y`` from the top, both from 0):

=================  =====================================================
``START N``        new game on an N x N board -> ``OK`` (``ERROR ...``)
``RECTSTART W,H``  the same for W = H; other shapes -> ``ERROR``
``RESTART``        new game, same board -> ``OK``
``BEGIN``          the engine opens (plays black) -> ``x,y``
``TURN x,y``       the opponent played there -> the engine's ``x,y``
``BOARD`` ...      a position: ``x,y,1`` own stone, ``x,y,2`` the
``DONE``           opponent's (``3``, continuous games, is ignored) -> ``x,y``
``TAKEBACK x,y``   remove that stone -> ``OK``
``PLAY x,y``       play this as the engine's move -> ``x,y``
``INFO key value`` no answer: ``timeout_turn``, ``timeout_match``,
                   ``time_left`` (milliseconds, 0: none / as fast as
                   possible), ``max_memory`` (bytes, 0: none), ``rule``
                   (bit 1: exactly five wins, bit 4: renju)
``ABOUT``          ``name="engine", version="..."``
``END``            exit, no answer
=================  =====================================================

Anything else is answered ``UNKNOWN``; a malformed command ``ERROR``.
Caro (rule bit 8) is refused with an ``ERROR`` line and the rules stay as
they were. The engine colour follows the stones: black moves
when both have as many stones. Each move's time is the smaller of the turn
limit and a share of the match time left over the moves a Gomoku game still expects
(:func:`gtp.timecontrol.expected_moves`), less a lag buffer.

A brain always answers a move: it never resigns (the protocol has no
resignation), and in a lost position it plays its best defence. Where the
rules leave it no move at all (the game is over: the opponent made five or
the board is full; renju's black has only forbidden points, where the renju
rules let it pass) it answers ``-1,-1``, a pass as Rapfi's protocol
extension writes it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from importlib import metadata
from typing import BinaryIO

import numpy as np

from engine import BLACK, WHITE, Color, EngineError, Game, Rules
from gtp.protocol import MAX_LINE_BYTES, GtpError, read_line
from gtp.state import EngineState, FrontEndConfig
from gtp.timecontrol import TimeSettings

__all__ = ["GomocupBrain", "play_gomocup"]

log = logging.getLogger(__name__)

PASS = "-1,-1"
"""The answer where the rules leave the brain no move."""
_POINT = re.compile(r"^\s*(\d{1,3})\s*,\s*(\d{1,3})\s*$")
_BOARD_LINE = re.compile(r"^\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d)\s*$")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
EXACT_FIVE, CONTINUOUS, RENJU, CARO = 1, 2, 4, 8


class GomocupError(Exception):
    """A command that cannot be carried out; answered ``ERROR message``."""


class GomocupBrain:
    """One brain session over binary streams."""

    def __init__(self, config: FrontEndConfig, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.state = EngineState(replace(config, player=replace(config.player, resign_threshold=None)))
        self.state.start(background=True)
        self._stdin, self._stdout = stdin, stdout
        self.variant = "freestyle"
        self.turn_limit: float | None = None
        self.match_time: float | None = None
        self._board_lines: list[str] | None = None

    # -------------------------------------------------------------- streams
    def _write(self, text: str) -> None:
        """One answer line: control characters and line breaks inside it become spaces."""
        line = " ".join(_CONTROL.sub(" ", text).split())
        self._stdout.write((line + "\n").encode("utf-8"))
        self._stdout.flush()

    def run(self) -> None:
        """Answer commands until ``END``, the end of the input or a closed output."""
        try:
            while raw := read_line(self._stdin):
                answer = self.answer(raw)
                if answer == "END":
                    return
                if answer:
                    self._write(answer)
        except (OSError, ValueError) as exc:
            log.warning("input or output closed: %s", exc)

    def answer(self, raw: bytes) -> str:
        """The answer to one raw input line, under the brain's guard: a line that cannot be read or carried
        out is answered ``ERROR ...`` (unexpected failures are logged) and the brain goes on."""
        if len(raw) > MAX_LINE_BYTES:
            return "ERROR line too long"
        try:
            return self.handle(raw.decode("utf-8", "replace").strip())
        except (GomocupError, GtpError, EngineError, ValueError) as exc:
            log.debug("ERROR %s", exc)
            return f"ERROR {exc}"
        except Exception as exc:  # noqa: BLE001 -- no input line may end the brain
            log.error("input line failed", exc_info=exc)
            return f"ERROR internal error: {type(exc).__name__}"

    # ------------------------------------------------------------- commands
    def handle(self, line: str) -> str:
        """The answer to one line ("" for none, "END" to stop)."""
        if self._board_lines is not None:
            if line.upper() == "DONE":
                lines, self._board_lines = self._board_lines, None
                return self._board(lines)
            if len(self._board_lines) <= self.state.rules.num_points:  # more lines than points: refused at DONE
                self._board_lines.append(line)
            return ""
        words = line.split(None, 1)
        if not words:
            return ""
        command, rest = words[0].upper(), (words[1] if len(words) > 1 else "")
        handlers = {"START": self._start, "RECTSTART": self._rectstart, "RESTART": self._restart,
                    "BEGIN": self._begin, "TURN": self._turn, "TAKEBACK": self._takeback, "PLAY": self._play,
                    "INFO": self._info, "ABOUT": self._about}
        if command == "END":
            return "END"
        if command == "BOARD":
            self._board_lines = []
            return ""
        if command not in handlers:
            return f"UNKNOWN command {command}"
        return handlers[command](rest)

    def _rules(self, size: int) -> Rules:
        return Rules.gomoku(size, 5, self.variant)

    def _start(self, rest: str) -> str:
        try:
            size = int(rest)
            rules = self._rules(size)
        except (ValueError, EngineError):
            return f"ERROR unsupported board size {rest.strip()!r} (5 to 25)"
        self.state.wait_ready()
        self.state.new_game(rules)
        return "OK"

    def _rectstart(self, rest: str) -> str:
        match = _POINT.match(rest)
        if match is None or match.group(1) != match.group(2):
            return "ERROR only square boards are supported"
        return self._start(match.group(1))

    def _restart(self, rest: str) -> str:
        self.state.wait_ready()
        self.state.new_game(self._rules(self.state.rules.size))
        return "OK"

    def _point(self, text: str) -> int:
        match = _POINT.match(text)
        size = self.state.rules.size
        if match is None:
            raise GomocupError(f"expected x,y, not {text!r}")
        x, y = int(match.group(1)), int(match.group(2))
        if not (0 <= x < size and 0 <= y < size):
            raise GomocupError(f"{x},{y} is off the {size}x{size} board")
        return y * size + x

    def _text(self, action: int) -> str:
        y, x = divmod(action, self.state.rules.size)
        return f"{x},{y}"

    def _move(self) -> str:
        """Choose, play and name the engine's move for the side to move (:data:`PASS` where it has none)."""
        state = self.state
        color = state.game.to_play
        if not state.game.legal_mask().any():
            return PASS
        played = len(state.game.moves)
        try:
            action = state.generate(color, time_cap=self.turn_limit)
        except Exception as exc:  # noqa: BLE001 -- a Gomocup brain that answers no move forfeits the game
            log.error("the search failed; answering the legal point nearest the centre", exc_info=exc)
            if len(state.game.moves) > played:   # it failed after playing its move
                action = state.game.moves[-1].action
            else:
                action = self._nearest_centre()
                state.game.play(action, color)
        if action is None or action == state.rules.pass_action:
            return PASS
        return self._text(action)

    def _nearest_centre(self) -> int:
        """The legal point nearest the board's centre: the last resort of a brain whose search failed."""
        size = self.state.rules.size
        legal = np.flatnonzero(self.state.game.legal_mask()[:-1])
        rows, columns = np.divmod(legal, size)
        centre = (size - 1) / 2
        return int(legal[np.argmin(np.abs(rows - centre) + np.abs(columns - centre))])

    def _begin(self, rest: str) -> str:
        self.state.wait_ready()
        if len(self.state.game.moves) or self.state.game.position.board().any():
            raise GomocupError("BEGIN needs an empty board")
        return self._move()

    def _turn(self, rest: str) -> str:
        self.state.wait_ready()
        game = self.state.game
        game.play(self._point(rest), game.to_play)
        return self._move()

    def _play(self, rest: str) -> str:
        self.state.wait_ready()
        action = self._point(rest)
        game = self.state.game
        game.play(action, game.to_play)
        return self._text(action)

    def _board(self, lines: list[str]) -> str:
        """A new position from ``x,y,field`` lines; the engine moves next."""
        self.state.wait_ready()
        own, theirs = [], []
        for line in lines:
            match = _BOARD_LINE.match(line)
            if match is None:
                raise GomocupError(f"bad BOARD line {line!r}")
            action = self._point(f"{match.group(1)},{match.group(2)}")
            field = int(match.group(3))
            if field == 1:
                own.append(action)
            elif field == 2:
                theirs.append(action)
            elif field != 3:
                raise GomocupError(f"bad field {field} in BOARD line {line!r}")
        if len(set(own + theirs)) != len(own) + len(theirs):
            raise GomocupError("BOARD names a point twice")
        me = Color.WHITE if len(own) < len(theirs) else Color.BLACK   # black moves first
        stones = np.zeros(self.state.rules.num_points, np.int8)
        stones[own], stones[theirs] = me, me.opponent
        self.state.new_game(game=Game.from_board(self.state.rules, stones, me))
        return self._move()

    def _takeback(self, rest: str) -> str:
        self.state.wait_ready()
        action = self._point(rest)
        game = self.state.game
        if game.moves and game.moves[-1].action == action:
            game.undo()
            return "OK"
        board = game.position.board().reshape(-1).copy()
        if board[action] == 0:
            raise GomocupError(f"no stone at {rest.strip()}")
        board[action] = 0
        to_play = Color.BLACK if (board == BLACK).sum() <= (board == WHITE).sum() else Color.WHITE
        self.state.new_game(game=Game.from_board(self.state.rules, board, to_play))
        return "OK"

    def _info(self, rest: str) -> str:
        words = rest.split()
        if len(words) < 2:
            return ""
        key, value = words[0].lower(), words[1]
        try:
            number = int(value)
        except ValueError:
            return ""
        if key == "timeout_turn":
            self.turn_limit = number / 1000
        elif key == "timeout_match":
            self.match_time = number / 1000 if number > 0 else None
            self.state.time.set(TimeSettings("absolute", self.match_time) if self.match_time else TimeSettings())
        elif key == "time_left" and self.match_time is not None:
            for color in (BLACK, WHITE):
                self.state.time.time_left(color, max(0, number) / 1000, 0)
        elif key == "max_memory":
            self.state.limit_memory(number if number > 0 else None)
        elif key == "rule":
            return self._rule(number)
        return ""

    def _rule(self, bits: int) -> str:
        if bits & CARO:
            return f"ERROR rule {bits} is not supported (caro); playing {self.variant}"
        self.variant = "renju" if bits & RENJU else ("standard" if bits & EXACT_FIVE else "freestyle")
        self.state.wait_ready()
        if self.state.rules.variant != self.variant:
            game = self.state.game
            self.state.new_game(game=Game.from_board(self._rules(self.state.rules.size), game.position.board(),
                                                     game.to_play))
        return ""

    def _about(self, rest: str) -> str:
        try:
            version = metadata.version("engine")
        except metadata.PackageNotFoundError:
            version = "unknown"
        return f'name="engine", version="{version}", author="engine contributors"'


def play_gomocup(config: FrontEndConfig, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Run a Gomocup brain over binary streams until ``END``."""
    GomocupBrain(config, stdin, stdout).run()
