"""Another engine's process as a match player: GTP commands behind the :class:`~training.players.MatchPlayer` seam.

``new_game`` sends ``boardsize``, ``clear_board`` and (Go) ``komi``;
``place_handicap`` ``fixed_handicap`` (``set_free_handicap`` to an engine
without it); ``play`` and
``genmove`` the moves; ``final_score`` asks the engine's own judgement. The
engine thinks in its own process, so ``genmove`` yields no search. A hung or
dead engine ends its match after the client's timeout
(:class:`~training.gtp_client.GTPClient`).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from engine import Color, InvalidVertexError, Outcome, Rules, action_to_gtp, gtp_to_action
from training.errors import PlayerError
from training.gtp_client import GTPClient
from training.players import Moves

__all__ = ["GtpPlayer"]


class GtpPlayer:
    """The engine that ``client`` speaks to, as a match player (it owns the client: ``close`` stops the engine)."""

    def __init__(self, client: GTPClient) -> None:
        self.client = client
        self.name = client.name
        self.comment: str | None = None
        self._size = 0   # the board's, set by new_game

    @classmethod
    def start(cls, command: str, timeout: float, name: str) -> GtpPlayer:
        """Start the engine of the command line ``command``; ``name`` is how records and errors call it."""
        return cls(GTPClient(shlex.split(command), timeout, name))

    @property
    def genmoves(self) -> int:
        return self.client.genmoves

    @property
    def genmove_seconds(self) -> float:
        return self.client.genmove_seconds

    def new_game(self, rules: Rules, seed: int) -> None:
        """A new game on the engine's board (``seed`` is the engine's own business)."""
        self._size = rules.size
        self.client.send(f"boardsize {rules.size}")
        self.client.send("clear_board")
        if rules.game == "go":
            self.client.send(f"komi {rules.komi:g}")

    def place_handicap(self, actions: Sequence[int]) -> None:
        """``fixed_handicap N`` where the engine knows the command (PlayerError if it places other stones than
        ``actions``), else ``set_free_handicap`` with ``actions``."""
        vertices = [action_to_gtp(action, self._size).upper() for action in actions]
        if self.client.send("known_command fixed_handicap").lower() != "true":
            self.client.send("set_free_handicap " + " ".join(vertices))
            return
        placed = self.client.send(f"fixed_handicap {len(vertices)}").upper().split()
        if sorted(placed) != sorted(vertices):
            raise PlayerError(f"{self.name} placed {' '.join(placed) or 'nothing'} for fixed_handicap {len(vertices)}, "
                              f"not {' '.join(vertices)}")

    def play(self, color: Color, action: int) -> None:
        self.client.send(f"play {color.letter} {action_to_gtp(action, self._size)}")

    def genmove(self, color: Color) -> Moves:
        yield from ()   # it thinks in its own process
        vertex = self.client.send(f"genmove {color.letter}").lower()
        if vertex == "resign":
            return None
        try:
            return gtp_to_action(vertex, self._size)
        except InvalidVertexError as error:
            raise PlayerError(f"{self.name} played {vertex!r} as {color.letter}: {error}") from error

    def final_score(self) -> Outcome | None:
        return Outcome.from_sgf(self.client.send("final_score"))

    def close(self) -> None:
        self.client.close()
