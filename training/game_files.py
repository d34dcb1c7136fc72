"""Folders of generated SGF games that a re-run completes: one file a game, ``PREFIX-SEED-NNNNNN.sgf``.

GNU Go's games (:mod:`training.gnugo_games`) and gomokubench's
(:mod:`training.gomokubench_games`) are written one file at a time, atomically;
a run after a kill writes only the numbers still missing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GamesSummary", "game_path", "missing_numbers"]


@dataclass(frozen=True)
class GamesSummary:
    """Games written now, games already there, wall seconds."""

    written: int
    already: int
    seconds: float

    def describe(self, out_dir: str | os.PathLike[str]) -> str:
        rate = 3600 * self.written / max(self.seconds, 1e-9)
        return (f"{self.written} games written to {out_dir} in {self.seconds:.0f} s ({rate:.0f} games/hour); "
                f"{self.already} were there")


def game_path(out_dir: str | os.PathLike[str], prefix: str, seed: int, index: int) -> Path:
    """The file of game ``index`` of the run ``prefix`` with ``seed``."""
    return Path(out_dir) / f"{prefix}-{seed}-{index:06d}.sgf"


def missing_numbers(out_dir: str | os.PathLike[str], prefix: str, seed: int, games: int) -> list[int]:
    """The numbers below ``games`` whose files ``out_dir`` does not have yet."""
    return [index for index in range(games) if not game_path(out_dir, prefix, seed, index).exists()]
