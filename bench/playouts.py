"""The playout workload behind ``engine bench rules``, separate from its command line."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.core.board import PASS_POINT, geometry
from engine.core.dispatch import pack_rules
from engine.core.game import Game
from engine.core.playout import random_playout, run_playouts
from engine.core.position import Position
from engine.core.rng import new_rng
from engine.core.rules import Rules

__all__ = ["PlayoutBench"]

_CHUNK = {"go": 4, "gomoku": 16, "chain-reaction": 16}


@dataclass
class PlayoutBench:
    """Random playouts from the empty board under fixed rules, drawing from ``rng`` (``new_rng``)."""

    rules: Rules
    start: Position
    rng: np.ndarray
    lengths: list[int] = field(default_factory=list)
    games: list[list[int]] = field(default_factory=list)

    @classmethod
    def create(cls, game: str, size: int | None, preset: str | None, seed: int) -> "PlayoutBench":
        if game == "go":
            rules = Rules.go(size or 9, preset or "japanese")
        elif game == "gomoku":
            rules = Rules.gomoku(size or 15, variant=preset or "freestyle")
        else:
            rules = Rules.parse(preset or game, size=size)
        return cls(rules, Position(rules), new_rng(seed))

    def _playouts(self, count: int) -> int:
        geo, start = geometry(self.rules.size), self.start
        return run_playouts(start.cells, start.info, geo.zobrist, geo.width, geo.action_point,
                            pack_rules(self.rules), count, self.rng)

    def record_game(self) -> list[int]:
        """One random game as a list of actions (compiled playout, recorded)."""
        geo, rules = geometry(self.rules.size), self.rules
        position = self.start.copy()
        empties = np.empty(rules.num_points, dtype=np.int64)
        record = np.empty(rules.move_cap, dtype=np.int64)
        n = random_playout(position.cells, position.info, geo.zobrist, geo.width, geo.action_point,
                           pack_rules(rules), False, self.rng, empties, record)
        points = record[:n]
        actions = np.where(points == PASS_POINT, rules.pass_action, geo.point_action[points])
        return [int(a) for a in actions]

    def warm_up(self) -> None:
        """Compile or load every kernel the timed runs use, and record games to replay."""
        self._playouts(1)
        self.games = [self.record_game() for _ in range(8)]
        self.game_step()
        self.lengths.clear()

    def compiled_step(self) -> float:
        count = _CHUNK[self.rules.game]
        moves = self._playouts(count)
        self.lengths.append(moves / count)
        return float(moves)

    def game_step(self) -> float:
        """Replay the recorded games with checked ``Game.play``; returns the moves played."""
        played = 0
        for actions in self.games:
            game = Game(self.rules)
            for action in actions:
                game.play(action)
            played += len(actions)
            self.lengths.append(len(actions))
        return float(played)

    def mean_length(self) -> float:
        return float(np.mean(self.lengths)) if self.lengths else 0.0
