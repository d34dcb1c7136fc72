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
                   (:data:`RULES`), ``pondering`` (1: search on the
                   opponent's time)
``ABOUT``          ``name="engine", version="..."``
``END``            exit, no answer
=================  =====================================================

Yixin-Board's extensions, as the strong brains answer them:

=================== ====================================================
``SWAP2BOARD`` ...  a position (``BOARD``'s lines) ``DONE``: on an empty
``DONE``            board three opening stones ``x,y x,y x,y``; after
                    three stones ``SWAP`` (the engine takes black), a
                    move (it takes white) or, under swap2, two more
                    stones ``x,y x,y``; after five, ``SWAP`` or a move
                    (:mod:`gtp.swap`)
``YXSHOWFORBID``    ``FORBID XXYY...`` black's forbidden points under
                    renju (two digits each), then ``.``
``YXNBEST N``       the move, as ``TURN`` answers it, after ``MESSAGE``
                    lines with the N most visited moves
``STOP``/``YXSTOP`` the running search answers at once (no answer)
=================== ====================================================

Anything else is answered ``UNKNOWN``; a malformed command ``ERROR``. A
``rule`` code outside :data:`RULES` is refused with an ``ERROR`` line and the
rules stay as they were. The engine colour follows the stones: black moves
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
from collections.abc import Callable
from dataclasses import replace
from importlib import metadata
from typing import BinaryIO

import numpy as np

from engine import BLACK, WHITE, Color, EngineError, Game, Rules, SearchResult
from gtp.inbox import EOF, Inbox
from gtp.protocol import MAX_LINE_BYTES, GtpError
from gtp.state import EngineState, FrontEndConfig
from gtp.swap import balanced_opening, choose_after_five, choose_after_three
from gtp.timecontrol import TimeSettings

__all__ = ["GomocupBrain", "play_gomocup"]

log = logging.getLogger(__name__)

PASS = "-1,-1"
"""The answer where the rules leave the brain no move."""
_POINT = re.compile(r"^\s*(\d{1,3})\s*,\s*(\d{1,3})\s*$")
_BOARD_LINE = re.compile(r"^\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d)\s*$")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
RULES = {0: ("freestyle", None), 1: ("standard", None), 2: ("renju", None), 4: ("renju", None),
         5: ("freestyle", "swap1"), 6: ("freestyle", "swap2")}
"""``INFO rule`` codes as Gomocup and Yixin-Board send them: the variant and the opening rule (2 is
Yixin-Board's renju, 4 Gomocup's)."""
_STOP_COMMANDS = ("STOP", "YXSTOP")


class GomocupError(Exception):
    """A command that cannot be carried out; answered ``ERROR message``."""


class GomocupBrain:
    """One brain session over binary streams."""

    def __init__(self, config: FrontEndConfig, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.state = EngineState(replace(config, player=replace(config.player, resign_threshold=None)))
        self.state.start(background=True)
        self._stdin, self._stdout = stdin, stdout
        self.variant = "freestyle"
        self.opening_rule: str | None = None
        self.turn_limit: float | None = None
        self.match_time: float | None = None
        self.pondering = False
        self._board_lines: list[str] | None = None
        self._board_command = "BOARD"
        self._inbox: Inbox | None = None
        self._line = 0

    # -------------------------------------------------------------- streams
    def _write(self, text: str) -> None:
        """One answer line: control characters and line breaks inside it become spaces."""
        line = " ".join(_CONTROL.sub(" ", text).split())
        self._stdout.write((line + "\n").encode("utf-8"))
        self._stdout.flush()

    def run(self) -> None:
        """Answer commands until ``END``, the end of the input or a closed output. Lines are read ahead on a
        thread, so that ``STOP`` reaches a running search; with ``INFO pondering 1`` the engine searches
        while it waits for the opponent."""
        self._inbox = Inbox(self._stdin, _is_stop).start()
        try:
            while (item := self._inbox.next(self.state.ponder_job if self.pondering else None)) is not EOF:
                self._line, raw = item  # type: ignore[misc]
                answer = self.answer(raw)
                if answer == "END":
                    return
                if answer:
                    self._write(answer)
        except (OSError, ValueError) as exc:
            log.warning("input or output closed: %s", exc)

    def _stopped(self) -> bool:
        """Whether ``STOP`` arrived after the line being answered."""
        return self._inbox is not None and self._inbox.stopped(self._line)

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
                return self._board(lines) if self._board_command == "BOARD" else self._swap2board(lines)
            if len(self._board_lines) <= self.state.rules.num_points:  # more lines than points: refused at DONE
                self._board_lines.append(line)
            return ""
        words = line.split(None, 1)
        if not words:
            return ""
        command, rest = words[0].upper(), (words[1] if len(words) > 1 else "")
        handlers = {"START": self._start, "RECTSTART": self._rectstart, "RESTART": self._restart,
                    "BEGIN": self._begin, "TURN": self._turn, "TAKEBACK": self._takeback, "PLAY": self._play,
                    "INFO": self._info, "ABOUT": self._about, "YXSHOWFORBID": self._show_forbidden,
                    "YXNBEST": self._nbest}
        if command == "END":
            return "END"
        if command in _STOP_COMMANDS:   # between searches there is nothing to stop
            return ""
        if command in ("BOARD", "SWAP2BOARD"):
            self._board_lines, self._board_command = [], command
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
            action = state.generate(color, time_cap=self.turn_limit, stop=self._stopped)
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
        self._set_position(lines)
        return self._move()

    def _set_position(self, lines: list[str]) -> None:
        """The game from ``BOARD``'s ``x,y,field`` lines (1 own stone, 2 the opponent's, 3 ignored)."""
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

    # ------------------------------------------------------- Yixin-Board
    def _swap2board(self, lines: list[str]) -> str:
        """A swap decision for the position of ``lines`` (see :mod:`gtp.swap`)."""
        self._set_position(lines)
        game = self.state.game
        stones = int(np.count_nonzero(game.position.board()))
        analyse = self._analyser(3 if stones in (3, 5) else 4)
        if stones == 0:
            proposal: tuple[int, ...] = balanced_opening(game, analyse)
        elif stones == 3 or stones == 5:
            choice = (choose_after_three(game, analyse, put_two=self.opening_rule != "swap1") if stones == 3
                      else choose_after_five(game, analyse))
            if choice.swap:
                return "SWAP"
            if not choice.proposal:
                return self._move()
            proposal = choice.proposal
        else:
            return self._move()
        for action in proposal:
            game.play(action, game.to_play)
        return " ".join(self._text(action) for action in proposal)

    def _analyser(self, searches: int) -> Callable[[Game], SearchResult]:
        """A search of any position for the side to move, a ``searches``-th of a move's budget each."""
        seconds = self.state.budget(self.state.game.to_play, self.turn_limit)
        share = None if seconds is None else seconds / searches
        visits = max(1, self.state.config.player.visits // searches)
        return lambda game: self.state.player.analyse(game, visits=visits, seconds=share, stop=self._stopped)

    def _show_forbidden(self, rest: str) -> str:
        """``FORBID`` and black's forbidden points (``XXYY`` each), then ``.``: empty points black may not
        play under renju while it is black's move."""
        game = self.state.game
        points = ""
        if self.state.rules.variant == "renju" and game.to_play == Color.BLACK and not game.is_over:
            empty = game.position.board().reshape(-1) == 0
            forbidden = np.flatnonzero(empty & ~game.legal_mask()[:-1])
            size = self.state.rules.size
            points = "".join(f"{a % size:02d}{a // size:02d}" for a in forbidden)
        return f"FORBID {points}."

    def _nbest(self, rest: str) -> str:
        """The move, after ``MESSAGE`` lines naming the ``N`` most visited moves with their visits and values."""
        count = int(rest.split()[0]) if rest.split() else 1
        if count < 1:
            raise GomocupError(f"YXNBEST needs a count of at least 1, not {count}")
        self.state.wait_ready()
        answer = self._move()
        search = self.state.last_search
        if search is not None:
            visits = search.visits[:-1]
            for rank, action in enumerate(np.argsort(-visits, kind="stable")[:count], 1):
                if visits[action] > 0:
                    winrate = 50 * (1 + float(search.q[action]))
                    self._write(f"MESSAGE NBEST {rank} {self._text(int(action))} visits {int(visits[action])} "
                                f"winrate {winrate:.1f}%")
        return answer

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
        elif key == "pondering":
            self.pondering = number == 1
        return ""

    def _rule(self, code: int) -> str:
        if code not in RULES:
            known = ", ".join(f"{c} {v}{' ' + o if o else ''}" for c, (v, o) in RULES.items())
            return f"ERROR rule {code} is not supported ({known}); still playing {self.variant}"
        self.variant, self.opening_rule = RULES[code]
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


def _is_stop(raw: bytes) -> bool:
    return raw[:16].decode("utf-8", "replace").strip().upper() in _STOP_COMMANDS


def play_gomocup(config: FrontEndConfig, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Run a Gomocup brain over binary streams until ``END``."""
    GomocupBrain(config, stdin, stdout).run()
