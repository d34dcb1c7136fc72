"""Replaying match games through the rules core: ``engine check-games DIR --rules renju``.

A match's SGF files (``engine evaluate --sgf-dir``, ``engine match --sgf-dir``)
are read back and every move is played again with the checked
:meth:`~engine.core.game.Game.play` under the rules given (default: each file's
own ``RU``), so an illegal move, under renju a forbidden point of black's
(double three, double four, overline), is caught and named; a game that ended
on the board must also carry the rules core's result. The summary counts
black's moves that were made while at least one empty point was forbidden to
black (``black_moves_facing_forbidden``), so a check that passes can say whether
there was anything to avoid. The matches played in-process and by
``engine match`` already refuse such moves as they are played; this replay
holds the files to the same rules independently of the program that wrote them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from engine import BLACK, WHITE, Color, EngineError, Rules, action_to_gtp, load_sgf_file, with_handicap_bonus

__all__ = ["ReplaySummary", "check_games"]


@dataclass
class ReplaySummary:
    """Games replayed, black's moves, those made with a forbidden point on the board, and the problems found."""

    games: int = 0
    black_moves: int = 0
    black_moves_facing_forbidden: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def describe(self) -> str:
        head = (f"{self.games} games replayed; black made {self.black_moves} moves, "
                f"{self.black_moves_facing_forbidden} of them with forbidden points on the board")
        return head + ("; no illegal move" if self.ok else f"; {len(self.problems)} problems:\n" +
                       "\n".join(self.problems))


def check_games(directory: str | os.PathLike[str], rules: Rules | None = None) -> ReplaySummary:
    """Replay every ``*.sgf`` below ``directory`` under ``rules`` (None: each file's own) and report."""
    summary = ReplaySummary()
    for path in sorted(Path(directory).rglob("*.sgf")):
        summary.games += 1
        try:
            _replay(path, rules, summary)
        except EngineError as error:
            summary.problems.append(f"{path}: {error}")
    return summary


def _replay(path: Path, rules: Rules | None, summary: ReplaySummary) -> None:
    record = load_sgf_file(path)
    if rules is not None:
        record = replace(record, rules=rules if rules.size == record.rules.size else rules.resized(record.rules.size))
    if record.is_handicap:  # scored at the komi plus White's bonus for the stones, as the players counted it
        record = replace(record, rules=with_handicap_bonus(record.rules, record.handicap))
    game = replace(record, moves=()).replay()
    size = record.rules.size
    for number, move in enumerate(record.moves, 1):
        if move.color == Color.BLACK and move.action != record.rules.pass_action:
            summary.black_moves += 1
            board = game.position.board().reshape(-1)
            empty = (board != BLACK) & (board != WHITE)
            if np.any(empty & ~game.legal_mask(BLACK)[:-1]):
                summary.black_moves_facing_forbidden += 1
        if not game.is_legal(move.action, move.color):
            summary.problems.append(f"{path}: move {number} ({move.color.letter} "
                                    f"{action_to_gtp(move.action, size)}) is illegal under {record.rules}")
            return
        game.play(move.action, move.color)
    outcome = game.outcome()
    if game.is_over and outcome is not None and record.result is not None and record.result.reason != "resign" \
            and record.result.winner != outcome.winner:
        summary.problems.append(f"{path}: the file says {record.result.to_sgf()}, the rules core "
                                f"{outcome.to_sgf()}")
