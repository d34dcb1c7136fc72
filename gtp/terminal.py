"""``engine play``: a game against the engine in a terminal, the board drawn as text after every move.

A :class:`TerminalGame` is a session over the same :class:`~gtp.state.EngineState` as
the GTP front end: the engine's moves come from its player, the human's go
through the rules core's checked :meth:`~engine.Game.play`. Each line the human
types is a move (a GTP vertex such as ``c3``; ``pass`` in Go) or one of the
words of :data:`COMMANDS`; anything else, or a move the rules forbid, is
answered with an error line and changes nothing. Go and Gomoku boards are
drawn as stones (``X``, ``O``), Chain Reaction's cells as owner and orbs
(``X2``). The game ends when the rules say so, when the engine resigns, or
when the human quits or the input ends.
"""

from __future__ import annotations

from typing import TextIO

from engine import Color, EngineError, Outcome, gtp_to_action, to_diagram, to_orb_diagram
from gtp.state import EngineState

__all__ = ["TerminalGame", "COMMANDS"]

COMMANDS = {
    "undo": "take back your last move and the engine's reply",
    "help": "show this help",
    "quit": "stop the game",
}
"""The words a human may type instead of a move, and what each does."""

_RULES_HELP = {
    "chain-reaction": "Add an orb to an empty cell or one of yours (X2: two of X's orbs). A cell with as many orbs "
                      "as neighbours (2 in a corner, 3 on an edge, 4 inside) explodes into them and takes them; "
                      "a player whose last orbs are taken loses.",
    "gomoku": "Place a stone on an empty point; five in a row wins.",
    "go": "Place a stone or pass; two passes end the game, scored by area as the board stands.",
}


class TerminalGame:
    """A human playing ``human`` against the engine ``state`` runs, over text streams (a terminal's)."""

    def __init__(self, state: EngineState, human: Color, stdin: TextIO, stdout: TextIO) -> None:
        self.state = state
        self.human = human
        self.stdin = stdin
        self.stdout = stdout

    def run(self) -> Outcome | None:
        """Play until the game ends (its outcome) or the human stops (None)."""
        self.state.wait_ready()
        rules = self.state.rules
        self._say(f"{rules}: you play {self.human.name.lower()} ({self._symbol(self.human)}). "
                  f"{_RULES_HELP[rules.game]}")
        self._say(self._help())
        while True:
            game = self.state.game
            self._say(self._board())
            if game.is_over:
                outcome = game.outcome()
                self._say(f"game over: {self._describe(outcome)}")
                return outcome
            if game.to_play != self.human:
                if not self._engine_moves():
                    return self.state.game.outcome()
            elif not self._human_moves():
                return None

    # ------------------------------------------------------------------ turns
    def _engine_moves(self) -> bool:
        """The engine's move, said; False when it resigned."""
        color = self.state.game.to_play
        action = self.state.generate(color)
        if action is None:
            self.state.game.resign(color)
            self._say(f"the engine resigns: {self._describe(self.state.game.outcome())}")
            return False
        self._say(f"engine ({self._symbol(color)}) plays {self.state.vertex(action)}")
        return True

    def _human_moves(self) -> bool:
        """Read lines until one is a legal move or ``undo``; False when the human quits (or the input ends)."""
        while True:
            self.stdout.write(f"your move ({self._symbol(self.human)}): ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self._say("")
                return False
            word = line.strip().lower()
            if word in ("quit", "exit"):
                return False
            if word in ("help", "?"):
                self._say(self._help())
            elif word == "undo":
                if self._undo():
                    return True
            elif word:
                try:
                    self.state.play(gtp_to_action(word, self.state.rules.size), self.human)
                    return True
                except EngineError as error:   # a vertex off the board, an illegal move: nothing changed
                    self._say(f"error: {error}")

    def _undo(self) -> bool:
        """Take back moves until it is the human's turn again before their last move; say why not if it cannot."""
        game = self.state.game
        if not any(move.color == self.human for move in game.moves):
            self._say("error: you have no move to take back")
            return False
        while True:
            move = game.undo()
            if move.color == self.human:
                return True

    # ------------------------------------------------------------------ text
    def _board(self) -> str:
        game = self.state.game
        board = to_orb_diagram(game.position) if game.rules.game == "chain-reaction" else to_diagram(game.position)
        last = game.moves[-1] if game.moves else None
        played = "" if last is None else f", last {self._symbol(last.color)} {self.state.vertex(last.action)}"
        return f"{board}\nmove {len(game.moves) + 1}, {self._symbol(game.to_play)} to play{played}"

    def _help(self) -> str:
        words = "; ".join(f"{word}: {what}" for word, what in COMMANDS.items())
        example = "c3" + (", or pass" if self.state.rules.game == "go" else "")
        return f"type a move such as {example}; {words}"

    def _describe(self, outcome: Outcome | None) -> str:
        if outcome is None or outcome.winner is None:
            return "a draw" + ("" if outcome is None else f" ({outcome.reason})")
        who = "you win" if outcome.winner == self.human else "the engine wins"
        how = "resignation" if outcome.reason == "resign" else outcome.reason
        return f"{who} by {how if outcome.margin is None else f'{outcome.margin:g} points'}"

    @staticmethod
    def _symbol(color: Color) -> str:
        return "X" if color == Color.BLACK else "O"

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()
